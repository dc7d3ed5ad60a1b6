# Shared by the fault tests: configs for a user objective on the CPU
# backend, the sha256 of every file of a run directory before a run,
# checked after it, and a refusal checked with both. Source it after
# tests/lib/common.sh.

# user_cfg FILE SOURCE FUNCTION DIMS PARTICLES ITERATIONS [extra lines]: a
# CPU config for SOURCE's FUNCTION within [-10, 10]; no output files unless
# the extra lines ask for them.
user_cfg() {
  local file=$1 src=$2 fn=$3 dims=$4 parts=$5 its=$6; shift 6
  {
    printf '[run]\nbackend = "cpu"\nmax_iterations = %s\noutput = ""\n' "$its"
    printf '[objective]\nname = "user"\nsource = "%s"\nfunction = "%s"\n' "$src" "$fn"
    printf 'dimensions = %s\nlower = -10\nupper = 10\n' "$dims"
    printf '[swarm]\nparticles = %s\n[output]\ncheckpoint = ""\nprogress = "off"\n' "$parts"
    for line in "$@"; do printf '%s\n' "$line"; done
  } >"$file"
}

# snapshot DIR: records the sha256 of every file under DIR (in $work/before.sum).
snapshot() {
  (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$work/before.sum"
}

# untouched DIR WHAT: every file recorded by snapshot is still there, byte for byte.
untouched() {
  local bad
  if bad=$(cd "$1" && sha256sum --quiet -c "$work/before.sum" 2>&1); then
    pass "$2: the $(wc -l <"$work/before.sum") files there before are untouched"
  else
    fail "$2: files changed: $bad"
  fi
}

# refused_in DIR WHAT PATTERN COMMAND...: COMMAND exits 2 with a message
# matching the extended regular expression PATTERN, and every file under
# DIR is byte for byte as it was.
refused_in() {
  local dir=$1 what=$2 pattern=$3
  shift 3
  snapshot "$dir"
  expect_rc 2 "$what" "$@"
  grep -qE -- "$pattern" <<<"$out" && pass "$what: says '$pattern'" || fail "$what: message: $out"
  untouched "$dir" "$what"
}

# need_other_user: sets $other to the name of an unprivileged second user,
# created where the test runs as root and it is missing (a system user
# without a home or a login shell, left in place for the next run); skips
# the test (77) where it is not root or no user can be made. Tests plant
# files as that user with as_other.
need_other_user() {
  local name=ipso-other
  if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: a second user is needed, and only root can make one and act as it"
    exit 77
  fi
  if ! id -u "$name" >/dev/null 2>&1 &&
    ! useradd --system --no-create-home --shell /usr/sbin/nologin "$name" >/dev/null 2>&1 &&
    ! id -u "$name" >/dev/null 2>&1; then
    echo "SKIP: cannot create the second user '$name' (useradd)"
    exit 77
  fi
  other=$name
}

# as_other USER COMMAND...: runs COMMAND as USER (no privileges, no groups).
as_other() {
  local who=$1
  shift
  setpriv --reuid="$who" --regid="$(id -g "$who")" --clear-groups --inh-caps=-all -- "$@"
}

# field NAME TEXT: the first word after "NAME" on a summary line (these
# runs write no output file to read the result from).
field() { echo "$2" | sed -n "s/^ *$1 *\([^ ]*\).*/\1/p" | head -1; }

# best TEXT: the best fitness of a run's summary.
best() { field "best fitness" "$1"; }

# within X LO HI: whether LO <= X < HI.
within() { awk -v x="$1" -v a="$2" -v b="$3" 'BEGIN { exit !(x != "" && x >= a && x < b) }'; }
