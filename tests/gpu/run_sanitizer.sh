#!/bin/bash
# No out-of-bounds access, race or barrier misuse in any kernel variant under
# compute-sanitizer (memcheck, racecheck, synccheck), on small configs.
. "$(dirname "$0")/gpu_common.sh"
if ! command -v compute-sanitizer >/dev/null 2>&1; then
  echo "compute-sanitizer not found: skipped"; exit 77
fi
fail=0 n=0
for p in cubic:1:300:double rastrigin:30:333:float rosenbrock:12:100:double sphere:700:9:double; do
  IFS=: read -r obj dims parts prec <<<"$p"
    for variant in queue_lock:strict:1 queue_lock:strict:0 queue_lock:relaxed:1 \
                 queue_lock:relaxed:0 queue:strict:1 reduction:strict:1; do
    IFS=: read -r kernel sync resident <<<"$variant"
    export IPSO_GPU_RESIDENT=$resident
    cfg=$work/$obj-$kernel-$sync.toml
    write_config "$cfg" "$obj" "$dims" "$parts" "$prec" "$kernel" "$sync" 4
    "$IPSO_BIN" "$cfg" >/dev/null 2>&1 # compile into the cache outside the sanitizer
    for tool in memcheck racecheck synccheck; do
      n=$((n + 1))
      if out=$(compute-sanitizer --tool "$tool" --error-exitcode 9 "$IPSO_BIN" "$cfg" 2>&1); then
        echo "ok   $tool $obj D=$dims $kernel $sync"
      else
        echo "FAIL $tool $obj D=$dims $kernel $sync"; echo "$out" | grep -v "^islandpso" | head -20
        fail=$((fail + 1))
      fi
    done
  done
done
echo "$((n - fail))/$n sanitizer runs clean"
[ "$fail" -eq 0 ]
