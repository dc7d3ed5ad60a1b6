#!/bin/bash
# Resources a run cannot have are refused before anything is allocated or
# written, never found by a crash, the kernel's OOM killer or a hang. Every
# case checks the exit code, the message, how long it took and the sha256
# of every file there before.
#  - A swarm larger than the memory the process may take (the brief's 400M
#    particles; 100M under `ulimit -v`, on 1 rank and on 2): exit 2 at
#    once, naming what it needs and what there is.
#  - OMP_NUM_THREADS=100000 (which crashed in the OpenMP runtime): clamped
#    with a warning, and the result is the one-thread run's.
#  - A config that is a FIFO with no writer, or <(...): exit 2 at once
#    rather than a wait through SIGTERM; an objective source that is a
#    FIFO, and one that #includes a FIFO: exit 2 before any compiler runs.
#    (A working directory deeper than PATH_MAX: faults_run_files.)
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/user_lib.sh"
export IPSO_CACHE_DIR=$work/cache
R=$work/run
mkdir -p "$R"
cd "$R" || exit 1
printf 'notes of the user\n' >notes.txt

# quick_refusal WHAT PATTERN SECONDS COMMAND...: refused_in, within SECONDS.
quick_refusal() {
  local what=$1 pattern=$2 bound t0
  bound=$(scaled "$3")
  shift 3
  t0=$SECONDS
  refused_in "$R" "$what" "$pattern" timeout "$((bound + 30))" "$@"
  [ $((SECONDS - t0)) -le "$bound" ] && pass "$what: within $bound s" ||
    fail "$what: took $((SECONDS - t0)) s (bound $bound s)"
}

# Memory.
ipso_config huge.toml sphere 1 400000000 100 'run.output="huge.h5"' 'output.checkpoint="huge.ckpt.h5"'
if [ "$(awk '/MemAvailable/ { print $2 }' /proc/meminfo)" -lt $((60 * 1024 * 1024)) ]; then
  quick_refusal "400M particles" \
    "the swarms need about 47.68 GiB of host memory per rank \(1 island of 400000000 particles in 1 dimension: the host copy 14.90 GiB, the checkpoints' buffer 14.90 GiB, the CPU backend's swarms 17.88 GiB\), but this rank may take [0-9.]+ GiB \((MemAvailable|the control group's memory limit)\)" \
    10 "$IPSO_BIN" huge.toml
else
  echo "skip: 400M particles fit this machine's memory"
fi
quick_refusal "100M particles under ulimit -v 4000000" \
  "the swarms need about 8.20 GiB .*but this rank may take [0-9.]+ GiB \(the address-space limit \(ulimit -v\)\)" \
  10 bash -c 'ulimit -v 4000000 && exec "$0" "$@"' "$IPSO_BIN" huge.toml \
  --set swarm.particles=100000000 --set 'output.checkpoint=""'
quick_refusal "100M particles on 2 ranks under ulimit -v 4000000, said once" \
  "the swarms need about 8.20 GiB" 30 bash -c 'ulimit -v 4000000 && exec "$@"' _ \
  "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" 2 "$IPSO_BIN" huge.toml --set run.islands=2 \
  --set swarm.particles=100000000 --set 'output.checkpoint=""'
[ "$(grep -c "the swarms need about" <<<"$out")" -eq 1 ] && pass "printed once" ||
  fail "printed $(grep -c "the swarms need about" <<<"$out") times"
expect_rc 0 "IPSO_MEMORY_CHECK=0 skips the check (a small swarm under the same limit)" \
  bash -c 'ulimit -v 4000000 && IPSO_MEMORY_CHECK=0 exec "$0" "$@"' "$IPSO_BIN" huge.toml \
  --set swarm.particles=1000 --set 'output.checkpoint=""' --set 'run.output=""'

# OMP_NUM_THREADS beyond any node.
ipso_config omp.toml rastrigin 10 4096 50
one=$(OMP_NUM_THREADS=1 "$IPSO_BIN" omp.toml 2>&1)
expect_rc 0 "OMP_NUM_THREADS=100000" env OMP_NUM_THREADS=100000 "$IPSO_BIN" omp.toml
grep -q "warning: OMP_NUM_THREADS asks for 100000 threads, more than [0-9]* (8 per core on this node's [0-9]*): running" <<<"$out" &&
  pass "it says how many it runs" || fail "OMP_NUM_THREADS=100000: $out"
[ -n "$(best "$out")" ] && [ "$(best "$out")" = "$(best "$one")" ] && pass "the one-thread run's result ($(best "$out"))" ||
  fail "OMP_NUM_THREADS=100000: best '$(best "$out")', one thread '$(best "$one")'"

# Inputs that are not files.
mkfifo fifo.toml
quick_refusal "a config that is a FIFO with no writer" "config 'fifo.toml' is a FIFO \(a named pipe, or <\(...\)\), not a file" \
  10 "$IPSO_BIN" fifo.toml
quick_refusal "a config from <(...)" "is a FIFO \(a named pipe, or <\(...\)\), not a file" \
  10 bash -c 'exec "$0" <(cat "$1")' "$IPSO_BIN" omp.toml
mkfifo fifo.cu
user_cfg user.toml fifo.cu f 2 8 10
quick_refusal "an objective source that is a FIFO" "objective.source: '.*fifo.cu' is not a regular file" \
  10 "$IPSO_BIN" user.toml
printf '#include "fifo.h"\nipso_real f(const ipso_real *x, int d) { return x[0]; }\n' >inc.cu
mkfifo fifo.h
user_cfg user.toml inc.cu f 2 8 10
quick_refusal "an objective that #includes a FIFO" "objective.source '.*inc.cu' includes '.*fifo.h', which is not a regular file" \
  10 "$IPSO_BIN" user.toml
finish
