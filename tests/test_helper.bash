# Loaded by every .bats file: bats libraries and the tools on PATH.
bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

IRPIPE_BIN=${IRPIPE_BIN:-$BATS_TEST_DIRNAME/../build/bin}
IRPIPE_BIN=$(cd "$IRPIPE_BIN" && pwd)
PATH="$IRPIPE_BIN:$PATH"
export LC_ALL=C NO_COLOR=1
