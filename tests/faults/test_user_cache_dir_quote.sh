#!/bin/bash
# A cache directory whose name holds shell syntax (a single and a double
# quote, $(...), backquotes and a semicolon; or just x'$(...)'y, which the
# old system() call ran), and a run directory with all of that but the
# double quote: the user objective compiles and runs (no shell reads the
# paths), no command hidden in the names runs, the result is the built-in
# sphere's bit for bit, the second run takes the compiled object from that
# cache, no temporary file is left there, and the run directory's files are
# untouched. A source file whose path holds a double quote, which no
# #include can name, is refused with exit 2.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/user_lib.sh"

evil="q'd\"x \$(touch pwned1) \`touch pwned2\`;touch pwned3;'\$(touch pwned4)'"
run="$work/run ${evil//\"/}"
mkdir -p "$run"
cat >"$run/sphere.cu" <<'SRC'
/* x . x, summed in order: the built-in sphere's operations. */
ipso_real my_sphere(const ipso_real *x, int d)
{
  ipso_real s = 0;
  for (int i = 0; i < d; i++) s += x[i] * x[i];
  return s;
}
SRC
user_cfg "$run/u.toml" sphere.cu my_sphere 6 32 60
sed -i 's/^lower = .*/lower = -100/; s/^upper = .*/upper = 100/' "$run/u.toml"
printf '[run]\nbackend = "cpu"\nmax_iterations = 60\noutput = ""\n[objective]\nname = "sphere"\ndimensions = 6\n[swarm]\nparticles = 32\n[output]\ncheckpoint = ""\nprogress = "off"\n' >"$work/b.toml"
snapshot "$run"
b=$("$IPSO_BIN" "$work/b.toml" 2>&1) || fail "built-in sphere run: $b"

# pwned: the files that a command hidden in a name would have created.
pwned() { find "$work" -name 'pwned*'; }
for name in "$evil" "x'\$(touch pwned5)'y"; do
  for var in XDG_CACHE_HOME IPSO_CACHE_DIR; do
    cache="$work/cache-$var $name"
    how="$var=...$name"
    for trial in compile cached; do
      out=$(cd "$run" && env -u IPSO_CACHE_DIR -u XDG_CACHE_HOME "$var=$cache" "$IPSO_BIN" u.toml 2>&1)
      rc=$?
      if [ "$rc" -eq 0 ] && [ -n "$(best "$out")" ] && [ "$(best "$out")" = "$(best "$b")" ]; then
        pass "$how, $trial: exit 0, the built-in's result ($(best "$out"))"
      else
        fail "$how, $trial: exit $rc: $out"
      fi
      [ -z "$(pwned)" ] && pass "$how, $trial: no command in the name ran" ||
        fail "$how, $trial: a command in the directory's name ran: $(pwned)"
    done
    dir=$cache
    [ "$var" = XDG_CACHE_HOME ] && dir="$cache/islandpso"
    n=$(find "$dir" -maxdepth 1 -name 'user-*.so' | wc -l)
    left=$(find "$dir" -mindepth 1 -maxdepth 1 ! -name 'user-*.so')
    if [ "$n" -eq 1 ] && [ -z "$left" ]; then
      pass "$how: one compiled object in the cache directory, nothing else left there"
    else
      fail "$how: $n objects in '$dir', left over: $left"
    fi
  done
done
untouched "$run" "run directory"

bad="$work/src $evil"
mkdir -p "$bad"
cp "$run/sphere.cu" "$bad/"
user_cfg "$bad/u.toml" sphere.cu my_sphere 6 32 60
snapshot "$bad"
expect_rc 2 "objective.source with a double quote in its path" \
  env IPSO_CACHE_DIR="$work/cache-source" bash -c 'cd "$1" && "$2" u.toml' - "$bad" "$IPSO_BIN"
echo "$out" | grep -q "a path with a double quote or a line break cannot be named in an #include" &&
  pass "double quote in the source's path: the message says why" ||
  fail "double quote in the source's path: message: $out"
[ -z "$(pwned)" ] && pass "double quote in the source's path: no command in the name ran" ||
  fail "double quote in the source's path: a command ran: $(pwned)"
untouched "$bad" "source directory with a double quote"
finish
