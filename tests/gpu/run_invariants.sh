#!/bin/bash
# Every kernel variant keeps the swarm invariants after every iteration
# (islandpso --check-invariants: positions and velocities in bounds, each
# personal best the objective at its position, the global best the best
# personal best), in each launch mode the plan picks: the speculative
# cluster kernel (2,048 particles 1-D, strict), grid-resident relaxed (one
# relaxed island) and one launch per iteration (the rest); particle counts
# that are not multiples of the block size, the multi-warp mapping of long
# rows, the next-coordinate term of rosenbrock and a user objective (whole
# row, and split across threads as declared separable); the ring and the
# clpso topology and eigen frames on every variant; and 4 islands in one backend (one launch
# per iteration for all of them) with migration every 5 iterations, global
# and ring, every variant.
. "$(dirname "$0")/gpu_common.sh"
fail=0 n=0
# invariants LABEL CONFIG [GREP]: the run with --check-invariants passes
# (and prints GREP).
invariants() {
  n=$((n + 1))
  if out=$("$IPSO_BIN" "$2" --check-invariants 2>&1) && { [ -z "${3:-}" ] || grep -q "$3" <<<"$out"; }; then
    echo "ok   $1"
  else
    echo "FAIL $1"; echo "$out" | tail -25; fail=$((fail + 1))
  fi
}
variants="queue_lock:strict queue_lock:relaxed queue:strict reduction:strict"
problems="cubic:1:2048:double rastrigin:30:1000:float rosenbrock:20:333:double
rosenbrock:5:200:double sphere:1500:40:double user:10:300:double user_sep:30:1000:float
user_sep:10:300:double"
for p in $problems; do
  IFS=: read -r obj dims parts prec <<<"$p"
  for variant in $variants; do
    IFS=: read -r kernel sync <<<"$variant"
    cfg=$work/$obj-$dims-$kernel-$sync.toml
    write_config "$cfg" "$obj" "$dims" "$parts" "$prec" "$kernel" "$sync" 25
    invariants "$obj D=$dims N=$parts $prec $kernel $sync" "$cfg"
  done
done
# The modes the plan picks, named in the device line.
write_config "$work/spec.toml" cubic 1 2048 double queue_lock strict 25
invariants "cubic D=1 N=2048 strict: cluster-speculative" "$work/spec.toml" "cluster-speculative"
write_config "$work/relaxed.toml" cubic 1 2048 double queue_lock relaxed 25
invariants "cubic D=1 N=2048 relaxed: grid-resident" "$work/relaxed.toml" "grid-resident, relaxed"
# The ring topology (lbest kernel before every step, one launch per
# iteration): every variant.
ring_problems="cubic:1:2048:double:1 rastrigin:30:1000:float:2 rosenbrock:20:333:double:3
sphere:1500:40:double:2"
for p in $ring_problems; do
  IFS=: read -r obj dims parts prec k <<<"$p"
  for variant in $variants; do
    IFS=: read -r kernel sync <<<"$variant"
    cfg=$work/ring-$obj-$dims-$kernel-$sync.toml
    write_config "$cfg" "$obj" "$dims" "$parts" "$prec" "$kernel" "$sync" 25 5 \
      'swarm.topology="ring"' "swarm.neighbours=$k"
    invariants "ring k=$k $obj D=$dims N=$parts $prec $kernel $sync" "$cfg"
  done
done
# The clpso topology (exemplar kernel before every step, one launch per
# iteration): every variant.
clpso_problems="cubic:1:2048:double:1 rastrigin:30:1000:float:3 sphere:1500:40:double:2"
for p in $clpso_problems; do
  IFS=: read -r obj dims parts prec r <<<"$p"
  for variant in $variants; do
    IFS=: read -r kernel sync <<<"$variant"
    cfg=$work/clpso-$obj-$dims-$kernel-$sync.toml
    write_config "$cfg" "$obj" "$dims" "$parts" "$prec" "$kernel" "$sync" 25 5 \
      'swarm.topology="clpso"' "swarm.refresh=$r"
    invariants "clpso refresh=$r $obj D=$dims N=$parts $prec $kernel $sync" "$cfg"
  done
done
# Eigen frames (frame_kernel every 10 iterations, one launch per
# iteration): every variant, one island and 4 with frames on the odd ones.
frame_problems="rastrigin:30:1000:float:1 rosenbrock:20:333:double:1 sphere:7:100:double:4"
for p in $frame_problems; do
  IFS=: read -r obj dims parts prec islands <<<"$p"
  frame=eigen
  [ "$islands" -gt 1 ] && frame=mixed
  for variant in $variants; do
    IFS=: read -r kernel sync <<<"$variant"
    cfg=$work/frame-$obj-$dims-$kernel-$sync.toml
    write_config "$cfg" "$obj" "$dims" "$parts" "$prec" "$kernel" "$sync" 25 5 \
      "swarm.frame=\"$frame\"" run.islands="$islands" migration.interval=5 migration.migrants=3
    invariants "frame $frame $obj D=$dims N=$parts $prec $kernel $sync islands=$islands" "$cfg"
  done
done
# Several islands on one GPU (one rank): the islands run together, one
# launch per iteration, each with its own global best; migration between
# them.
island_problems="rastrigin:30:1000:float:0 cubic:1:2048:double:0 rosenbrock:20:333:double:2
sphere:1500:40:double:0"
for p in $island_problems; do
  IFS=: read -r obj dims parts prec k <<<"$p"
  topo=('swarm.topology="global"')
  [ "$k" -gt 0 ] && topo=('swarm.topology="ring"' "swarm.neighbours=$k")
  for variant in $variants; do
    IFS=: read -r kernel sync <<<"$variant"
    cfg=$work/islands-$obj-$dims-$kernel-$sync-$k.toml
    write_config "$cfg" "$obj" "$dims" "$parts" "$prec" "$kernel" "$sync" 25 5 \
      run.islands=4 migration.interval=5 migration.migrants=3 "${topo[@]}"
    invariants "4 islands $obj D=$dims N=$parts $prec $kernel $sync ring=$k" "$cfg" \
      "4 islands together"
  done
done
echo "$((n - fail))/$n invariant runs passed"
[ "$fail" -eq 0 ]
