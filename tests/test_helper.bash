# Loaded by every .bats file: bats libraries and the tools on PATH.
bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

IRPIPE_BIN=${IRPIPE_BIN:-$BATS_TEST_DIRNAME/../build/bin}
IRPIPE_BIN=$(cd "$IRPIPE_BIN" && pwd)
PATH="$IRPIPE_BIN:$PATH"
export LC_ALL=C NO_COLOR=1

# expect_diagnostics TOOL FILE: TOOL --split-input-file --verify-diagnostics
# accepts tests/TOOL/FILE: every part produced exactly the diagnostics its
# expected-* comments name (line, column, message), and every part was
# rejected, so stdout holds nothing but the '// -----' separators.
expect_diagnostics() {
	run -0 --separate-stderr "$1" --split-input-file --verify-diagnostics \
		"$BATS_TEST_DIRNAME/$1/$2"
	assert_equal "$stderr" ''
	local printed
	printed=$(printf '%s\n' "$output" | grep -v -x -e '// -----' -e '' || true)
	assert_equal "$printed" ''
}
