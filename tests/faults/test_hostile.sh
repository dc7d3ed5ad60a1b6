#!/bin/bash
# Hostile but fair use of the files of a run; every case checks the exit
# code, the message and the sha256 of every file that was there before.
#  - Refusal before the first write: a user objective that does not compile
#    with --overwrite over a finished run (output and both checkpoints), and
#    a false objective.separable claim with --restart: nothing touched.
#  - Paths compared as files: the checkpoint (or its .prev or .tmp), the
#    output and the config named twice under other spellings (./x, an
#    absolute path, sub/../x, a symbolic link, a hard link): refused.
#  - The run's identity: a checkpoint of another seed, a checkpoint of
#    another run of the same config spliced into an output, an edited
#    objective (refused; --allow-changed-objective continues with a warning).
#  - Runs that meet: a second run on a live run's output is refused naming
#    the holder, the first finishes; a stale lock file is taken over.
#  - An output that is a character device or a FIFO: refused.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/lib/config.sh"
. "$IPSO_TEST_DIR/faults/user_lib.sh"
export IPSO_CACHE_DIR=$work/cache
R=$work/run
mkdir -p "$R/sub"
cd "$R" || exit 1

# A shifted sphere: not separable (each coordinate has its own shift).
cat >shift.cu <<'SRC'
ipso_real shifted(const ipso_real *x, int d)
{
  ipso_real s = 0;
  for (int i = 0; i < d; i++) s += (x[i] - (ipso_real)i) * (x[i] - (ipso_real)i);
  return s;
}
SRC
cp shift.cu shift.orig
ipso_config run.toml user 3 16 30 objective.source='"shift.cu"' objective.function='"shifted"' \
  objective.lower=-10 objective.upper=10 'run.output="run.h5"' 'output.checkpoint="run.ckpt.h5"' \
  output.checkpoint_interval=10
expect_rc 0 "a finished run with its output and checkpoints" "$IPSO_BIN" run.toml
[ -f run.h5 ] && [ -f run.ckpt.h5 ] && [ -f run.ckpt.h5.prev ] || fail "setup: files missing: $(ls)"

# refused WHAT PATTERN COMMAND...: exit 2, the message, and nothing changed.
refused() {
  local what=$1 pattern=$2
  shift 2
  snapshot "$R"
  expect_rc 2 "$what" "$@"
  grep -qE -- "$pattern" <<<"$out" && pass "$what: says '$pattern'" || fail "$what: message: $out"
  untouched "$R" "$what"
}

# Refusal before the first write.
printf 'ipso_real shifted(const ipso_real *x, int d) { return x[0] +; }\n' >shift.cu
refused "objective that does not compile, --overwrite" "cannot compile objective.source" \
  "$IPSO_BIN" run.toml --overwrite
cp shift.orig shift.cu
refused "false separable claim, --restart" "objective.separable = true, but shifted is not a sum" \
  "$IPSO_BIN" run.toml --restart run.ckpt.h5 --set objective.separable=true

# Paths that name one file.
ln -sf run.h5 link.h5
ln -f run.ckpt.h5 hard.h5
for spelling in ./run.h5 "$R/run.h5" sub/../run.h5 link.h5; do
  refused "checkpoint '$spelling' is the output run.h5" "the output file 'run.h5' and the checkpoint '$spelling' are the same file" \
    "$IPSO_BIN" run.toml --overwrite --set "output.checkpoint=\"$spelling\""
done
refused "output is the checkpoint's .prev" "the output file 'run.ckpt.h5.prev' and the previous checkpoint 'run.ckpt.h5.prev' are the same file" \
  "$IPSO_BIN" run.toml --overwrite --set 'run.output="run.ckpt.h5.prev"'
refused "output is a hard link of the checkpoint" "the output file 'hard.h5' and the checkpoint 'run.ckpt.h5' are the same file" \
  "$IPSO_BIN" run.toml --overwrite --set 'run.output="hard.h5"'
refused "output is the config" "the config file '.*run.toml' and the output file '\./run.toml' are the same file" \
  "$IPSO_BIN" run.toml --overwrite --set 'run.output="./run.toml"'
refused "temporary checkpoint is the output" "the output file 'x.h5.tmp' and the temporary checkpoint 'x.h5.tmp' are the same file" \
  "$IPSO_BIN" run.toml --overwrite --set 'run.output="x.h5.tmp"' --set 'output.checkpoint="x.h5"'
rm -f link.h5 hard.h5

# The run's identity.
refused "checkpoint of another seed" "belongs to a run with seed 1, the config's seed is 99" \
  "$IPSO_BIN" run.toml --restart run.ckpt.h5 --set run.seed=99
mkdir -p "$work/other"
cp run.toml shift.cu "$work/other/"
sleep 1.1 # another start time
(cd "$work/other" && "$IPSO_BIN" run.toml >/dev/null 2>&1) || fail "the other run"
cp "$work/other/run.ckpt.h5" other.ckpt.h5
refused "another run's checkpoint spliced into this output" "belongs to the run started .*, the output 'run.h5' to the run started" \
  "$IPSO_BIN" run.toml --restart other.ckpt.h5
rm -f other.ckpt.h5
sed -i 's/(ipso_real)i/(ipso_real)(i + 1)/g' shift.cu
refused "edited objective" "the objective changed since the checkpoint 'run.ckpt.h5' was written" \
  "$IPSO_BIN" run.toml --restart run.ckpt.h5
expect_rc 0 "edited objective with --allow-changed-objective" "$IPSO_BIN" run.toml --restart run.ckpt.h5 --allow-changed-objective
grep -q "warning: the objective changed since the checkpoint" <<<"$out" && pass "it warns" || fail "no warning: $out"
cp shift.orig shift.cu

# Runs that meet: a live run holds its output.
ipso_config long.toml rastrigin 10 64 3000000 'run.output="long.h5"' 'output.checkpoint="long.ckpt.h5"'
"$IPSO_BIN" long.toml >long.log 2>&1 &
live=$!
end=$((SECONDS + $(scaled 30)))
until [ -e long.h5.lock ] && grep -q "pid $live" long.h5.lock 2>/dev/null || [ "$SECONDS" -ge "$end" ]; do sleep 0.05; done
sleep 0.3
refused "a second run on a live run's output" "the output file 'long.h5' is in use by another run \(pid $live on [^ ]+ since" \
  "$IPSO_BIN" long.toml --overwrite
refused "a --resume beside the live run" "is in use by another run \(pid $live" "$IPSO_BIN" long.toml --resume
ln -s long.h5 live-link.h5
refused "a second run on the live run's output through a symbolic link" \
  "the output file 'live-link.h5' is in use by another run \(pid $live" \
  "$IPSO_BIN" long.toml --set 'run.output="live-link.h5"' --overwrite
rm -f live-link.h5
refused "another output sharing the live run's checkpoint" \
  "the checkpoint 'long.ckpt.h5' is in use by another run \(pid $live" \
  "$IPSO_BIN" long.toml --set 'run.output="other.h5"' --overwrite
kill -TERM "$live"
wait "$live"
rc=$?
[ "$rc" -eq 3 ] && pass "the live run was not disturbed: stopped by SIGTERM with a checkpoint (exit 3)" || fail "live run: exit $rc: $(tail -3 long.log)"
[ -e long.h5.lock ] && fail "the lock file was left behind"
# A stale lock (its run died): taken over.
printf 'pid 999999 on nowhere since 2026-01-01T00:00:00Z\n' >run.h5.lock
expect_rc 0 "a stale lock file is taken over" "$IPSO_BIN" run.toml --overwrite
[ -e run.h5.lock ] && fail "the taken-over lock file was left behind" || pass "and removed at the end"

# --resume of a start that died before its first checkpoint: the same
# config starts afresh over its unfinished output; another config's
# unfinished output is refused.
ipso_config k.toml rastrigin 10 64 150000 'run.output="k.h5"' 'output.checkpoint="k.ckpt.h5"'
"$IPSO_BIN" k.toml >k.log 2>&1 &
victim=$!
end=$((SECONDS + $(scaled 30)))
until [ -e k.h5 ] || [ "$SECONDS" -ge "$end" ]; do sleep 0.05; done
sleep 0.3
kill -KILL "$victim"
wait "$victim" 2>/dev/null
[ ! -e k.ckpt.h5 ] && [ -e k.h5 ] || fail "setup: the killed start left $(ls k.*)"
rm -f k.h5.lock k.ckpt.h5.lock # its stale locks (taking them over is checked above)
refused "--resume over another config's unfinished output" "output 'k.h5' exists" \
  "$IPSO_BIN" k.toml --resume --set run.seed=7
expect_rc 0 "--resume with no checkpoint over this config's unfinished output: started afresh" \
  "$IPSO_BIN" k.toml --resume
grep -q "holds an unfinished start of this run (same config): starting it afresh" <<<"$out" &&
  pass "it says so" || fail "message: $out"
"$IPSO_PYTHON" -c "import h5py,sys; sys.exit(0 if 'result' in h5py.File('k.h5','r') else 1)" &&
  pass "the output now holds the result" || fail "no result in k.h5"
rm -f k.h5.lock

# Outputs that are not files.
mkfifo fifo.h5
refused "output on a character device" "the output file '/dev/null' exists and is not a regular file \(a character device\)" \
  "$IPSO_BIN" run.toml --overwrite --set 'run.output="/dev/null"'
refused "output on a FIFO" "the output file 'fifo.h5' exists and is not a regular file \(a FIFO\)" \
  "$IPSO_BIN" run.toml --overwrite --set 'run.output="fifo.h5"'
finish
