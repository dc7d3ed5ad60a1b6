# Shared by the GPU test scripts: skip (77) without a GPU, a scratch
# directory, and a config writer.
set -u
. "$IPSO_TEST_DIR/lib/config.sh"
if ! "$IPSO_BIN" --version | grep -q "GPU backend: CUDA"; then
  echo "islandpso built without CUDA: skipped"; exit 77
fi
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU: skipped"; exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export IPSO_CACHE_DIR=${IPSO_CACHE_DIR:-$work/cache}

# write_config FILE OBJECTIVE DIMS PARTICLES PRECISION KERNEL SYNC ITERATIONS
#   [SEED [SECTION.KEY=VALUE...]]: a GPU config (lib/config.sh's ipso_config),
# seed SEED (default 5), watchdog 10 minutes, no output or checkpoints, the
# global topology and the axes (no eigen frames) unless the extra keys name others
# (OBJECTIVE "user": configs/user/rastrigin.cu on [-5.12, 5.12]; "user_sep":
# the same declared separable)
write_config() {
  local file=$1 obj=$2 dims=$3 parts=$4 prec=$5 kernel=$6 sync=$7 its=$8 seed=${9:-5} user=()
  shift $(($# < 9 ? $# : 9))
  case $obj in
  user | user_sep)
    user=('objective.name="user"' "objective.source=\"$IPSO_SOURCE_DIR/configs/user/rastrigin.cu\""
      'objective.function="rastrigin_user"' objective.lower=-5.12 objective.upper=5.12
      "objective.separable=$([ "$obj" = user_sep ] && echo true || echo false)")
    ;;
  esac
  PREC=$prec ipso_config "$file" "$obj" "$dims" "$parts" "$its" "run.seed=$seed" 'run.backend="gpu"' \
    'run.watchdog="00:10:00"' "swarm.kernel=\"$kernel\"" "swarm.sync=\"$sync\"" \
    'swarm.topology="global"' 'swarm.frame="axes"' "${user[@]}" "$@"
}
