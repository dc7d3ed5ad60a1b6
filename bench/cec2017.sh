#!/bin/bash
# The CEC 2017 suite (F1, F3..F30) at one dimension and budget, several
# runs per function (seeds 1..R), beside the competition's results
# (results_cec2017.csv: jSO, EBO, LSCNE, LSSPA, PPSO, 51 runs each at the
# official budget; bench/data/README.md): the mean and median error per function (errors below
# 1e-8 count as 0, as the competition's rules say), and the functions where
# islandpso's mean is at or below each one's. Markdown on stdout.
#
#   bash bench/cec2017.sh [--bin DIR] [--dim D] [--runs R] [--evals E | --iterations T | --seconds S]
#                         [--config FILE] [--jobs J] [--csv FILE] [--results CSV] [--set k=v ...]
#                         [--functions "F ..."]
#
# One configuration for the whole suite: FILE (default configs/cec2017.toml)
# with objective.number, dimensions, seed and max_iterations set per run.
# --evals E: the budget in evaluations (default 10,000 x D, the official
# one), as iterations of the config's islands x particles; --iterations T
# instead gives them directly; --seconds S sizes them by time, per
# function: 90% of the iterations that the function runs in S seconds of
# in-run time, measured first at 1,000 iterations (column it.; a GPU run).
# J runs at a time (default: the cores; 1 where the config runs on the GPU).
# --csv keeps every run's error, in-run time and iterations. The competition's table comes from --results
# (default bench/data/cec2017_results.csv).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bindir=build dim=30 runs=51 evals="" iters="" seconds="" jobs="" csv="" extra=()
functions="1 $(seq -s ' ' 3 30)"
config=$here/../configs/cec2017.toml
results=$here/data/cec2017_results.csv
while [ $# -gt 0 ]; do
  case $1 in
  --bin) bindir=$2; shift ;;
  --dim) dim=$2; shift ;;
  --runs) runs=$2; shift ;;
  --evals) evals=$2; shift ;;
  --iterations) iters=$2; shift ;;
  --seconds) seconds=$2; shift ;;
  --functions) functions=$2; shift ;;
  --config) config=$2; shift ;;
  --jobs) jobs=$2; shift ;;
  --csv) csv=$2; shift ;;
  --results) results=$2; shift ;;
  --set) extra+=(--set "$2"); shift ;;
  *) sed -n '2,20p' "$0" >&2; exit 2 ;;
  esac
  shift
done
bin=$(cd "$bindir" && pwd)/islandpso
config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
[ -x "$bin" ] && [ -f "$config" ] || { echo "cec2017.sh: no $bin or $config" >&2; exit 2; }
[ -f "$results" ] || { echo "cec2017.sh: no results file '$results'" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The config's islands x particles (after the overrides), for the budget.
"$bin" "$config" --dry-run --set objective.number=1 --set objective.dimensions="$dim" \
  "${extra[@]}" >"$work/resolved.toml" || exit 2
islands=$(awk -F' = ' '$1 == "islands" {print $2}' "$work/resolved.toml")
particles=$(awk -F' = ' '$1 == "particles" {print $2}' "$work/resolved.toml")
backend=$(awk -F' = ' '$1 == "backend" {gsub(/"/, "", $2); print $2}' "$work/resolved.toml")
islands=${islands:-1}
# --seconds: each function's iterations from its own time at 1,000 (after
# one run that fills the kernel cache), 90% of what fits in S seconds.
timed() {
  OMP_NUM_THREADS=1 "$bin" "$config" --set objective.number="$1" --set objective.dimensions="$dim" \
    --set run.max_iterations=1000 --set 'run.output=""' --set 'output.checkpoint=""' \
    --set 'output.progress="off"' "${extra[@]}" 2>&1 | awk '/^  time/ {print $2}'
}
if [ -n "$seconds" ]; then
  timed 1 >/dev/null
  for f in $functions; do
    t=$(timed "$f")
    awk -v s="$seconds" -v t="$t" 'BEGIN {n = int(0.9 * s * 1000 / t); print n < 1 ? 1 : n}' \
      >"$work/iters.$f"
  done
  iters=$(cat "$work/iters.$(echo $functions | awk '{print $1}')")
fi
if [ -z "$iters" ]; then
  evals=${evals:-$((10000 * dim))}
  iters=$((evals / (islands * particles) - 1))
fi
[ "$iters" -ge 1 ] || { echo "cec2017.sh: a budget below one iteration" >&2; exit 2; }
if [ -z "$jobs" ]; then
  jobs=$(nproc)
  [ "$backend" = gpu ] && jobs=1
fi
if [ -n "$seconds" ]; then
  budget="iterations per function for $seconds s of in-run time (column it.)"
else
  budget="$((iters + 1)) iterations ($(((iters + 1) * islands * particles)) evaluations a run)"
fi
echo "CEC 2017, D = $dim, $runs runs per function, $islands x $particles particles x $budget, config $(basename "$config") ${extra[*]}"
echo

# One run: F SEED -> "F SEED ERROR SECONDS" (the overrides from $work/extra).
run_one() {
  local f=$1 seed=$2 out extra=() it=$iters
  mapfile -t extra <"$work/extra"
  [ -f "$work/iters.$f" ] && it=$(cat "$work/iters.$f")
  out=$(OMP_NUM_THREADS=1 "$bin" "$config" --set objective.number="$f" \
    --set objective.dimensions="$dim" --set run.seed="$seed" --set run.max_iterations="$it" \
    --set 'run.output=""' --set 'output.checkpoint=""' --set 'output.progress="off"' \
    "${extra[@]}" 2>&1) || { echo "cec2017.sh: F$f seed $seed failed: $(echo "$out" | tail -2)" >&2; return 1; }
  awk -v f="$f" -v s="$seed" -v it="$it" '/best fitness/ {b = $3} /^  time/ {t = $2}
    END {e = b - 100 * f; if (e < 1e-8) e = 0; printf "%d %d %.10g %s %d\n", f, s, e, t, it + 1}' <<<"$out"
}
: >"$work/extra"
[ ${#extra[@]} -eq 0 ] || printf '%s\n' "${extra[@]}" >"$work/extra"
export -f run_one
export bin config dim iters work
for f in $functions; do
  for s in $(seq 1 "$runs"); do echo "$f $s"; done
done | xargs -P "$jobs" -n 2 bash -c 'run_one "$@"' _ >"$work/runs.txt" || true
[ -n "$csv" ] && { echo "function,seed,error,seconds,iterations"; tr ' ' , <"$work/runs.txt"; } >"$csv"

python3 - "$work/runs.txt" "$dim" "$runs" "$results" "$functions" <<'EOF'
import csv, statistics, sys
runs_file, dim, nruns, results = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
fns = [int(f) for f in sys.argv[5].split()]
errs, secs, its = {}, {}, {}
for line in open(runs_file):
    f, s, e, t, n = line.split()
    errs.setdefault(int(f), []).append(float(e))
    secs.setdefault(int(f), []).append(float(t))
    its[int(f)] = int(n)
refs = ["jSO", "EBO", "LSCNE", "LSSPA", "PPSO"]
ref = {}
if results:
    for r in csv.DictReader(open(results)):
        if int(r["Dimension"]) == dim and r["Algorithm"] in refs:
            ref[(r["Algorithm"], int(r["Benchmark"]))] = float(r["mean"])
head = "| F | islandpso mean | median | runs | it. | s/run (max) |" + "".join(f" {a} mean |" for a in refs if ref)
print(head)
print("|---|" + "---:|" * (head.count("|") - 2))
wins = {a: 0 for a in refs}
missing = 0
for f in fns:
    e = errs.get(f, [])
    if len(e) < nruns:
        missing += 1
    if not e:
        print(f"| F{f} | (no runs) |")
        continue
    mean, med = statistics.fmean(e), statistics.median(e)
    row = (f"| F{f} | {mean:.4g} | {med:.4g} | {len(e)} | {its[f]} |"
           f" {statistics.fmean(secs[f]):.3g} ({max(secs[f]):.3g}) |")
    for a in refs:
        if (a, f) in ref:
            r = ref[(a, f)]
            r = 0.0 if r < 1e-8 else r
            wins[a] += mean <= r
            row += f" {r:.4g}{' *' if mean <= r else ''} |"
    print(row)
print()
if ref:
    print("Functions where islandpso's mean is at or below the reference's mean (marked *): "
          + ", ".join(f"{a} {wins[a]} of {len(fns)}" for a in refs))
if missing:
    print(f"{missing} functions with fewer than {nruns} runs (failed runs above)")
EOF
