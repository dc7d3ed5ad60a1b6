#!/bin/bash
# No out-of-bounds access, race or barrier misuse under compute-sanitizer on
# small configs: memcheck for every kernel variant (built-in objectives and
# a user objective declared separable), racecheck and synccheck for the
# fused queue-lock kernels (one launch per iteration, grid-resident relaxed)
# and the reduction pair; the speculative cluster kernel; the ring
# topology; four islands on one GPU; two ranks of four islands sharing the
# GPU (the edges through mapped host memory); then the GPU test programs
# (IPSO_GPU_TEST_PROGRAMS) under all three.
. "$(dirname "$0")/gpu_common.sh"
if ! command -v compute-sanitizer >/dev/null 2>&1; then
  echo "compute-sanitizer not found: skipped"; exit 77
fi
fail=0 n=0
launch=() # a launcher for check (mpirun and its options), or none
check() { # check TOOL CONFIG LABEL
  n=$((n + 1))
  if out=$("${launch[@]}" compute-sanitizer --tool "$1" --error-exitcode 9 "$IPSO_BIN" "$2" 2>&1); then
    echo "ok   $1 $3"
  else
    echo "FAIL $1 $3"; echo "$out" | grep -v "^islandpso" | head -20; fail=$((fail + 1))
  fi
}
for p in ${IPSO_SANITIZER_PROBLEMS:-cubic:1:300:double rastrigin:30:1333:float sphere:700:9:double user_sep:30:500:float}; do
  IFS=: read -r obj dims parts prec <<<"$p"
  for variant in queue_lock:strict queue_lock:relaxed queue:strict reduction:strict; do
    IFS=: read -r kernel sync <<<"$variant"
    cfg=$work/$obj-$kernel-$sync.toml
    label="$obj D=$dims $kernel $sync"
    write_config "$cfg" "$obj" "$dims" "$parts" "$prec" "$kernel" "$sync" 4
    "$IPSO_BIN" "$cfg" >/dev/null 2>&1 # compile into the cache outside the sanitizer
    check memcheck "$cfg" "$label"
    if [ "$obj" != sphere ] && [ "$obj" != user_sep ] && [ "$kernel" != queue ]; then
      check racecheck "$cfg" "$label"
      check synccheck "$cfg" "$label"
    fi
  done
done
# The speculative cluster kernel (kernels/pso_spec.cuh): the paper's 1-D
# 2,048, the plan's own choice, over more iterations than a window: all
# three tools (the blocks write into each other's shared memory only before
# the cluster barrier that precedes the reads).
cfg=$work/spec-cubic.toml
write_config "$cfg" cubic 1 2048 double queue_lock strict 60
"$IPSO_BIN" "$cfg" >/dev/null 2>&1
for tool in memcheck racecheck synccheck; do
  check "$tool" "$cfg" "cluster-speculative cubic D=1 N=2048"
done
# The ring topology (lbest kernel before every step): memcheck, racecheck and
# synccheck for the queue-lock kernel, strict and relaxed, and memcheck for
# the reduction pair.
for variant in queue_lock:strict queue_lock:relaxed reduction:strict; do
  IFS=: read -r kernel sync <<<"$variant"
  cfg=$work/ring-$kernel-$sync.toml
  write_config "$cfg" rastrigin 30 333 float "$kernel" "$sync" 4 5 'swarm.topology="ring"' \
    swarm.neighbours=3
  "$IPSO_BIN" "$cfg" >/dev/null 2>&1
  check memcheck "$cfg" "ring k=3 rastrigin D=30 $kernel $sync"
  if [ "$kernel" = queue_lock ]; then
    check racecheck "$cfg" "ring k=3 rastrigin D=30 $kernel $sync"
    check synccheck "$cfg" "ring k=3 rastrigin D=30 $kernel $sync"
  fi
done
# The clpso topology (exemplar kernel before every step, an inertia
# schedule), 4 islands in one launch: all three tools, strict and relaxed.
for sync in strict relaxed; do
  cfg=$work/clpso-$sync.toml
  write_config "$cfg" rastrigin 30 333 double queue_lock "$sync" 9 5 'swarm.topology="clpso"' \
    swarm.refresh=3 run.islands=4 migration.interval=4 migration.migrants=2
  "$IPSO_BIN" "$cfg" >/dev/null 2>&1
  for tool in memcheck racecheck synccheck; do
    check "$tool" "$cfg" "clpso refresh=3 4 islands rastrigin D=30 queue_lock $sync"
  done
done
# Four islands on one GPU (one launch per iteration for all islands; global
# and ring) with migration: all three tools.
for variant in queue_lock:strict:global:rastrigin:30 queue_lock:relaxed:ring:rastrigin:30 \
               queue_lock:strict:global:cubic:1; do
  IFS=: read -r kernel sync topo obj dims <<<"$variant"
  cfg=$work/islands-$kernel-$sync-$topo-$obj.toml
  write_config "$cfg" "$obj" "$dims" 333 float "$kernel" "$sync" 6 5 "swarm.topology=\"$topo\"" \
    run.islands=4 migration.interval=3 migration.migrants=2
  "$IPSO_BIN" "$cfg" >/dev/null 2>&1
  for tool in memcheck racecheck synccheck; do
    check "$tool" "$cfg" "4 islands $obj D=$dims $kernel $sync $topo"
  done
done
# Two ranks of 4 islands each sharing the GPU: the edge islands' messages
# written by the gather into mapped host memory together with the victims,
# read by the host after the history, and the other rank's read by the
# islands that take them; best/worst and the random policies on a
# bidirectional ring: each rank under its own sanitizer.
for policy in best random; do
  extra=()
  [ "$policy" = random ] && extra=('migration.select="random"' 'migration.policy="replace_random"' \
    'migration.topology="bidirectional_ring"' migration.probability=0.7)
  cfg=$work/ranks-$policy.toml
  write_config "$cfg" rastrigin 30 333 float queue_lock strict 12 5 run.islands=8 \
    migration.interval=3 migration.migrants=2 "${extra[@]}"
  launch=("$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" 2)
  "${launch[@]}" "$IPSO_BIN" "$cfg" >/dev/null 2>&1
  for tool in memcheck racecheck synccheck; do
    check "$tool" "$cfg" "2 ranks x 4 islands, $policy migration"
  done
  launch=()
done
export IPSO_GPU_TEST_SHORT=1
# Snapshots and periodic checkpoints (the state copied to the host), and
# the random migration policies: memcheck.
cfg=$work/capture.toml
write_config "$cfg" rastrigin 30 333 double queue_lock strict 40 5 run.islands=4 \
  migration.interval=5 migration.migrants=2 'migration.select="random"' \
  'migration.policy="replace_random"' "run.output=\"$work/capture.h5\"" \
  "output.checkpoint=\"$work/capture.ckpt.h5\"" output.checkpoint_interval=10 \
  output.snapshot_interval=10
n=$((n + 1))
label="memcheck 4 islands, snapshots and checkpoints captured, random migration"
if out=$(compute-sanitizer --tool memcheck --error-exitcode 9 "$IPSO_BIN" "$cfg" --overwrite 2>&1) &&
  grep -q "checkpoints *[1-9][0-9]* written" <<<"$out"; then
  echo "ok   $label"
else
  echo "FAIL $label"; echo "$out" | grep -v "^islandpso" | head -20; fail=$((fail + 1))
fi
# The GPU test programs themselves under each tool: their GPU-against-CPU
# and variant-against-variant comparisons must hold under the sanitizer's
# scheduling too, which runs warps in other orders (that is how a race
# between the warps of one particle, in global memory where racecheck does
# not look, showed up: as results that differed).
for prog in ${IPSO_GPU_TEST_PROGRAMS:-}; do
  for tool in memcheck racecheck synccheck; do
    n=$((n + 1))
    if out=$(compute-sanitizer --tool "$tool" --error-exitcode 9 "$prog" 2>&1); then
      echo "ok   $tool $(basename "$prog")"
    else
      echo "FAIL $tool $(basename "$prog")"
      echo "$out" | grep -E "FAIL|=========" | head -20
      fail=$((fail + 1))
    fi
  done
done
echo "$((n - fail))/$n sanitizer runs clean"
[ "$fail" -eq 0 ]
