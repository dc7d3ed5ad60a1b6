#!/bin/bash
# What a GPU run's wall time holds beyond its kernel that is neither
# islandpso's code nor the kernel's, measured on this machine outside
# islandpso: the process's start with MPI (a one-iteration CPU run's
# --timings: exec to main(), MPI_Init), the GPU driver's start and end
# (build-gpu/cuda_context: cuInit, the primary context with
# CUDA_DEVICE_MAX_CONNECTIONS=2 as islandpso sets it, its reset, and the
# process's exit after it, the shell's wall clock less the phases), and the
# disk: BYTES (the final checkpoint's size) written by dd into the page
# cache and flushed with fsync, in the scratch directory's file system,
# where bench/e2e.sh runs. The sums say what these parts come to one after
# the other, and with the reset beside the disk as islandpso ends; its own
# final checkpoint starts the disk's write-back piece by piece and is
# faster than dd's write-then-fsync, so a run can end sooner than the sums.
# Medians of RUNS runs; markdown on stdout.
#
#   bash bench/floor.sh [--bin DIR] [--runs N] [--bytes N]
set -uo pipefail
bindir=build-gpu
runs=5
bytes=377487360 # cubic_120d_131072: 3 x 131,072 x 120 doubles
while [ $# -gt 0 ]; do
  case $1 in
  --bin) bindir=$2; shift ;;
  --runs) runs=$2; shift ;;
  --bytes) bytes=$2; shift ;;
  *) echo "usage: bench/floor.sh [--bin DIR] [--runs N] [--bytes N]" >&2; exit 2 ;;
  esac
  shift
done
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/run_lib.sh
. "$src/bench/run_lib.sh"
bench_scratch "$bindir"
[ -x "$bin/cuda_context" ] || { echo "floor: no $bin/cuda_context (build the gpu preset)" >&2; exit 2; }
ns() { date +%s%N; }
: >start.txt; : >driver.txt; : >disk.txt
one=(--backend cpu --set run.max_iterations=1 --set 'run.output=""' --set 'output.checkpoint=""' --timings)
"$bin/islandpso" "$src/configs/rastrigin_30d_float.toml" "${one[@]}" >/dev/null 2>&1
mib=$(((bytes + 1048575) / 1048576))
for _ in $(seq "$runs"); do
  "$bin/islandpso" "$src/configs/rastrigin_30d_float.toml" "${one[@]}" >t.log 2>&1
  awk '/exec and libraries/ {for (i = 2; i <= NF; i++) if ($i == "s") {e = $(i-1); break}}
       /^  MPI_Init / {m = $2} END {print e, m}' t.log >>start.txt
  t0=$(ns)
  o=$(CUDA_DEVICE_MAX_CONNECTIONS=2 "$bin/cuda_context" 0.5 reset) || exit 1
  t1=$(ns)
  # "cuInit A s  context B s  ... set C s  freed D s  reset E s"
  awk -v o="$o" -v w="$(((t1 - t0) / 1000))" 'BEGIN {
    n = split(o, f, " "); for (i = 1; i < n; i++) if (f[i+1] == "s") v[++k] = f[i]
    printf "%s %s %s %.4f\n", v[1], v[2], v[5], w / 1e6 - (v[1] + v[2] + v[3] + v[4] + v[5]) }' >>driver.txt
  t0=$(ns)
  dd if=/dev/zero of=disk.bin bs=1M count="$mib" status=none && sync disk.bin
  t1=$(ns)
  rm -f disk.bin
  echo "$(((t1 - t0) / 1000))" | awk '{printf "%.4f\n", $1 / 1e6}' >>disk.txt
done
col() { awk -v c="$2" '{print $c}' "$1" | median; }
exec_s=$(col start.txt 1) mpi_s=$(col start.txt 2)
init_s=$(col driver.txt 1) ctx_s=$(col driver.txt 2) reset_s=$(col driver.txt 3) exit_s=$(col driver.txt 4)
disk_s=$(col disk.txt 1)
echo "| part | seconds (median of $runs) |"
echo "|---|---:|"
echo "| exec to main() (10 ms resolution) | $exec_s |"
echo "| MPI_Init (isolated singleton) | $mpi_s |"
echo "| GPU driver: cuInit | $init_s |"
echo "| GPU driver: primary context, 2 queues | $ctx_s |"
echo "| GPU driver: context reset | $reset_s |"
echo "| GPU driver: the process's exit after it (and its start) | $exit_s |"
echo "| disk: $bytes bytes written and flushed (dd, fsync) | $disk_s |"
awk -v a="$exec_s" -v b="$mpi_s" -v c="$init_s" -v d="$ctx_s" -v e="$reset_s" -v f="$exit_s" \
  -v g="$disk_s" 'BEGIN {printf "| sum, one after the other | %.4f |\n| sum, the reset beside the disk | %.4f |\n", a+b+c+d+e+f+g, a+b+c+d+f+(e > g ? e : g)}'
