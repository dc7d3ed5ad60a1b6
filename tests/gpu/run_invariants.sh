#!/bin/bash
# Every kernel variant keeps the swarm invariants after every iteration
# (islandpso --check-invariants: positions and velocities in bounds, each
# personal best the objective at its position, the global best the best
# personal best): the block-resident (2048 particles 1-D, 200 particles 5-D),
# cluster-resident (2048 particles with IPSO_GPU_BLOCK=0), grid-resident
# (1000 particles, 30-D) and one-launch-per-iteration paths, particle counts
# that are not multiples of the block size, the multi-warp mapping of long
# rows, the next-coordinate term of rosenbrock and a user objective (whole
# row, and split across threads as declared separable); the ring and the
# clpso topology on every variant; and 4 islands in one backend (one launch per
# iteration for all of them) with migration every 5 iterations, global and
# ring, every variant.
. "$(dirname "$0")/gpu_common.sh"
fail=0 n=0
problems="cubic:1:2048:double rastrigin:30:1000:float rosenbrock:20:333:double
rosenbrock:5:200:double sphere:1500:40:double user:10:300:double user_sep:30:1000:float
user_sep:10:300:double"
for p in $problems; do
  IFS=: read -r obj dims parts prec <<<"$p"
  for variant in queue_lock:strict:1 queue_lock:strict:0 queue_lock:strict:plain \
                 queue_lock:strict:noblock queue_lock:relaxed:1 queue_lock:relaxed:0 \
                 queue:strict:1 reduction:strict:1; do
    IFS=: read -r kernel sync resident <<<"$variant"
    # plain: resident kernels without the state in registers, and launches
    # without programmatic dependent launch (the paths of older GPUs);
    # noblock: never the one-block kernel (cluster- or grid-resident).
    export IPSO_GPU_BLOCK=1
    if [ "$resident" = plain ]; then
      export IPSO_GPU_RESIDENT=1 IPSO_GPU_KEEP=0 IPSO_GPU_PDL=0
    elif [ "$resident" = noblock ]; then
      export IPSO_GPU_RESIDENT=1 IPSO_GPU_KEEP=1 IPSO_GPU_PDL=1 IPSO_GPU_BLOCK=0
    else
      export IPSO_GPU_RESIDENT=$resident IPSO_GPU_KEEP=1 IPSO_GPU_PDL=1
    fi
    cfg=$work/$obj-$dims-$kernel-$sync-$resident.toml
    write_config "$cfg" "$obj" "$dims" "$parts" "$prec" "$kernel" "$sync" 25
    n=$((n + 1))
    if out=$("$IPSO_BIN" "$cfg" --check-invariants 2>&1); then
      echo "ok   $obj D=$dims N=$parts $prec $kernel $sync resident=$resident"
    else
      echo "FAIL $obj D=$dims N=$parts $prec $kernel $sync resident=$resident"
      echo "$out" | tail -25; fail=$((fail + 1))
    fi
  done
done
# The ring topology (lbest kernel before every step, one launch per
# iteration): every variant, with and without programmatic dependent launch.
ring_problems="cubic:1:2048:double:1 rastrigin:30:1000:float:2 rosenbrock:20:333:double:3
sphere:1500:40:double:2"
for p in $ring_problems; do
  IFS=: read -r obj dims parts prec k <<<"$p"
  for variant in queue_lock:strict:1 queue_lock:strict:0 queue_lock:relaxed:1 queue:strict:1 \
                 reduction:strict:1; do
    IFS=: read -r kernel sync pdl <<<"$variant"
    export IPSO_GPU_RESIDENT=1 IPSO_GPU_KEEP=1 IPSO_GPU_PDL=$pdl IPSO_GPU_BLOCK=1
    cfg=$work/ring-$obj-$dims-$kernel-$sync-$pdl.toml
    write_config "$cfg" "$obj" "$dims" "$parts" "$prec" "$kernel" "$sync" 25 5 \
      'swarm.topology="ring"' "swarm.neighbours=$k"
    n=$((n + 1))
    if out=$("$IPSO_BIN" "$cfg" --check-invariants 2>&1); then
      echo "ok   ring k=$k $obj D=$dims N=$parts $prec $kernel $sync pdl=$pdl"
    else
      echo "FAIL ring k=$k $obj D=$dims N=$parts $prec $kernel $sync pdl=$pdl"
      echo "$out" | tail -25; fail=$((fail + 1))
    fi
  done
done
# The clpso topology (exemplar kernel before every step, one launch per
# iteration): every variant, with and without programmatic dependent launch.
clpso_problems="cubic:1:2048:double:1 rastrigin:30:1000:float:3 sphere:1500:40:double:2"
for p in $clpso_problems; do
  IFS=: read -r obj dims parts prec r <<<"$p"
  for variant in queue_lock:strict:1 queue_lock:strict:0 queue_lock:relaxed:1 queue:strict:1 \
                 reduction:strict:1; do
    IFS=: read -r kernel sync pdl <<<"$variant"
    export IPSO_GPU_RESIDENT=1 IPSO_GPU_KEEP=1 IPSO_GPU_PDL=$pdl
    cfg=$work/clpso-$obj-$dims-$kernel-$sync-$pdl.toml
    write_config "$cfg" "$obj" "$dims" "$parts" "$prec" "$kernel" "$sync" 25 5 \
      'swarm.topology="clpso"' "swarm.refresh=$r"
    n=$((n + 1))
    if out=$("$IPSO_BIN" "$cfg" --check-invariants 2>&1); then
      echo "ok   clpso refresh=$r $obj D=$dims N=$parts $prec $kernel $sync pdl=$pdl"
    else
      echo "FAIL clpso refresh=$r $obj D=$dims N=$parts $prec $kernel $sync pdl=$pdl"
      echo "$out" | tail -25; fail=$((fail + 1))
    fi
  done
done
# Several islands on one GPU (one rank): the islands run together (one
# launch per iteration, or strict queue-lock grid-resident with the state in
# registers or one block per island, and with IPSO_GPU_RESIDENT=0 one launch
# per iteration), each with its own global best; migration between them.
island_problems="rastrigin:30:1000:float:0 cubic:1:2048:double:0 rosenbrock:20:333:double:2
sphere:1500:40:double:0"
for p in $island_problems; do
  IFS=: read -r obj dims parts prec k <<<"$p"
  topo=('swarm.topology="global"')
  [ "$k" -gt 0 ] && topo=('swarm.topology="ring"' "swarm.neighbours=$k")
  for variant in queue_lock:strict:1 queue_lock:strict:0 queue_lock:strict:noblock \
                 queue_lock:relaxed:1 queue:strict:1 reduction:strict:1; do
    IFS=: read -r kernel sync resident <<<"$variant"
    export IPSO_GPU_RESIDENT=$resident IPSO_GPU_KEEP=1 IPSO_GPU_PDL=1 IPSO_GPU_BLOCK=1
    [ "$resident" = noblock ] && export IPSO_GPU_RESIDENT=1 IPSO_GPU_BLOCK=0
    cfg=$work/islands-$obj-$dims-$kernel-$sync-$resident-$k.toml
    write_config "$cfg" "$obj" "$dims" "$parts" "$prec" "$kernel" "$sync" 25 5 \
      run.islands=4 migration.interval=5 migration.migrants=3 "${topo[@]}"
    n=$((n + 1))
    if out=$("$IPSO_BIN" "$cfg" --check-invariants 2>&1) &&
      grep -q "4 islands together" <<<"$out"; then
      echo "ok   4 islands $obj D=$dims N=$parts $prec $kernel $sync resident=$resident ring=$k"
    else
      echo "FAIL 4 islands $obj D=$dims N=$parts $prec $kernel $sync resident=$resident ring=$k"
      echo "$out" | tail -25; fail=$((fail + 1))
    fi
  done
done
echo "$((n - fail))/$n invariant runs passed"
[ "$fail" -eq 0 ]
