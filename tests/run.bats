#!/usr/bin/env bats
# ir-run --interp: inputs and outputs, errors naming parameters, and whole
# models from the graph level through planning, lowering and planning
# again, checked against NumPy (tests/ir-run/oracle.py).

setup() {
	load test_helper
	PY=/usr/bin/python3
	M="$BATS_TEST_DIRNAME/ir-run"
}

need_numpy() {
	"$PY" -c 'import numpy' 2>/dev/null || skip "python3-numpy is not installed"
}

# model NAME [-o OUT]: inputs, then the full pipeline, then the oracle.
model() {
	need_numpy
	local name=$1 out=$BATS_TEST_TMPDIR/out$2
	args=$("$PY" "$M/oracle.py" inputs "$name" "$BATS_TEST_TMPDIR")
	ir-parse "$M/$name.ir" | ir-plan-devices | ir-lower | ir-plan-devices \
		| ir-run --interp $args -o "$out"
	run -0 "$PY" "$M/oracle.py" check "$name" "$BATS_TEST_TMPDIR" "$out"
	# the graph level, interpreted directly, gives the same
	ir-run --interp $args -o "$out.direct$2" "$M/$name.ir"
	run -0 "$PY" "$M/oracle.py" check "$name" "$BATS_TEST_TMPDIR" "$out.direct$2"
}

@test "run: a small CNN, lowered, matches NumPy" { model small_cnn .npy; }
@test "run: a packed residual block on a texture GPU matches NumPy" { model residual_texture .npy; }
@test "run: pooling (max, average, global) matches NumPy" { model pooling; }
@test "run: tuples, split and concatenate match NumPy" { model tuples; }

@test "run: --no-fuse lowering gives the same result" {
	need_numpy
	args=$("$PY" "$M/oracle.py" inputs small_cnn "$BATS_TEST_TMPDIR")
	ir-lower --no-fuse "$M/small_cnn.ir" | ir-run --interp $args -o "$BATS_TEST_TMPDIR/o.npy"
	run -0 "$PY" "$M/oracle.py" check small_cnn "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/o.npy"
}

@test "run: without -o the result is printed as text" {
	printf 'fn @main() -> f32[2] {\n  %%0 = const f32[2] [1.5, 2]\n  %%1 = add(%%0, 0.1)\n  return %%1\n}\n' > "$BATS_TEST_TMPDIR/c.ir"
	run -0 ir-run --interp "$BATS_TEST_TMPDIR/c.ir"
	assert_output 'f32[2] [1.6, 2.1]'
}

@test "run: a tuple is printed one element per line" {
	printf 'fn @main() -> (i32[], bool[2]) {\n  %%0 = const i32[] -3\n  %%1 = const bool[2] [true, false]\n  %%t = (%%0, %%1)\n  return %%t\n}\n' > "$BATS_TEST_TMPDIR/t.ir"
	run -0 ir-run --interp "$BATS_TEST_TMPDIR/t.ir"
	assert_line -n 0 '0: i32[] [-3]'
	assert_line -n 1 '1: bool[2] [true, false]'
}

@test "run: a missing input names the parameter; nothing is written" {
	run -1 --separate-stderr ir-run --interp -o "$BATS_TEST_TMPDIR/o.npy" "$M/small_cnn.ir"
	[ -z "$output" ]
	[[ "$stderr" == *"small_cnn.ir:3:10: error: no input for parameter '%x': give --input x=FILE.npy"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/o.npy" ]
}

@test "run: an unknown input name is an error" {
	need_numpy
	args=$("$PY" "$M/oracle.py" inputs tuples "$BATS_TEST_TMPDIR")
	run -1 --separate-stderr ir-run --interp $args --input z=x.npy "$M/tuples.ir"
	[[ "$stderr" == *"error: --input z: @main has no parameter '%z'"* ]]
}

@test "run: a shape or dtype that does not match names the parameter" {
	need_numpy
	"$PY" -c "import numpy as np; np.save('$BATS_TEST_TMPDIR/x.npy', np.zeros((2,6), np.float64)); np.save('$BATS_TEST_TMPDIR/y.npy', np.zeros((3,2), np.float32))"
	run -1 --separate-stderr ir-run --interp --input x="$BATS_TEST_TMPDIR/x.npy" --input y="$BATS_TEST_TMPDIR/y.npy" "$M/tuples.ir"
	[[ "$stderr" == *"error: parameter '%x' is f32[2,6], but '$BATS_TEST_TMPDIR/x.npy' holds f64[2,6]"* ]]
	[[ "$stderr" == *"error: parameter '%y' is f32[2,3], but '$BATS_TEST_TMPDIR/y.npy' holds f32[3,2]"* ]]
}

@test "run: constants load from --data-dir, else beside the input file" {
	need_numpy
	mkdir -p "$BATS_TEST_TMPDIR/m" "$BATS_TEST_TMPDIR/d"
	"$PY" -c "import numpy as np; np.save('$BATS_TEST_TMPDIR/m/w.npy', np.array([1,2], np.float32)); np.save('$BATS_TEST_TMPDIR/d/w.npy', np.array([5,6], np.float32))"
	printf 'fn @main() -> f32[2] {\n  %%w = const f32[2] file="w.npy"\n  return %%w\n}\n' > "$BATS_TEST_TMPDIR/m/c.ir"
	run -0 ir-run --interp "$BATS_TEST_TMPDIR/m/c.ir"
	assert_output 'f32[2] [1.0, 2.0]'
	run -0 ir-run --interp --data-dir "$BATS_TEST_TMPDIR/d" "$BATS_TEST_TMPDIR/m/c.ir"
	assert_output 'f32[2] [5.0, 6.0]'
	run -1 --separate-stderr ir-run --interp --data-dir "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/m/c.ir"
	[[ "$stderr" == *"error: cannot load the constant '%w': $BATS_TEST_TMPDIR/w.npy"* ]]
}

@test "run: a tuple result needs a folder for -o" {
	need_numpy
	args=$("$PY" "$M/oracle.py" inputs tuples "$BATS_TEST_TMPDIR")
	touch "$BATS_TEST_TMPDIR/file"
	run -1 --separate-stderr ir-run --interp $args -o "$BATS_TEST_TMPDIR/file" "$M/tuples.ir"
	[[ "$stderr" == *"returns a tuple, written one file per element to a directory"* ]]
}

@test "run: without --interp it says OpenCL execution is not built yet" {
	run -2 --separate-stderr ir-run "$M/tuples.ir"
	[[ "$stderr" == *"use --interp"* ]]
}

@test "run: an integer division by zero in a lowered kernel is an error, not a crash" {
	printf 'device @cpu = cpu(0)\nfn @main() -> i32[2] {\n  %%a = const i32[2] [4, 5]\n  %%b = const i32[2] [2, 0]\n  %%0 = divide(%%a, %%b)\n  return %%0\n}\n' > "$BATS_TEST_TMPDIR/z.ir"
	run -1 --separate-stderr ir-run --interp "$BATS_TEST_TMPDIR/z.ir"
	[[ "$stderr" == *"integer division by zero"* ]]
	ir-lower "$BATS_TEST_TMPDIR/z.ir" > "$BATS_TEST_TMPDIR/zl.ir"
	run -1 --separate-stderr ir-run --interp "$BATS_TEST_TMPDIR/zl.ir"
	[[ "$stderr" == *"in @divide: integer division by zero"* ]]
}


@test "run: integer 0 to a negative power fails lowered as it does directly" {
	printf 'device @cpu = cpu(0)\nfn @main() -> i32[3] {\n  %%a = const i32[3] [2, -1, 0]\n  %%b = const i32[3] [-1, -3, -1]\n  %%0 = power(%%a, %%b)\n  return %%0\n}\n' > "$BATS_TEST_TMPDIR/p.ir"
	run -1 --separate-stderr ir-run --interp "$BATS_TEST_TMPDIR/p.ir"
	[[ "$stderr" == *"integer 0 raised to a negative power"* ]]
	ir-lower "$BATS_TEST_TMPDIR/p.ir" > "$BATS_TEST_TMPDIR/pl.ir"
	run -1 --separate-stderr ir-run --interp "$BATS_TEST_TMPDIR/pl.ir"
	[[ "$stderr" == *"in @power: integer division by zero"* ]]
	# without the 0: 2^-1 is 0, (-1)^-3 is -1, 1^-1 is 1
	sed 's/\[2, -1, 0\]/[2, -1, 1]/' "$BATS_TEST_TMPDIR/pl.ir" > "$BATS_TEST_TMPDIR/pl1.ir"
	run -0 ir-run --interp "$BATS_TEST_TMPDIR/pl1.ir"
	assert_output 'i32[3] [0, -1, 1]'
}
