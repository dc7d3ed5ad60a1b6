#!/bin/bash
# Nothing of another user is executed: the compiled user objective is
# loaded only from a cache directory of the user's own (writable by nobody
# else, with no directory above it that another user may change) and only
# if the object is the user's and writable by nobody else; with no
# IPSO_CACHE_DIR, XDG_CACHE_HOME or HOME there is no cache and no fallback
# to a shared directory. A second, unprivileged user (created where the
# test runs as root; skipped with 77 otherwise) plants a shared object
# under the exact name of the run's cached objective, one that would make
# the run report a best fitness of -12345. Each case checks the exit code
# (2), the message, that -12345 appears nowhere, and the sha256 of every
# file there before (the run directory and the planted files).
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/user_lib.sh"
need_other_user
chmod 0711 "$work" # the other user may reach its own directories inside
t=$work/t # every file of the test's cases, checked by sha256 after each
mkdir -m 0711 "$t"
run=$t/run
mkdir -p "$run"
cat >"$run/sphere.cu" <<'SRC'
ipso_real my_sphere(const ipso_real *x, int d)
{
  ipso_real s = 0;
  for (int i = 0; i < d; i++) s += x[i] * x[i];
  return s;
}
SRC
user_cfg "$run/u.toml" sphere.cu my_sphere 4 16 20
printf 'double ipso_user_objective(const double *x, int d, const double *p)\n{ return -12345; }\n' >"$work/evil.c"
cc -shared -fPIC -o "$work/evil.so" "$work/evil.c" || fail "setup: cannot build the planted object"
chmod 0755 "$work/evil.so"

# The name under which the run caches its objective (the same in any cache).
export IPSO_CACHE_DIR=$t/ref
(cd "$run" && "$IPSO_BIN" u.toml >"$work/ref.log" 2>&1) || fail "reference run: $(cat "$work/ref.log")"
so=$(cd "$IPSO_CACHE_DIR" && ls user-*.so 2>/dev/null)
[ -n "$so" ] && pass "reference run cached $so" || fail "no cached object in $IPSO_CACHE_DIR"
mode=$(stat -c '%a' "$IPSO_CACHE_DIR/$so")
[ "$mode" = 700 ] && pass "the cached object is the user's alone (mode $mode)" || fail "cached object mode $mode, want 700"
[ "$(stat -c '%a' "$IPSO_CACHE_DIR")" = 700 ] && pass "the cache directory made 0700" ||
  fail "cache directory mode $(stat -c '%a' "$IPSO_CACHE_DIR")"

# planted CASE WHAT PATTERN VAR=VALUE...: the run with the environment given
# exits 2 with PATTERN, runs none of the planted code, and changes nothing.
planted() {
  local what=$1 pattern=$2
  shift 2
  snapshot "$t"
  out=$(cd "$run" && env -u IPSO_CACHE_DIR -u XDG_CACHE_HOME "$@" "$IPSO_BIN" u.toml 2>&1)
  local rc=$?
  [ "$rc" -eq 2 ] && pass "$what: exit 2" || { fail "$what: exit $rc, want 2"; echo "$out" | tail -5; }
  grep -qE -- "$pattern" <<<"$out" && pass "$what: says '$pattern'" || fail "$what: message: $out"
  grep -q -- "-12345" <<<"$out" && fail "$what: the planted code ran: $out" || pass "$what: the planted code did not run"
  untouched "$t" "$what"
}

# Another user's cache directory with the planted object.
theirs=$t/theirs
mkdir "$theirs" && chown "$other" "$theirs"
as_other "$other" cp "$work/evil.so" "$theirs/$so" || fail "setup: $other cannot plant into $theirs"
planted "IPSO_CACHE_DIR owned by $other" "the cache directory for compiled user objectives cannot be used: '$theirs' belongs to uid [0-9]+, not to this user" \
  "IPSO_CACHE_DIR=$theirs"
# A directory of the user's that every user may write to, planted into by the other user.
open=$t/open
mkdir "$open" && chmod 0777 "$open"
as_other "$other" cp "$work/evil.so" "$open/$so" || fail "setup: $other cannot plant into $open"
planted "IPSO_CACHE_DIR writable by every user" "'$open' is writable by every user \(mode 0777" "IPSO_CACHE_DIR=$open"
chmod 0770 "$open"
planted "IPSO_CACHE_DIR writable by its group" "'$open' is writable by its group \(mode 0770" "IPSO_CACHE_DIR=$open"
# Tightened since: the directory is the user's alone, the object still the other user's.
chmod 0700 "$open"
planted "the other user's object in the user's own directory" "the cached objective '$open/$so' belongs to uid [0-9]+, not to this user .*does not run code that another user could have written" \
  "IPSO_CACHE_DIR=$open"
rm -f "$open/$so"
cp "$work/evil.so" "$open/$so" && chmod 0666 "$open/$so"
planted "the user's object writable by every user" "the cached objective '$open/$so' is writable by every user \(mode 0666\)" \
  "IPSO_CACHE_DIR=$open"
rm -f "$open/$so"
ln -s "$work/evil.so" "$open/$so"
planted "a symbolic link in place of the object" "the cached objective '$open/$so' is not a regular file" "IPSO_CACHE_DIR=$open"
rm -f "$open/$so"
# XDG_CACHE_HOME under a directory that every user may change (not sticky).
shared=$t/shared
mkdir "$shared" && chmod 0777 "$shared"
planted "XDG_CACHE_HOME under a directory writable by every user" \
  "'$shared', a directory above it, is writable by every user \(mode 0777" "XDG_CACHE_HOME=$shared/cache"
[ ! -e "$shared/cache" ] && pass "nothing made in it" || fail "made $(find "$shared" -mindepth 1)"
# No cache directory at all: never /tmp/.cache or another shared place.
had_tmp_cache=0
[ -e /tmp/.cache/islandpso ] && had_tmp_cache=1
planted "HOME, XDG_CACHE_HOME and IPSO_CACHE_DIR unset" "none of IPSO_CACHE_DIR, XDG_CACHE_HOME and HOME is set" -u HOME
[ "$had_tmp_cache" -eq 1 ] || [ ! -e /tmp/.cache/islandpso ] && pass "no /tmp/.cache/islandpso made" ||
  fail "/tmp/.cache/islandpso was made"

# A sticky directory that every user may write to (/tmp's kind) above the
# user's own cache: used, and what it makes is the user's alone.
sticky=$t/sticky
mkdir "$sticky" && chmod 1777 "$sticky"
out=$(cd "$run" && env -u IPSO_CACHE_DIR XDG_CACHE_HOME="$sticky/c" "$IPSO_BIN" u.toml 2>&1)
rc=$?
[ "$rc" -eq 0 ] && [ "$(best "$out")" = "$(best "$(cat "$work/ref.log")")" ] &&
  pass "a cache below a sticky shared directory: exit 0, the reference's result" || fail "sticky: exit $rc: $out"
[ "$(stat -c '%a' "$sticky/c")" = 700 ] && [ "$(stat -c '%a' "$sticky/c/islandpso")" = 700 ] &&
  [ "$(stat -c '%a' "$sticky/c/islandpso/$so")" = 700 ] && pass "directories and object made 0700" ||
  fail "modes: $(stat -c '%n %a' "$sticky/c" "$sticky/c/islandpso" "$sticky/c/islandpso/$so" 2>&1)"
finish
