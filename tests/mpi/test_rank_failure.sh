#!/bin/bash
# One rank of a 4-rank run dies or hangs mid-run: the job ends non-zero within seconds and leaves no islandpso process. Usage: test_rank_failure.sh kill|stop
#
#   kill  rank 2 gets SIGKILL: mpirun exits non-zero within 10 s.
#   stop  rank 2 gets SIGSTOP, run.watchdog = 3 s: another rank's watchdog
#         reports "[rank N] watchdog: no progress ..." and ends the job:
#         mpirun exits non-zero within 10 s of the stop (3 s of them the
#         watchdog's own wait).
# In both, the run is under way (its first checkpoint written) and migrating
# every 10 iterations, so the other ranks soon wait on rank 2.
. "$IPSO_TEST_DIR/lib/common.sh"
mode=${1:?usage: test_rank_failure.sh kill|stop}
victim_rank=2
limit=$(scaled 10)
mpirun_pid="" ranks=()

# Whether process PID runs (a zombie does not); whether it is gone.
running() { [ -e "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
gone() { ! running "$1"; }

# Leaves nothing behind, whatever happened: continues and kills the ranks
# this test started, then their mpirun.
cleanup() {
  local p
  for p in "${ranks[@]}"; do
    running "$p" && kill -CONT "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
  done
  [ -z "$mpirun_pid" ] || kill -KILL "$mpirun_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# poll SECONDS COMMAND...: retries COMMAND every 0.05 s; 1 if it never succeeds.
poll() {
  local end=$(($(date +%s%N) + $1 * 1000000000)); shift
  until "$@"; do
    [ "$(date +%s%N)" -lt "$end" ] || return 1
    sleep 0.05
  done
}

# The rank pids: mpirun's islandpso children, by OMPI_COMM_WORLD_RANK.
find_ranks() {
  local p r
  ranks=()
  for p in $(pgrep -P "$mpirun_pid" -x islandpso); do
    r=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
    [ -n "$r" ] && ranks[r]=$p
  done
  [ "${#ranks[@]}" -eq 4 ]
}

ipso_config run.toml sphere 4 16 1000000000 output.checkpoint_interval=2000 migration.interval=10 \
  migration.migrants=2
watchdog='"00:30:00"'
[ "$mode" = stop ] && watchdog='"00:00:03"'
"$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" 4 "$IPSO_BIN" run.toml --set 'output.checkpoint="run.ckpt.h5"' \
  --set "run.watchdog=$watchdog" >log 2>&1 &
mpirun_pid=$!
if ! poll "$(scaled 60)" test -e run.ckpt.h5; then
  fail "no first checkpoint within 60 s: the run did not get under way"; tail -20 log; finish
fi
if ! poll "$(scaled 10)" find_ranks; then
  fail "did not find 4 islandpso ranks under mpirun (pid $mpirun_pid): ${ranks[*]}"; finish
fi
victim=${ranks[$victim_rank]}
pass "run under way: ranks 0-3 are pids ${ranks[*]}; rank $victim_rank is $victim"

start=$(date +%s%N)
case $mode in
kill) kill -KILL "$victim" ;;
stop) kill -STOP "$victim" ;;
*) fail "unknown mode $mode"; finish ;;
esac
if poll $((limit + 20)) gone "$mpirun_pid"; then
  wait "$mpirun_pid"
  rc=$?
  secs=$(awk -v ns=$(($(date +%s%N) - start)) 'BEGIN { printf "%.1f", ns / 1e9 }')
  mpirun_pid=""
  [ "$rc" -ne 0 ] && pass "mpirun exited $rc" || fail "mpirun exited 0 after rank $victim_rank's $mode"
  awk -v s="$secs" -v l="$limit" 'BEGIN { exit !(s <= l) }' &&
    pass "job ended ${secs} s after the $mode (limit $limit s)" ||
    fail "job ended ${secs} s after the $mode, limit $limit s"
else
  fail "mpirun still running $((limit + 20)) s after rank $victim_rank's $mode"
fi
left=()
for p in "${ranks[@]}"; do
  poll 5 gone "$p" || left+=("$p")
done
[ "${#left[@]}" -eq 0 ] && pass "no islandpso rank left" || fail "islandpso ranks left running: ${left[*]}"

if [ "$mode" = stop ]; then
  # The ranks still running find no progress; the first to say so ends the job.
  line=$(grep -m1 'watchdog: no progress' log)
  if [[ "$line" =~ ^islandpso:\ error:\ \[rank\ ([0-9]+)\ on\ [^]]+\]\ watchdog:\ no\ progress\ for\ [0-9]+\ s ]]; then
    r=${BASH_REMATCH[1]}
    [ "$r" != "$victim_rank" ] && pass "watchdog message from rank $r: ${line#islandpso: error: }" ||
      fail "the stopped rank $r reported its own watchdog"
    grep -q "a rank may be stopped or hung" <<<"$line" && grep -q "run.watchdog = 3 s" <<<"$line" &&
      pass "the message says a rank may be stopped and names run.watchdog" ||
      fail "watchdog message lacks the cause or the setting: $line"
  else
    fail "no '[rank N] watchdog: no progress' message"; tail -20 log
  fi
fi
echo "--- end of the job's output"
tail -12 log
finish
