#!/bin/bash
# A write that fails in the middle of a 4-rank run ends the job with exit 1
# within 30 s (never a hang), names the path and the system's reason, leaves
# no process and no temporary checkpoint behind, and keeps the previous
# checkpoint, which restarts the run to the uninterrupted result.
#
# Usage: test_write_failure.sh MODE
#   disk_full             output and checkpoints on a 2 MiB tmpfs that is
#                         filled up after the first checkpoint ("No space left
#                         on device"); the output's next flush fails first
#   disk_full_checkpoint  only the checkpoints on the tmpfs: the next
#                         checkpoint is what fails, and must not replace the
#                         previous one
#   readonly_dir          the checkpoint directory bind-mounted read-only
#                         between two checkpoints ("Read-only file system";
#                         chmod does not stop root)
#   dir_replaced          the checkpoint directory moved away and a file put
#                         in its place between two checkpoints ("Not a
#                         directory"); needs no privilege
# All but the last need mount(8) (root with CAP_SYS_ADMIN) and skip (77)
# without it.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/lib.sh"
need_h5py
mode=${1:-}
case "$mode" in
disk_full)
  out=small/run.h5 ckpt=small/run.ckpt.h5 reason="No space left on device" ;;
disk_full_checkpoint)
  out=run.h5 ckpt=small/run.ckpt.h5 reason="No space left on device" ;;
readonly_dir)
  out=run.h5 ckpt=ck/run.ckpt.h5 reason="Read-only file system" ;;
dir_replaced)
  out=run.h5 ckpt=ck/run.ckpt.h5 reason="Not a directory" ;;
*)
  echo "usage: test_write_failure.sh disk_full|disk_full_checkpoint|readonly_dir|dir_replaced"
  exit 1 ;;
esac
ckdir=$(dirname "$ckpt")

# Several seconds of iterations; a history row every iteration, so that the
# output keeps growing, and a checkpoint every 1000 iterations.
ipso_config "$work/write.toml" rastrigin 8 32 60000 "run.output=\"$out\"" run.seed=99 \
  migration.interval=100 output.history_interval=1 output.checkpoint_interval=1000 \
  "output.checkpoint=\"$ckpt\""

mkdir -p "$work/ref/$ckdir" "$work/run/$ckdir"
if [ "$ckdir" = small ]; then
  if ! mount -t tmpfs -o size=2m,mode=0755 tmpfs "$work/run/small" 2>"$work/mount.err"; then
    echo "SKIP: cannot mount a 2 MiB tmpfs ($(head -n 1 "$work/mount.err")); needs root with CAP_SYS_ADMIN"
    exit 77
  fi
  mounts+=("$work/run/small")
fi

start_job "$work/ref" 4 "$work/write.toml"
wait_job 120
[ "$job_rc" -eq 0 ] || { fail "reference run: exit $job_rc"; tail -n 5 "$work/ref/log"; finish; }

# The fault: after the first checkpoint (disk full), or once a previous
# checkpoint exists too (so that one is kept).
start_job "$work/run" 4 "$work/write.toml"
case "$mode" in
disk_full*) ready() { [ -e "$work/run/$ckpt" ]; } ;;
*) ready() { [ -e "$work/run/$ckpt.prev" ]; } ;;
esac
if ! wait_for 60 ready; then
  fail "no checkpoint within 60 s"
  tail -n 5 "$work/run/log"
  finish
fi
kept=$work/run/$ckpt
case "$mode" in
disk_full*)
  # dd writes until the file system is full (islandpso may free some of it
  # again by then: a failed checkpoint's temporary file is removed).
  dd if=/dev/zero of="$work/run/small/filler" bs=4k >/dev/null 2>"$work/dd.err"
  grep -q "No space left on device" "$work/dd.err" ||
    fail "could not fill the tmpfs: $(tail -n 1 "$work/dd.err")"
  ;;
readonly_dir)
  if ! mount --bind "$work/run/ck" "$work/run/ck" 2>"$work/mount.err"; then
    echo "SKIP: cannot bind-mount ($(head -n 1 "$work/mount.err")); needs root with CAP_SYS_ADMIN"
    exit 77
  fi
  mounts+=("$work/run/ck")
  if ! mount -o remount,bind,ro "$work/run/ck" 2>"$work/mount.err"; then
    echo "SKIP: cannot remount read-only ($(head -n 1 "$work/mount.err"))"
    exit 77
  fi
  ;;
dir_replaced)
  # In one step (renameat2's RENAME_EXCHANGE): between a move and the
  # creation of the file the run could find no 'ck' at all.
  printf 'a file, not a directory\n' >"$work/run/ck.file"
  "$IPSO_PYTHON" -c 'import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
at = -100  # AT_FDCWD; 2: RENAME_EXCHANGE
sys.exit(0 if libc.renameat2(at, sys.argv[1].encode(), at, sys.argv[2].encode(), 2) == 0 else ctypes.get_errno())' \
    "$work/run/ck.file" "$work/run/ck" || fail "cannot exchange the directory and the file"
  mv "$work/run/ck.file" "$work/run/ck.saved"
  kept=$work/run/ck.saved/run.ckpt.h5
  ;;
esac
t0=$(now)
wait_job 60
wait_for 10 no_job_pids
took=$(elapsed "$t0")

if [ "$job_rc" -eq 124 ]; then
  fail "$mode: the job did not end within 60 s (hung)"
elif [ "$job_rc" -eq 1 ] && less "$took" "$(scaled 30)"; then
  pass "$mode: job ended with exit 1 after ${took}s"
else
  fail "$mode: exit $job_rc after ${took}s, want 1 within $(scaled 30) s"
fi
no_job_pids && pass "$mode: no process left" || fail "$mode: processes left: $(job_pids | tr '\n' ' ')"
errors=$(grep "islandpso: error:" "$work/run/log")
if echo "$errors" | grep -F "$ckdir/run" | grep -qF "$reason"; then
  pass "$mode: the message names the path and '$reason':"
  echo "$errors" | grep -F "$ckdir/run" | grep -F "$reason" | head -n 1 | sed 's/^/       /'
else
  fail "$mode: no 'islandpso: error:' line with '$ckdir/run...' and '$reason'"
  echo "$errors" | head -n 5
fi
if [ ! -e "$work/run/$ckpt.tmp" ] && [ ! -e "$work/run/ck.saved/run.ckpt.h5.tmp" ]; then
  pass "$mode: no temporary checkpoint left"
elif [ "$mode" = readonly_dir ] && echo "$errors" | grep -q "checkpoint: '$ckpt': cannot .*Read-only file system"; then
  # The directory became read-only after the temporary file was written,
  # between its write and the rename: nothing can remove it from a
  # read-only file system (the next checkpoint there overwrites it).
  pass "$mode: a temporary checkpoint is left only because the file system turned read-only after it was written"
elif [ "$mode" = dir_replaced ] && [ ! -e "$work/run/$ckpt.tmp" ] &&
  echo "$errors" | grep -q "checkpoint: '$ckpt': .*$ckpt.tmp.*Not a directory"; then
  # The directory was moved away after the temporary file was created in it
  # and before the writer opened it again (or before the commit read it
  # back): the file went with the directory, where the path islandpso holds
  # no longer leads (the next checkpoint there overwrites it; the previous
  # checkpoint beside it is intact, checked below).
  pass "$mode: a temporary checkpoint is left only in the moved directory, written before the move"
else
  fail "$mode: a temporary checkpoint was left"
fi

# The previous checkpoint, copied to a healthy directory with the output,
# continues the run to the uninterrupted result.
[ "$ckdir" = small ] && rm -f "$work/run/small/filler"
mkdir -p "$work/again/$ckdir"
cp "$kept" "$work/again/$ckpt" && cp "$work/run/$out" "$work/again/$out" || fail "$mode: nothing to restart from"
start_job "$work/again" 4 "$work/write.toml" --restart "$ckpt"
wait_job 120
if [ "$job_rc" -eq 0 ]; then
  same_result "$work/ref/$out" "$work/again/$out" "$mode: the kept checkpoint restarts to the uninterrupted result"
else
  fail "$mode: restart from the kept checkpoint: exit $job_rc"
  grep -E "error|warning" "$work/again/log" | head -n 6
fi
[ "$job_rc" -eq 0 ] && same_h5 "$work/ref/$out" "$work/again/$out" "$mode: output identical to the uninterrupted run"
finish
