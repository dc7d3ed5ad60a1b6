#!/bin/bash
# Faults while a checkpoint is being written (the ranks writing
# <checkpoint>.tmp), on 4 ranks:
#
# Usage: test_checkpoint_write.sh MODE
#   kill_rank  SIGKILL to a random rank while the ranks are writing: the
#              job ends non-zero within 10 s with no process left, the
#              unfinished .tmp never replaced the checkpoint, and the
#              checkpoint (the one committed before) restarts the run to the
#              uninterrupted result (output file and final checkpoint).
#   disk_full  the checkpoints on a 2 MiB tmpfs that is filled up while the
#              ranks are writing: exit 1 within 30 s, the path and 'No
#              space left on device' in a message of the failed write, no
#              temporary file left, the previous checkpoint intact and
#              restarting to the uninterrupted result. Needs mount(8) (root
#              with CAP_SYS_ADMIN); skipped (77) without.
#
# IPSO_TEST_CHECKPOINT_DELAY_MS (honoured by islandpso for tests only: a
# writing thread sleeps that long after each piece it writes, 5 pieces per
# rank here, shared by 2 threads, or 1 on one core) makes every write last
# 1.2 s or more, so that the fault reliably lands
# inside one; the reference run and the restarts run without it.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/lib.sh"
need_h5py
mode=${1:-}
seed=${IPSO_FAULT_SEED:-$((RANDOM * 32768 + RANDOM))}
RANDOM=$seed
echo "random seed $seed (IPSO_FAULT_SEED=$seed repeats this run)"
case "$mode" in
kill_rank) ckpt=run.ckpt.h5 ;;
disk_full) ckpt=small/run.ckpt.h5 ;;
*) echo "usage: test_checkpoint_write.sh kill_rank|disk_full"; exit 1 ;;
esac
ckdir=$(dirname "$ckpt")

# Several seconds of iterations on 4 ranks (one island each); a checkpoint
# every 500 iterations, history and migration in between. With the delay,
# the ranks are writing almost all the time. The faults need a run long
# enough for a write after the one first seen.
its=240000
ipso_config "$work/write.toml" rastrigin 10 64 "$its" 'run.output="run.h5"' run.seed=777 \
  migration.interval=50 migration.migrants=4 output.history_interval=10 \
  output.checkpoint_interval=500 "output.checkpoint=\"$ckpt\""

mkdir -p "$work/ref/$ckdir" "$work/run/$ckdir"
if [ "$mode" = disk_full ]; then
  if ! mount -t tmpfs -o size=2m,mode=0755 tmpfs "$work/run/small" 2>"$work/mount.err"; then
    echo "SKIP: cannot mount a 2 MiB tmpfs ($(head -n 1 "$work/mount.err")); needs root with CAP_SYS_ADMIN"
    exit 77
  fi
  mounts+=("$work/run/small")
fi

start_job "$work/ref" 4 "$work/write.toml"
wait_job 120
[ "$job_rc" -eq 0 ] || { fail "reference run: exit $job_rc"; tail -n 5 "$work/ref/log"; finish; }

# The faulty run: a checkpoint committed, and the next one being written.
export IPSO_TEST_CHECKPOINT_DELAY_MS=400
start_job "$work/run" 4 "$work/write.toml"
unset IPSO_TEST_CHECKPOINT_DELAY_MS
writing() { [ -e "$work/run/$ckpt" ] && [ -e "$work/run/$ckpt.tmp" ]; }
if ! wait_for 60 writing; then
  fail "no checkpoint written and another in flight within 60 s"
  tail -n 5 "$work/run/log"
  finish
fi
# The write first seen may be nearly done (and commit after the fault
# below, as it may); the one after it is seen as it begins: the
# checkpoint's inode changes at the commit (the .tmp renamed), and the next
# .tmp follows within a segment.
first=$(stat -c %i "$work/run/$ckpt")
next_write() { writing && [ "$(stat -c %i "$work/run/$ckpt" 2>/dev/null)" != "$first" ]; }
if ! wait_for 60 next_write; then
  fail "the checkpoint in flight was not committed, or no next one begun, within 60 s"
  tail -n 5 "$work/run/log"
  finish
fi
# Into the write (pieces of 0.4 s, 3 for the busier thread), past the file's creation. The disk
# fills before the second piece: a file of a few pages whose later pieces
# may land in pages the first ones took needs the rest of them unwritten
# to need new space.
delay=$(awk -v r=$RANDOM 'BEGIN { printf "%.3f", 0.2 + r % 600 / 1000 }')
[ "$mode" = disk_full ] && delay=$(awk -v r=$RANDOM 'BEGIN { printf "%.3f", 0.15 + r % 200 / 1000 }')
sleep "$delay"
before=$(stat -c %i "$work/run/$ckpt")
t0=$(now)
case "$mode" in
kill_rank)
  rank=$((RANDOM % 4))
  victim=$(rank_pid "$rank")
  [ -n "$victim" ] || { fail "rank $rank not found (the run ended too soon)"; finish; }
  kill -KILL "$victim"
  what="rank $rank killed ${delay}s into a checkpoint's write"
  ;;
disk_full)
  dd if=/dev/zero of="$work/run/small/filler" bs=4k 2>"$work/dd.err" >/dev/null
  grep -q "No space left on device" "$work/dd.err" || fail "could not fill the tmpfs: $(tail -n 1 "$work/dd.err")"
  what="the disk filled ${delay}s into a checkpoint's write"
  ;;
esac
[ -e "$work/run/$ckpt.tmp" ] && in_flight=1 || in_flight=0
wait_job 60
wait_for 10 no_job_pids
took=$(elapsed "$t0")

if [ "$mode" = kill_rank ]; then
  if [ "$job_rc" -ne 0 ] && [ "$job_rc" -ne 124 ] && less "$took" "$(scaled 10)" && no_job_pids; then
    pass "$what: job ended with exit $job_rc after ${took}s, no process left"
  else
    fail "$what: exit $job_rc after ${took}s; left: $(job_pids | tr '\n' ' ')"
  fi
  if [ "$in_flight" -eq 1 ] && [ -e "$work/run/$ckpt.tmp" ] &&
    [ "$(stat -c %i "$work/run/$ckpt")" = "$before" ]; then
    pass "$what: the unfinished $ckpt.tmp was left and never replaced $ckpt"
  else
    fail "$what: no checkpoint was in flight at the kill (in flight: $in_flight), or $ckpt was replaced"
  fi
else
  if [ "$job_rc" -eq 1 ] && less "$took" "$(scaled 30)"; then
    pass "$what: job ended with exit 1 after ${took}s"
  else
    fail "$what: exit $job_rc after ${took}s, want 1 within $(scaled 30) s"
  fi
  no_job_pids && pass "no process left" || fail "processes left: $(job_pids | tr '\n' ' ')"
  errors=$(grep "islandpso: error:" "$work/run/log")
  if echo "$errors" | grep -F "'$ckpt.tmp': writing" | grep -qF "No space left on device"; then
    pass "$what: the write failed, the message names the path and 'No space left on device':"
    echo "$errors" | grep -F "No space left on device" | head -n 1 | sed 's/^/       /'
  else
    fail "$what: no 'islandpso: error:' line of the writer with '$ckpt.tmp' and 'No space left on device'"
    echo "$errors" | head -n 5
  fi
  [ ! -e "$work/run/$ckpt.tmp" ] && pass "no temporary checkpoint left" || fail "a temporary checkpoint was left"
  [ "$(stat -c %i "$work/run/$ckpt")" = "$before" ] && pass "the previous checkpoint is in place" ||
    fail "the checkpoint was replaced"
  rm -f "$work/run/small/filler"
fi

# The checkpoint left behind, copied with the output to a healthy
# directory, continues the run to the uninterrupted result.
mkdir -p "$work/again/$ckdir"
cp "$work/run/$ckpt" "$work/again/$ckpt" && cp "$work/run/run.h5" "$work/again/run.h5" ||
  fail "nothing to restart from"
iteration=$(h5get "$work/again/$ckpt" /@iteration 2>/dev/null)
start_job "$work/again" 4 "$work/write.toml" --restart "$ckpt"
wait_job 120
if [ "$job_rc" -eq 0 ]; then
  same_result "$work/ref/run.h5" "$work/again/run.h5" \
    "the checkpoint of iteration ${iteration:-?} restarts to the uninterrupted result"
  same_h5 "$work/ref/run.h5" "$work/again/run.h5" "output identical to the uninterrupted run"
  same_h5 "$work/ref/$ckpt" "$work/again/$ckpt" "final checkpoint identical"
else
  fail "restart from the checkpoint: exit $job_rc"
  grep -E "error|warning" "$work/again/log" | head -n 6
fi
finish
