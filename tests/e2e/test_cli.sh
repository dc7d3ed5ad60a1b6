#!/bin/bash
# Bad command lines print the usage and exit 2; --help and --version exit 0.
. "$IPSO_TEST_DIR/lib/common.sh"
ipso_config ok.toml sphere 2 8 5
usage() { # usage DESCRIPTION ARGS...
  local what=$1; shift
  expect_rc 2 "$what" "$IPSO_BIN" "$@"
  echo "$out" | grep -q "usage: islandpso CONFIG" || fail "$what: no usage printed"
}
usage "no arguments"
usage "unknown option" ok.toml --frobnicate
usage "two config files" ok.toml ok.toml
usage "bad --backend" ok.toml --backend tpu
usage "--set without a value" ok.toml --set
usage "--restart with --resume" ok.toml --restart x.h5 --resume
expect_rc 2 "missing config file" "$IPSO_BIN" does-not-exist.toml
echo "$out" | grep -q "cannot read config 'does-not-exist.toml'" || fail "missing config: message"
expect_rc 0 "--help" "$IPSO_BIN" --help
expect_rc 0 "--version" "$IPSO_BIN" --version
echo "$out" | grep -q "^islandpso [0-9]" || fail "--version: no version line"
expect_rc 0 "--dry-run" "$IPSO_BIN" ok.toml --dry-run
echo "$out" | grep -q "config OK" || fail "--dry-run: no confirmation"
[ -z "$(ls | grep -v '\.toml$')" ] || fail "--dry-run wrote files: $(ls)"
finish
