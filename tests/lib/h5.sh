# shellcheck shell=bash
# Reading run results from HDF5 in the shell tests (tests/lib/h5get.py, the
# Python with h5py). Sourced by lib/common.sh.

# h5get FILE PATH...: the values at PATH (a dataset, or OBJECT@ATTRIBUTE),
# one line each, floats exactly (repr); exit 1 with a message when FILE or a
# PATH is missing.
h5get() { "$IPSO_PYTHON" "$IPSO_TEST_DIR/lib/h5get.py" "$@"; }

# h5_result FILE: a run's /result as one line per value (best fitness,
# position, island, particle, iteration, evaluations): the same text for two
# files is the same result, bit for bit. Empty (and exit 1) when there is none.
h5_result() {
  h5get "$1" /result/best_fitness /result/best_position /result/island /result/particle \
    /result/iteration /result/evaluations
}

# same_result A.h5 B.h5 WHAT: A and B hold the same /result (not empty).
same_result() {
  local a b
  a=$(h5_result "$1" 2>&1) || { fail "$3: no /result in $1: $a"; return; }
  b=$(h5_result "$2" 2>&1) || { fail "$3: no /result in $2: $b"; return; }
  if [ "$a" = "$b" ]; then
    pass "$3: same /result (best fitness $(head -n 1 <<<"$a"))"
  else
    fail "$3: /result differs"
    diff <(echo "$a") <(echo "$b") | head -n 8
  fi
}

# h5_best FILE: the best fitness in FILE's /result.
h5_best() { h5get "$1" /result/best_fitness; }
