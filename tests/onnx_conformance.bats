#!/usr/bin/env bats
# ONNX's own backend tests (Debian's libonnx-testdata) as the conformance
# bar of ir-import-onnx, the interpreter and ir-lower: every case of the
# four folders (tests/onnx/conformance.py) imported, run on the
# interpreter as imported and lowered, each passed, unsupported, or a
# failure listed with its reason in tests/onnx/known-failures.txt.  A new
# failure, a listed case that no longer fails, or fewer passed cases than
# the file's floors fail the test.  `make conformance` adds OpenCL (POCL).

setup() {
	load test_helper
	have_python numpy onnx || skip "python3-onnx is not installed"
	[ -d /usr/share/libonnx-testdata/data/node ] || skip "libonnx-testdata is not installed"
}

@test "onnx conformance: every backend test case equals its expected outputs, imported and lowered, or is listed" {
	run "$PY" "$BATS_TEST_DIRNAME/onnx/conformance.py" --bin "$IRPIPE_BIN" --mode interp \
		--mode lowered --jobs 2 --known "$BATS_TEST_DIRNAME/onnx/known-failures.txt"
	printf '# %s\n' "${lines[@]: -4}" >&3
	[ "$status" -eq 0 ] || { printf '%s\n' "$output"; return 1; }
}

@test "onnx conformance: the runner tells a listed failure that passes now from one that still fails" {
	# a case that passes, listed as failing: a mismatch
	printf 'simple/test_single_relu_model: listed on purpose\n' > "$BATS_TEST_TMPDIR/k.txt"
	run -1 "$PY" "$BATS_TEST_DIRNAME/onnx/conformance.py" --bin "$IRPIPE_BIN" \
		--only '^simple/test_single_relu_model$' --known "$BATS_TEST_TMPDIR/k.txt"
	assert_line "MISMATCH listed in $BATS_TEST_TMPDIR/k.txt but passed now: simple/test_single_relu_model (take it off the list)"
	assert_line 'simple: 1 passed, 0 failed, 0 unsupported'
	# a wrong expected output is a new failure
	mkdir -p "$BATS_TEST_TMPDIR/data/simple"
	cp -r /usr/share/libonnx-testdata/data/simple/test_single_relu_model "$BATS_TEST_TMPDIR/data/simple/"
	chmod -R u+w "$BATS_TEST_TMPDIR/data"
	"$PY" - "$BATS_TEST_TMPDIR/data/simple/test_single_relu_model/test_data_set_0/output_0.pb" <<'PY'
import sys
import onnx
from onnx import numpy_helper
t = onnx.TensorProto()
t.ParseFromString(open(sys.argv[1], "rb").read())
open(sys.argv[1], "wb").write(numpy_helper.from_array(numpy_helper.to_array(t) * 2).SerializeToString())
PY
	run -1 "$PY" "$BATS_TEST_DIRNAME/onnx/conformance.py" --bin "$IRPIPE_BIN" \
		--data "$BATS_TEST_TMPDIR/data" simple
	assert_line --partial 'MISMATCH new failure: simple/test_single_relu_model: interp: output 0:'
	assert_line 'simple: 0 passed, 1 failed, 0 unsupported'
	# the same with both modes in one start of ir-run a data set
	run -1 "$PY" "$BATS_TEST_DIRNAME/onnx/conformance.py" --bin "$IRPIPE_BIN" \
		--mode interp --mode lowered --data "$BATS_TEST_TMPDIR/data" simple
	assert_line --partial 'MISMATCH new failure: simple/test_single_relu_model: interp: output 0:'
	assert_line 'simple: 0 passed, 1 failed, 0 unsupported'
}
