#!/bin/bash
# History writing must stay cheap: bench/history_overhead.sh on the 4-rank CPU quickstart, overhead of history_interval = 1 over 0 below 25 %.
#
# Why 25 % and not the 2 % target: CI runs the 4 ranks on 2 cores, and there
# the quickstart's "time" (about 0.12 s when the machine is otherwise idle)
# moves by 2x and more from run to run with the scheduling of the
# oversubscribed ranks and whatever else runs (measured while other test
# suites shared the machine, load average 4 to 15: single runs from 0.12 to
# 1.4 s, the spread of 9 identical runs 30 to 90 % of their median, medians
# of 3 to 9 pairs giving overheads from -29 % to +23 %). A 2 % bound would
# fail at random. 25 % still catches what matters: history I/O at every
# iteration (each row appended and flushed as it is made) costs +460 % to
# +1170 % here, which this test measures too (--calibrate: checkpoint_interval
# = 1 with checkpoints off flushes the history at every iteration) and
# requires to be above twice the bound, so the bound demonstrably separates
# the two. A measurement above 25 % is repeated (at most 3 attempts, each a
# fresh median of 5 pairs) before the test fails, because a burst of load can
# swamp one set of medians while per-iteration I/O exceeds the bound in every
# attempt. The numbers measured are printed for the log either way.
. "$IPSO_TEST_DIR/lib/common.sh"
bound=25
bench=$IPSO_SOURCE_DIR/bench/history_overhead.sh
export OMP_NUM_THREADS=1
for attempt in 1 2 3; do
  args=(--runs 5)
  [ "$attempt" = 1 ] && args+=(--calibrate)
  if ! bash "$bench" "${args[@]}" "$IPSO_BIN" >"bench$attempt.log" 2>&1; then
    fail "bench/history_overhead.sh failed"
    cat "bench$attempt.log"
    finish
  fi
  sed 's/^/     /' "bench$attempt.log"
  pct=$(sed -n 's/^overhead_percent=//p' "bench$attempt.log")
  if [ "$attempt" = 1 ]; then
    flush=$(sed -n 's/^per_iteration_flush_percent=//p' bench1.log)
    if [ -n "$flush" ] && awk -v f="$flush" -v b="$bound" 'BEGIN { exit !(f > 2 * b) }'; then
      pass "per-iteration history I/O costs $flush %: well above the $bound % bound (the bound catches it)"
    else
      fail "per-iteration history I/O measured at '${flush}' %, not above 2 x $bound %: the bound would not catch it"
    fi
  fi
  [ -n "$pct" ] || { fail "no overhead_percent line"; finish; }
  if awk -v p="$pct" -v b="$bound" 'BEGIN { exit !(p < b) }'; then
    pass "history overhead $pct % < $bound % (attempt $attempt; target < 2 % on a quiet machine)"
    finish
  fi
  echo "attempt $attempt: overhead $pct % >= $bound %"
done
fail "history overhead >= $bound % in 3 attempts (last $pct %)"
finish
