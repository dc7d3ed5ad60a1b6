# Shared by the GPU test scripts: skip (77) without a GPU, a scratch
# directory, and a config writer.
set -u
if ! "$IPSO_BIN" --version | grep -q "GPU backend: CUDA"; then
  echo "islandpso built without CUDA: skipped"; exit 77
fi
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU: skipped"; exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export IPSO_CACHE_DIR=${IPSO_CACHE_DIR:-$work/cache}

# write_config FILE OBJECTIVE DIMS PARTICLES PRECISION KERNEL SYNC ITERATIONS [SEED]
# (OBJECTIVE "user": configs/user/rastrigin.cu on [-5.12, 5.12]; "user_sep":
# the same declared separable)
write_config() {
  local objective="name = \"$2\""
  case $2 in user | user_sep) objective="name = \"user\"
source = \"$IPSO_SOURCE_DIR/configs/user/rastrigin.cu\"
function = \"rastrigin_user\"
separable = $([ "$2" = user_sep ] && echo true || echo false)
lower = -5.12
upper = 5.12" ;;
  esac
  cat >"$1" <<CFG
[run]
seed = ${9:-5}
backend = "gpu"
precision = "$5"
max_iterations = $8
output = ""
watchdog = "00:10:00"
[objective]
$objective
dimensions = $3
[swarm]
particles = $4
kernel = "$6"
sync = "$7"
[output]
checkpoint = ""
progress = "off"
CFG
}
