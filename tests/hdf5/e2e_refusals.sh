#!/bin/bash
# Refused runs through the CLI (4 ranks, CPU): exit 2 with a message naming the file and the reason, and no file touched.
#
# A finished 4-rank run leaves run.h5, run.ckpt.h5 (iteration 40) and
# run.ckpt.h5.prev in base/. Each case then runs islandpso in base/ and
# asserts: the exit code (2: usage or config error), every expected fragment
# of the message (the path and the reason, as islandpso words it), and that
# base/ holds the same files and directories with the same bytes (md5)
# afterwards. The cases:
#   overwrite     the same run again (output and checkpoints exist), and
#                 the output alone exists (checkpoints off); --overwrite not
#                 given
#   unwritable    output or output.checkpoint under a regular file (mode 644
#                 and 755: root ignores permission bits, so "under a regular
#                 file" is the unwritable directory root cannot write), under
#                 a missing directory, or the output a directory; and with
#                 --overwrite an output in a missing directory or a
#                 checkpoint path that is a non-empty directory (the existing
#                 output and checkpoints must survive the refused run)
#   corrupt       --restart from a checkpoint with 8 bytes of island 2's
#                 positions altered (checksum), with its superblock
#                 overwritten, truncated to half, empty, or missing
#   mismatch      --restart run.ckpt.h5 with other dimensions, particles,
#                 objective or goal, or on 2 ranks instead of 4
#   output        --restart when the output file to continue is gone
# Finally --overwrite replaces the output (exit 0) with the same result.
. "$IPSO_TEST_DIR/lib/common.sh"
if ! "$IPSO_PYTHON" -c 'import h5py' 2>/dev/null; then
  echo "$IPSO_PYTHON has no h5py: skipped"
  exit 77
fi
mkdir base
ipso_config base/run.toml rastrigin 6 24 40 'run.name="refusals"' run.seed=99 'run.output="run.h5"' \
  migration.interval=10 migration.migrants=2 output.history_interval=1 output.snapshot_interval=20 \
  output.checkpoint_interval=20 'output.checkpoint="run.ckpt.h5"'
(cd base && mpi 4 run.toml >"$work/first.log" 2>&1) || { fail "the first run: exit $?"; tail -20 first.log; finish; }
[ -s base/run.h5 ] && [ -s base/run.ckpt.h5 ] && [ -s base/run.ckpt.h5.prev ] && pass "first run wrote run.h5, run.ckpt.h5, run.ckpt.h5.prev" ||
  { fail "first run's files: $(ls base)"; finish; }

# Damaged copies of the checkpoint, made once (they too must stay as they are).
touch base/afile
mkdir base/adir base/ckdir
touch base/ckdir/keep
cp base/run.ckpt.h5 base/sum.h5
"$IPSO_PYTHON" - base/sum.h5 <<'PY' || fail "could not damage sum.h5"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    d = f["position"]  # contiguous [islands*N, D] float64; island 2 owns rows 48..71
    at = d.id.get_offset() + (50 * d.shape[1] + 3) * 8
with open(sys.argv[1], "r+b") as f:
    f.seek(at)
    old = f.read(8)
    f.seek(at)
    f.write(bytes(b ^ 0x5A for b in old))
PY
cp base/run.ckpt.h5 base/magic.h5
printf 'NOT-HDF5' | dd of=base/magic.h5 conv=notrunc status=none
head -c $(($(stat -c %s base/run.ckpt.h5) / 2)) base/run.ckpt.h5 >base/half.h5
: >base/empty.h5
# A pristine copy: a case that changes base/ fails, and base/ is restored
# from it so that the next case starts from the same files.
cp -a base pristine

# state: the names under base/ and the bytes of its files.
state() { (cd base && find . | LC_ALL=C sort && find . -type f | LC_ALL=C sort | xargs md5sum); }

# refuse NP WHAT 'FRAGMENT|FRAGMENT...' ARGS...: islandpso ARGS on NP ranks in
# base/ exits 2, its output holds every fragment, and base/ is unchanged.
refuse() {
  local np=$1 what=$2 frags=$3 before rc frag missing=
  shift 3
  before=$(state)
  out=$(cd base && mpi "$np" run.toml "$@" 2>&1)
  rc=$?
  IFS='|' read -ra parts <<<"$frags"
  for frag in "${parts[@]}"; do
    grep -qF -- "$frag" <<<"$out" || missing="$missing '$frag'"
  done
  if [ "$rc" -eq 2 ] && [ -z "$missing" ]; then
    pass "$what: exit 2, $(grep -m1 'error:' <<<"$out")"
  else
    local want=
    [ "$rc" -eq 2 ] || want=" (want 2)"
    fail "$what: exit $rc$want${missing:+, message lacks$missing}"
    grep -v '^ *$' <<<"$out" | grep -v -- '----' | head -8 | sed 's/^/     /'
  fi
  if [ "$(state)" = "$before" ]; then pass "$what: base/ unchanged"; else
    fail "$what: base/ changed"
    diff <(echo "$before") <(state) | sed 's/^/     /'
    rm -rf base && cp -a pristine base
  fi
}

# The same run again: its output and checkpoints exist. Which of them the
# message names first is islandpso's choice; it must name one and --overwrite.
refuse 4 "the same run again" "'run.|exists|--overwrite"
# The output checks alone (checkpoints off, so no checkpoint is in the way).
nock=(--set 'output.checkpoint=""')
refuse 4 "existing output" "output 'run.h5' exists|--overwrite" "${nock[@]}"
refuse 4 "output under a regular file" "output 'afile/out.h5'|Not a directory" --set 'run.output="afile/out.h5"' "${nock[@]}"
refuse 4 "output in a missing directory" "output 'nodir/out.h5'|No such file or directory" --set 'run.output="nodir/out.h5"' "${nock[@]}"
refuse 4 "output is a directory" "output 'adir' is a directory" --set 'run.output="adir"' "${nock[@]}"
# A run refused for its output deletes nothing, not even with --overwrite.
refuse 4 "--overwrite, output in a missing directory" "output 'nodir/out.h5'|No such file or directory" \
  --overwrite --set 'run.output="nodir/out.h5"'
# Nor one refused for its checkpoint path (a non-empty directory, which
# cannot be replaced): the existing output must survive.
refuse 4 "--overwrite, checkpoint path a non-empty directory" "'ckdir'|irectory" \
  --overwrite --set 'output.checkpoint="ckdir"'
refuse 4 "checkpoint under a regular file" "'afile/c.h5'|Not a directory" \
  --set 'run.output="new.h5"' --set 'output.checkpoint="afile/c.h5"'
chmod 755 base/afile
refuse 4 "checkpoint under an executable regular file" "'afile/c.h5'|Not a directory" \
  --set 'run.output="new.h5"' --set 'output.checkpoint="afile/c.h5"'
chmod 644 base/afile
refuse 4 "checkpoint in a missing directory" "'nodir/c.h5'|No such file or directory" \
  --set 'run.output="new.h5"' --set 'output.checkpoint="nodir/c.h5"'

refuse 4 "checkpoint with altered data" "checkpoint 'sum.h5'|checksum of island 2 does not match" --restart sum.h5
refuse 4 "checkpoint with an overwritten superblock" "checkpoint 'magic.h5'|not an HDF5 file" --restart magic.h5
refuse 4 "truncated checkpoint" "checkpoint 'half.h5'|truncated" --restart half.h5
refuse 4 "empty checkpoint" "checkpoint 'empty.h5'|not an HDF5 file" --restart empty.h5
refuse 4 "missing checkpoint" "checkpoint 'none.h5'|No such file or directory" --restart none.h5

refuse 4 "restart with other dimensions" "checkpoint 'run.ckpt.h5'|written for 6 dimensions, the config has 7" \
  --restart run.ckpt.h5 --set objective.dimensions=7
refuse 4 "restart with other particles" "checkpoint 'run.ckpt.h5'|written for 24 particles per island, the config has 32" \
  --restart run.ckpt.h5 --set swarm.particles=32
refuse 2 "restart of 4 islands on 2 ranks" "checkpoint 'run.ckpt.h5'|written by 4 islands, the run has 2" \
  --restart run.ckpt.h5
refuse 4 "restart with another objective" "checkpoint 'run.ckpt.h5'|written for objective 'rastrigin', the config has 'sphere'" \
  --restart run.ckpt.h5 --set 'objective.name="sphere"'
refuse 4 "restart with another goal" "checkpoint 'run.ckpt.h5'|written for goal 'minimize', the config has 'maximize'" \
  --restart run.ckpt.h5 --set 'objective.goal="maximize"'
refuse 4 "--resume with other dimensions" "checkpoint 'run.ckpt.h5'|written for 6 dimensions, the config has 7" \
  --resume --set objective.dimensions=7

mv base/run.h5 run.h5.kept
refuse 4 "restart without the output" "output 'run.h5' cannot be continued|No such file or directory" --restart run.ckpt.h5
mv run.h5.kept base/run.h5

# --overwrite replaces the output: same result (the run is deterministic).
cp base/run.h5 first.h5
if (cd base && mpi 4 run.toml --overwrite >"$work/over.log" 2>&1); then
  pass "--overwrite: exit 0"
  "$IPSO_PYTHON" "$IPSO_TEST_DIR/lib/h5compare.py" first.h5 base/run.h5 >cmp.log &&
    pass "--overwrite: the new output equals the first (but the times)" || { fail "--overwrite: output differs"; cat cmp.log; }
else
  fail "--overwrite: exit $?"; tail -20 over.log
fi
finish
