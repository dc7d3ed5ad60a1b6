#!/bin/bash
# The run's own file names: every file a run creates, renames or removes
# (the output and its lock file; the checkpoint, its .prev, .tmp, lock file
# and the .removing names of an --overwrite) is a file of its own, apart
# from the others and from the config; a file at one of those names that
# the run did not make is refused, never overwritten or removed. Every case
# checks the exit code, the message and the sha256 of every file that was
# there before.
#  - Roles on one file: the output named as the checkpoint's lock file, the
#    checkpoint as the output's lock file, the output as a .removing name.
#  - Lock files that are not ours: a user's file, a symbolic link, a FIFO
#    (refused at once, no hang), with --overwrite and --resume too; a lock
#    file replaced by a user's file while the run goes on stays after it.
#  - Checkpoint names that are not ours: a user's file at .tmp or .removing;
#    at the checkpoint with --overwrite; at .prev with --restart.
#  - A stale lock file of ours (its run died) is taken over and removed.
#  - A working directory deeper than PATH_MAX: refused before MPI-IO opens
#    anything there.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/user_lib.sh"
R=$work/run
mkdir -p "$R"
cd "$R" || exit 1
ipso_config run.toml sphere 3 16 30 'run.output="out.h5"' 'output.checkpoint="x.ckpt.h5"' \
  output.checkpoint_interval=10
expect_rc 0 "a finished run with its output and checkpoints" "$IPSO_BIN" run.toml
[ -f out.h5 ] && [ -f x.ckpt.h5 ] && [ -f x.ckpt.h5.prev ] || fail "setup: files missing: $(ls)"
[ -e out.h5.lock ] || [ -e x.ckpt.h5.lock ] && fail "setup: lock files left behind"

# Roles on one file.
refused_in "$R" "output named as the checkpoint's lock file" \
  "the output file 'x.ckpt.h5.lock' and the checkpoint's lock file '$R/x.ckpt.h5.lock' are the same file" \
  "$IPSO_BIN" run.toml --set 'run.output="x.ckpt.h5.lock"'
[ -e x.ckpt.h5.lock ] && fail "the refused run left x.ckpt.h5.lock"
refused_in "$R" "checkpoint named as the output's lock file" \
  "the checkpoint 'out.h5.lock' and the output's lock file '$R/out.h5.lock' are the same file" \
  "$IPSO_BIN" run.toml --overwrite --set 'output.checkpoint="out.h5.lock"'
refused_in "$R" "output named as the checkpoint's .removing name" \
  "the output file 'x.ckpt.h5.removing' and the checkpoint being removed 'x.ckpt.h5.removing' are the same file" \
  "$IPSO_BIN" run.toml --overwrite --set 'run.output="x.ckpt.h5.removing"'
refused_in "$R" "output named as the previous checkpoint's .removing name" \
  "the output file 'x.ckpt.h5.prev.removing' and the previous checkpoint being removed" \
  "$IPSO_BIN" run.toml --overwrite --set 'run.output="x.ckpt.h5.prev.removing"'

# Lock files that are not ours.
printf 'my notes\n' >out.h5.lock
refused_in "$R" "a user's file at the output's lock file, --overwrite" \
  "'$R/out.h5.lock', the lock file of the output file 'out.h5', is not an islandpso lock file: islandpso neither overwrites nor removes it" \
  "$IPSO_BIN" run.toml --overwrite
refused_in "$R" "a user's file at the output's lock file, --resume" "is not an islandpso lock file" \
  "$IPSO_BIN" run.toml --resume
rm out.h5.lock
printf 'pid 12 on host since yesterday\nand more\n' >x.ckpt.h5.lock
refused_in "$R" "a lock-like user's file at the checkpoint's lock file" \
  "'$R/x.ckpt.h5.lock', the lock file of the checkpoint 'x.ckpt.h5', is not an islandpso lock file" \
  "$IPSO_BIN" run.toml --overwrite
rm x.ckpt.h5.lock
printf 'precious\n' >precious.txt
ln -s precious.txt out.h5.lock
refused_in "$R" "a symbolic link at the output's lock file" "the lock file of the output file 'out.h5', is a symbolic link" \
  "$IPSO_BIN" run.toml --overwrite
[ -L out.h5.lock ] && pass "the link is still there" || fail "the link was removed"
rm out.h5.lock
mkfifo out.h5.lock
t0=$SECONDS
refused_in "$R" "a FIFO at the output's lock file" "the lock file of the output file 'out.h5', is not a regular file" \
  timeout "$(scaled 60)" "$IPSO_BIN" run.toml --overwrite
[ $((SECONDS - t0)) -lt "$(scaled 30)" ] && pass "refused without waiting for a writer" || fail "took $((SECONDS - t0)) s"
[ -p out.h5.lock ] && pass "the FIFO is still there" || fail "the FIFO was removed"
rm out.h5.lock

# Checkpoint names that are not ours.
for name in x.ckpt.h5.tmp x.ckpt.h5.removing x.ckpt.h5.prev.removing; do
  printf 'user data\n' >"$name"
  refused_in "$R" "a user's file at '$name', --overwrite" "'$name': not an HDF5 file, and islandpso would replace or remove it" \
    "$IPSO_BIN" run.toml --overwrite
  rm "$name"
done
# What a run killed while writing a checkpoint leaves at the temporary name:
# data, but no superblock yet (zeros at offset 0). Ours, so replaced.
{ head -c 2048 /dev/zero; printf 'raw data'; } >x.ckpt.h5.tmp
expect_rc 0 "a temporary checkpoint a killed run was writing is replaced" "$IPSO_BIN" run.toml --overwrite
[ -e x.ckpt.h5.tmp ] && fail "the temporary checkpoint was left behind" || pass "and gone after the run"
mkdir keep && mv x.ckpt.h5 x.ckpt.h5.prev keep/
printf 'not a checkpoint\n' >x.ckpt.h5
refused_in "$R" "a user's file at the checkpoint, --overwrite" "checkpoint 'x.ckpt.h5' is not an HDF5 file; --overwrite replaces only checkpoint files" \
  "$IPSO_BIN" run.toml --overwrite
rm x.ckpt.h5
cp keep/x.ckpt.h5 x.ckpt.h5
printf 'not a checkpoint\n' >x.ckpt.h5.prev
refused_in "$R" "a user's file at the previous checkpoint, --restart" \
  "previous checkpoint 'x.ckpt.h5.prev': not an HDF5 file, and islandpso would replace" \
  "$IPSO_BIN" run.toml --restart x.ckpt.h5
rm x.ckpt.h5.prev
mv keep/x.ckpt.h5.prev . && rmdir keep

# A stale lock file of ours: taken over, and removed at the end.
printf 'pid 999999 on nowhere since 2026-01-01T00:00:00Z\n' >out.h5.lock
expect_rc 0 "a stale lock file of ours is taken over" "$IPSO_BIN" run.toml --overwrite
[ -e out.h5.lock ] && fail "the taken-over lock file was left behind" || pass "and removed at the end"

# A lock file replaced while the run goes on: the replacement stays.
ipso_config long.toml rastrigin 10 64 3000000 'run.output="long.h5"' 'output.checkpoint="long.ckpt.h5"'
"$IPSO_BIN" long.toml >long.log 2>&1 &
live=$!
end=$((SECONDS + $(scaled 30)))
until grep -q "pid $live" long.h5.lock 2>/dev/null || [ "$SECONDS" -ge "$end" ]; do sleep 0.05; done
rm -f long.h5.lock
printf 'a user file written meanwhile\n' >long.h5.lock
kill -TERM "$live"
wait "$live"
rc=$?
[ "$rc" -eq 3 ] && pass "the live run stopped with a checkpoint (exit 3)" || fail "live run: exit $rc: $(tail -3 long.log)"
[ "$(cat long.h5.lock 2>/dev/null)" = "a user file written meanwhile" ] &&
  pass "the file put at its lock's path is left as it was" || fail "the file at long.h5.lock: '$(cat long.h5.lock 2>&1)'"
[ -e long.ckpt.h5.lock ] && fail "the checkpoint's lock file was left behind"
rm -f long.*

# A working directory deeper than PATH_MAX (4096): 45 levels of 100 bytes.
name=$(printf 'd%.0s' $(seq 100))
deep=$work/deep
mkdir "$deep"
(
  cd "$deep" || exit 1
  for _ in $(seq 45); do mkdir "$name" && cd "$name" || exit 1; done
  cp "$R/run.toml" .
  sha256sum run.toml >"$work/deep.sum"
  out=$(timeout "$(scaled 60)" "$IPSO_BIN" run.toml 2>&1)
  echo "rc=$?"
  echo "$out"
  sha256sum --quiet -c "$work/deep.sum" && echo "untouched"
  ls
) >deep.log 2>&1
grep -q '^rc=2$' deep.log && pass "working directory deeper than PATH_MAX: exit 2" || fail "deep directory: $(cat deep.log)"
grep -q "the output file 'out.h5' is relative, and the working directory is longer than the system's limit on a path (PATH_MAX)" deep.log &&
  pass "it says why" || fail "deep directory: message: $(cat deep.log)"
grep -q '^untouched$' deep.log && [ "$(tail -1 deep.log)" = run.toml ] &&
  pass "the config is untouched and nothing else was written there" || fail "deep directory: files: $(cat deep.log)"
rm -rf "$deep"
finish
