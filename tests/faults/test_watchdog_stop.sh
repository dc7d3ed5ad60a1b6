#!/bin/bash
# A stopped rank (SIGSTOP) does not hang the job: with run.watchdog =
# "00:00:05" the waiting ranks end a 4-rank run with exit 1 within 20 s,
# each naming itself, the watchdog and what it was waiting in, and no
# process is left. Once for rank 0 (the root of the broadcasts) and once for
# a rank that is not.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/lib.sh"

# Runs for hours unless stopped; no output files.
ipso_config "$work/stop.toml" sphere 4 16 1000000000 'run.watchdog="00:00:05"' migration.interval=100

for stopped in 0 2; do
  dir=$work/stop$stopped
  mkdir "$dir"
  start_job "$dir" 4 "$work/stop.toml"
  started() { [ "$(grep -c "^  island [0-9]" "$dir/log")" -eq 4 ]; }
  if ! wait_for 60 started; then
    fail "rank $stopped: the run did not start within 60 s"
    kill_jobs
    continue
  fi
  sleep 0.5
  victim=$(rank_pid "$stopped")
  if [ -z "$victim" ]; then
    fail "rank $stopped: not found"
    kill_jobs
    continue
  fi
  t0=$(now)
  kill -STOP "$victim"
  wait_job 60
  wait_for 10 no_job_pids
  took=$(elapsed "$t0")
  what="rank $stopped stopped"
  if [ "$job_rc" -eq 1 ] && less "$took" "$(scaled 20)"; then
    pass "$what: job ended with exit 1 after ${took}s"
  else
    fail "$what: exit $job_rc after ${took}s, want 1 within $(scaled 20) s"
  fi
  if no_job_pids; then pass "$what: no process left"; else fail "$what: left: $(job_pids | tr '\n' ' ')"; fi
  # A rank that was not stopped noticed, and says which rank it is.
  waiting=$(grep -E "islandpso: error: \[rank [0-9]+ on [^]]+\] watchdog: no progress for [0-9]+ s \(in [a-z ]+ at iteration [0-9]+\)" "$dir/log" |
    grep -v "\[rank $stopped on ")
  if [ -n "$waiting" ]; then
    pass "$what: a waiting rank named the watchdog:"
    echo "$waiting" | head -n 1 | sed 's/^/       /'
  else
    fail "$what: no watchdog message from a waiting rank"
    grep -E "error" "$dir/log" | head -n 5
  fi
  grep -q "run.watchdog = 5 s" "$dir/log" && pass "$what: the message names the setting" ||
    fail "$what: the message does not name run.watchdog"
  kill_jobs
done
finish
