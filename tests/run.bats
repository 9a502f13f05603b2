#!/usr/bin/env bats
# ir-run --interp: inputs and outputs, errors naming parameters, and whole
# models from the graph level through planning, lowering and planning
# again, checked against NumPy (tests/ir-run/oracle.py).

setup() {
	load test_helper
	M="$BATS_TEST_DIRNAME/ir-run"
}

need_numpy() {
	have_python numpy || skip "python3-numpy is not installed"
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

@test "run: a result's floats are spelled as the printer spells them, shortest in their type" {
	# issue 24: ir-run printed 10.0 as 1e+01 and 1500.0 as 1.5e+03
	printf '%s\n' 'fn @main() -> (f32[7], f16[3], f64[2]) {' \
		'  %a = const f32[7] [10.0, 1500.0, 0.1, 16777216.0, 0.000015, 1e20, -2.5e-7]' \
		'  %b = const f16[3] [10.0, 0.1, 65504.0]' '  %c = const f64[2] [10.0, 1e-300]' \
		'  %t = (%a, %b, %c)' '  return %t' '}' > "$BATS_TEST_TMPDIR/f.ir"
	run -0 ir-run --interp "$BATS_TEST_TMPDIR/f.ir"
	assert_line -n 0 '0: f32[7] [10.0, 1500.0, 0.1, 16777216.0, 0.000015, 1e+20, -2.5e-07]'
	assert_line -n 1 '1: f16[3] [10.0, 0.1, 65504.0]'
	assert_line -n 2 '2: f64[2] [10.0, 1e-300]'
	# the printer's spelling of the same constants
	run -0 ir-parse "$BATS_TEST_TMPDIR/f.ir"
	assert_line '  %a: f32[7] = const f32[7] [10.0, 1500.0, 0.1, 16777216.0, 0.000015, 1e+20, -2.5e-07]'
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

@test "run: without --interp an unlowered module is a located error saying what to run" {
	run -1 --separate-stderr ir-run "$M/tuples.ir"
	[[ "$stderr" == *"tuples.ir:"*": error: operator '"*"' is not lowered: run ir-lower, ir-flatten-texture and ir-codegen-ocl first (or use --interp)"* ]]
	[ -z "$output" ]
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

@test "run: u64 literals above INT64_MAX keep their value directly, lowered and folded" {
	# u64_literals.out: worked out by hand (u64 wraps modulo 2^64; f32
	# rounds 2^64-1 to 2^64)
	local f=$BATS_TEST_DIRNAME/ir-run-ocl/u64_literals.ir d=$BATS_TEST_TMPDIR
	cp "${f%.ir}.out" "$d/want"
	run -0 ir-run --interp "$f"
	assert_output "$(cat "$d/want")"
	# lowering writes the literals into prims (and clip's a_max of 1e19)
	ir-plan-devices "$f" | ir-lower > "$d/l.ir"
	grep -q '%p0\[%i0\] > 9223372036854775808' "$d/l.ir"
	run -0 ir-run --interp "$d/l.ir"
	assert_output "$(cat "$d/want")"
	ir-fold-constants "$f" > "$d/f.ir"
	run -0 ir-run --interp "$d/f.ir"
	assert_output "$(cat "$d/want")"
}

# --- the runner's contracts (issue 10, items 7-11) ---------------------------------

# npy FILE DESCR SHAPE DATABYTES: a .npy file by hand (no NumPy needed),
# its data zero bytes.
npy() {
	local d="{'descr': '$2', 'fortran_order': False, 'shape': $3, }"
	local n=${#d}
	{
		printf '\x93NUMPY\x01\x00'
		printf "\\x$(printf %02x $((n & 255)))\\x$(printf %02x $((n >> 8)))"
		printf '%s' "$d"
		head -c "$4" /dev/zero
	} > "$1"
}

@test "run: a write error on stdout exits 1 as every tool does" {
	cd "$BATS_TEST_TMPDIR"
	printf 'fn @main(%%x: f32[200000]) -> f32[200000] {\n  return %%x\n}\n' > big.ir
	npy x.npy '<f4' '(200000,)' 800000
	printf 'fn @main() -> f32[2] {\n  %%0 = const f32[2] [1, 2]\n  return %%0\n}\n' > c.ir
	if [ -w /dev/full ]; then
		run -1 --separate-stderr bash -c 'ir-run --interp c.ir > /dev/full'
		assert_equal "$stderr" 'ir-run: write error: No space left on device'
	fi
	run -1 --separate-stderr bash -c 'ir-run --interp c.ir >&-'
	assert_equal "$stderr" 'ir-run: write error: Bad file descriptor'
	# 1.6 MB of text into a pipe whose reader leaves after one byte
	run -1 --separate-stderr bash -c 'trap "" PIPE; ir-run --interp --input x=x.npy big.ir | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}'
	assert_equal "$stderr" 'ir-run: write error: Broken pipe'
}

@test "run: -o writes through a symlink, a FIFO and a device instead of replacing them" {
	cd "$BATS_TEST_TMPDIR"
	printf 'fn @main() -> f32[2] {\n  %%0 = const f32[2] [1, 2]\n  return %%0\n}\n' > c.ir
	ir-run --interp -o want.npy c.ir
	echo old > target.npy
	ln -s target.npy link.npy
	run -0 ir-run --interp -o link.npy c.ir
	assert [ -L link.npy ]
	cmp want.npy target.npy
	mkfifo fifo.npy
	timeout 10 cat fifo.npy > got.npy &
	run -0 timeout 10 ir-run --interp -o fifo.npy c.ir
	wait
	assert [ -p fifo.npy ]
	cmp want.npy got.npy
	# root could replace /dev/null itself: a null device of our own then
	dev=/dev/null
	if [ "$(id -u)" -eq 0 ]; then
		mknod null c 1 3
		dev=$PWD/null
	fi
	run -0 ir-run --interp -o "$dev" c.ir
	assert [ -c "$dev" ]
	# a tuple's element files likewise
	printf 'fn @main() -> (f32[2], f32[2]) {\n  %%0 = const f32[2] [1, 2]\n  %%t = (%%0, %%0)\n  return %%t\n}\n' > t.ir
	mkdir d
	echo old > target1.npy
	ln -s ../target1.npy d/1.npy
	run -0 ir-run --interp -o d t.ir
	assert [ -L d/1.npy ]
	cmp want.npy target1.npy
	cmp want.npy d/0.npy
}

@test "run: a tuple result is written all or nothing" {
	cd "$BATS_TEST_TMPDIR"
	printf 'fn @main() -> (f32[2], (f32[2], f32[2])) {\n  %%0 = const f32[2] [1, 2]\n  %%u = (%%0, %%0)\n  %%t = (%%0, %%u)\n  return %%t\n}\n' > t.ir
	mkdir d
	echo old0 > d/0.npy
	echo old10 > d/1.0.npy
	mkdir d/1.1.npy    # the last element cannot be written
	run -1 --separate-stderr ir-run --interp -o d t.ir
	[[ "$stderr" == "ir-run: cannot open 'd/1.1.npy': Is a directory" ]]
	assert_equal "$(cat d/0.npy)" old0
	assert_equal "$(cat d/1.0.npy)" old10
	assert_equal "$(ls -A d)" "$(printf '0.npy\n1.0.npy\n1.1.npy')"
	rmdir d/1.1.npy
	run -0 ir-run --interp -o d t.ir
	assert_equal "$(ls -A d)" "$(printf '0.npy\n1.0.npy\n1.1.npy')"
}

@test "run: a tensor too large for memory is refused, located and named, before it is allocated" {
	cd "$BATS_TEST_TMPDIR"
	# a broadcast of f32[2^20,1] and f32[1,2^20]
	npy a.npy '<f4' '(1048576, 1)' 4194304
	npy b.npy '<f4' '(1, 1048576)' 4194304
	printf 'fn @main(%%a: f32[1048576,1], %%b: f32[1,1048576]) -> f32[1048576,1048576] {\n  %%0 = add(%%a, %%b)\n  return %%0\n}\n' > bc.ir
	run -1 --separate-stderr ir-run --interp --input a=a.npy --input b=b.npy bc.ir
	[[ "$stderr" == "bc.ir:2:3: error: the result '%0' is f32[1048576,1048576], 4398046511104 bytes: more than the "*" bytes left of the "*" that --max-memory allows"* ]]
	# conv2d with padding 2^20
	printf 'fn @main() -> f32[1,1,2097153,2097153] {\n  %%x = const f32[1,1,1,1] [1]\n  %%0 = nn.conv2d(%%x, %%x) {padding=[1048576]}\n  return %%0\n}\n' > cv.ir
	run -1 --separate-stderr ir-run --interp cv.ir
	[[ "$stderr" == "cv.ir:3:3: error: the result '%0' is f32[1,1,2097153,2097153], 17592202821636 bytes: more than"* ]]
	# a call_lowered result, and an alloc, of f32[2^40]
	cat > res.ir <<'IR'
device @cpu = cpu(0)

prim @k(%out: f32[1099511627776] @cpu:global) {
  kernel @k0 {
    for %i0 in 0..4 parallel {
      %out[%i0] = 1.0
    }
  }
}

fn @main() -> f32[1099511627776] {
  %0: f32[1099511627776] = call_lowered @k()
  return %0
}
IR
	run -1 --separate-stderr ir-run --interp res.ir
	[[ "$stderr" == "res.ir:12:3: error: the result '%0' is f32[1099511627776], 4398046511104 bytes: more than"* ]]
	cat > alloc.ir <<'IR'
device @cpu = cpu(0)

prim @k(%out: f32[4] @cpu:global) {
  kernel @k0 {
    alloc %t: f32[1099511627776] @cpu:global
    for %i0 in 0..4 parallel {
      %out[%i0] = 1.0
    }
  }
}

fn @main() -> f32[4] {
  %0: f32[4] = call_lowered @k()
  return %0
}
IR
	run -1 --separate-stderr ir-run --interp alloc.ir
	[[ "$stderr" == "alloc.ir:5:5: error: in @k: cannot allocate '%t', f32[1099511627776], 4398046511104 bytes: more than"* ]]
	[[ "$stderr" == *"alloc.ir:13:3: note: in the call of @k here"* ]]
}

@test "run: a .npy file is checked against its length and its parameter before its data is read" {
	cd "$BATS_TEST_TMPDIR"
	printf 'fn @main(%%x: f32[4]) -> f32[4] {\n  return %%x\n}\n' > p.ir
	npy big.npy '<f4' '(1099511627776,)' 16
	run -1 --separate-stderr ir-run --interp --input x=big.npy p.ir
	[[ "$stderr" == "p.ir:1:10: error: cannot read the input for '%x': big.npy: truncated: shape (1099511627776,) of '<f4' needs 4398046511104 bytes of data, the file has 16"* ]]
	# the same as a constant file
	printf 'fn @main() -> f32[1099511627776] {\n  %%w = const f32[1099511627776] file="big.npy"\n  return %%w\n}\n' > c.ir
	run -1 --separate-stderr ir-run --interp c.ir
	[[ "$stderr" == "c.ir:2:3: error: cannot load the constant '%w': big.npy: truncated: shape (1099511627776,) of '<f4' needs 4398046511104 bytes of data, the file has 16"* ]]
	# a shape that differs is told before the data is read
	npy x8.npy '<f4' '(8,)' 32
	run -1 --separate-stderr ir-run --interp --input x=x8.npy p.ir
	[[ "$stderr" == "p.ir:1:10: error: parameter '%x' is f32[4], but 'x8.npy' holds f32[8]"* ]]
}

@test "run: --max-memory limits the tensors a run holds" {
	cd "$BATS_TEST_TMPDIR"
	printf 'fn @main() -> f32[2] {\n  %%0 = const f32[2] [1, 2]\n  %%1 = add(%%0, %%0)\n  return %%1\n}\n' > c.ir
	run -0 ir-run --interp --max-memory=20 c.ir
	assert_output 'f32[2] [2.0, 4.0]'
	# 8 bytes for %0, 4 for the literal... the result does not fit
	run -1 --separate-stderr ir-run --interp --max-memory=12 c.ir
	[[ "$stderr" == "c.ir:3:3: error: the result '%1' is f32[2], 8 bytes: more than the 4 bytes left of the 12 that --max-memory allows"* ]]
	run -0 ir-run --interp --max-memory=1K c.ir
	for bad in 0 -1 1X 1KB '' 99999999999999999999 16777216T; do
		run -2 --separate-stderr ir-run --interp --max-memory="$bad" c.ir
		[[ "$stderr" == "ir-run: --max-memory takes a number of bytes above 0"*"not '$bad'"* ]]
	done
}

@test "run: result buffers start poisoned, so an element a kernel forgets shows" {
	cat > "$BATS_TEST_TMPDIR/forget.ir" <<'IR'
device @cpu = cpu(0)

prim @k(%out: f32[4] @cpu:global, %iout: i32[4] @cpu:global) {
  kernel @k0 {
    for %i0 in 0..3 parallel {
      %out[%i0] = 1.0
      %iout[%i0] = 7
    }
  }
}

fn @main() -> (f32[4], i32[4]) {
  %0: (f32[4], i32[4]) = call_lowered @k()
  return %0
}
IR
	run -0 ir-run --interp "$BATS_TEST_TMPDIR/forget.ir"
	assert_line -n 0 '0: f32[4] [1.0, 1.0, 1.0, nan]'
	assert_line -n 1 '1: i32[4] [7, 7, 7, 1515870810]'
}

@test "run: the interpreter adds atomically, starts a zeroed buffer at zeros and says where a call leaves it otherwise (issue 23)" {
	# each work group adds 1 to the counter; the one that sees 3 (the
	# last) sets it back to zero
	cat > "$BATS_TEST_TMPDIR/count.ir" <<'IR'
device @gpu = gpu(0)

prim @count(%out: i32[4] @gpu) {
  alloc %c: i32[1] @gpu:global {zeroed=true}
  kernel @k {
    for %bx in 0..4 bind(blockIdx.x) {
      for %tx in 0..1 bind(threadIdx.x) {
        mem_fence()
        let %seen: i32 = atomic_add(%c[0], %bx + 1)
        %out[%bx] = %seen
        if %seen == 6 {
          %c[0] = 0
        }
      }
    }
  }
}

fn @main() -> i32[4] {
  %y = call_lowered @count()
  return %y
}
IR
	run -0 ir-run --interp "$BATS_TEST_TMPDIR/count.ir"
	assert_output 'i32[4] [0, 1, 3, 6]'
	sed 's/%seen == 6/%seen == 5/' "$BATS_TEST_TMPDIR/count.ir" > "$BATS_TEST_TMPDIR/left.ir"
	run -1 --separate-stderr ir-run --interp "$BATS_TEST_TMPDIR/left.ir"
	assert_equal "$output" ""
	assert_equal "${stderr_lines[0]}" "$BATS_TEST_TMPDIR/left.ir:4:3: error: in @count: '%c' is zeroed, but its element 0 is not zero when the call ends: a zeroed buffer must be left all zeros"
}

@test "run: option abbreviations are getopt's, --interp checked once all are read" {
	printf 'fn @main() -> f32[2] {\n  %%0 = const f32[2] [1, 2]\n  return %%0\n}\n' > "$BATS_TEST_TMPDIR/c.ir"
	run -0 ir-run --inter "$BATS_TEST_TMPDIR/c.ir"
	assert_output 'f32[2] [1.0, 2.0]'
	run -2 --separate-stderr ir-run --in "$BATS_TEST_TMPDIR/c.ir"
	assert_equal "$stderr" "$(printf "ir-run: option '--in' is ambiguous\nTry 'ir-run --help'.")"
	run -2 --separate-stderr ir-run --che --interp "$BATS_TEST_TMPDIR/c.ir"
	assert_equal "$stderr" "$(printf "ir-run: --check runs on OpenCL devices; leave out --interp\nTry 'ir-run --help'.")"
	run -0 ir-run --help
	assert_line --partial '--max-memory=BYTES'
}

# parts D: D/a.ir (a tensor), D/b.ir (a tuple) and D/x.npy, their input
parts() {
	need_numpy
	"$PY" -c "import numpy as np; np.save('$1/x.npy', np.array([1.5, -2], np.float32))"
	printf '%s\n' 'fn @main(%x: f32[2]) -> f32[2] {' '  %y = add(%x, 1.0)' '  return %y' '}' > "$1/a.ir"
	printf '%s\n' 'fn @main(%x: f32[2]) -> (f32[2], f32[2]) {' '  %y = multiply(%x, 2.0)' \
		'  %t = (%x, %y)' '  return %t' '}' > "$1/b.ir"
}

@test "run: --split-input-file runs every part on the same inputs, each result in -o's folder (N.npy, N/ for a tuple) or printed, the parts joined" {
	local d=$BATS_TEST_TMPDIR
	parts "$d"
	join_parts "$d/a.ir" "$d/b.ir" "$d/a.ir" > "$d/all.ir"
	ir-run --interp --input x="$d/x.npy" -o "$d/a.npy" "$d/a.ir"
	ir-run --interp --input x="$d/x.npy" -o "$d/b" "$d/b.ir"
	run -0 ir-run --interp --split-input-file --input x="$d/x.npy" -o "$d/out" "$d/all.ir"
	assert_output ''
	cmp "$d/out/0.npy" "$d/a.npy"
	cmp "$d/out/1/0.npy" "$d/b/0.npy"
	cmp "$d/out/1/1.npy" "$d/b/1.npy"
	cmp "$d/out/2.npy" "$d/a.npy"
	[ "$(ls "$d/out" | tr '\n' ' ')" = "0.npy 1 2.npy " ]
	# printed: each part's text as a run of it alone prints it
	{ ir-run --interp --input x="$d/x.npy" "$d/a.ir"; echo '// -----'
	  ir-run --interp --input x="$d/x.npy" "$d/b.ir"; echo '// -----'
	  ir-run --interp --input x="$d/x.npy" "$d/a.ir"; } > "$d/want"
	run -0 ir-run --interp --split-input-file --input x="$d/x.npy" "$d/all.ir"
	assert_output "$(cat "$d/want")"
	assert_line -n 0 'f32[2] [2.5, -1.0]'
}

@test "run: --split-input-file runs the parts after a failing one, names it by its line and exits 1, printing nothing" {
	local d=$BATS_TEST_TMPDIR
	parts "$d"
	printf '%s\n' 'fn @main(%x: f32[2]) -> f32[2] {' '  %y = add(%x, %z)' '  return %y' '}' > "$d/bad.ir"
	join_parts "$d/a.ir" "$d/bad.ir" "$d/b.ir" > "$d/all.ir"
	run -1 --separate-stderr ir-run --interp --split-input-file --input x="$d/x.npy" -o "$d/out" "$d/all.ir"
	assert_output ''
	[ "$(ls "$d/out" | tr '\n' ' ')" = "0.npy 2 " ]
	# the error at its line in the whole input, then the part named
	[[ "$stderr" == "$d/all.ir:7:16: error: use of undefined value '%z'"* ]]
	[[ "$stderr" == *$'\n'"ir-run: $d/all.ir:6: part 2 of 3, from this line, failed" ]]
	run -1 --separate-stderr ir-run --interp --split-input-file --input x="$d/x.npy" "$d/all.ir"
	assert_output ''
	[[ "$stderr" == *"ir-run: $d/all.ir:6: part 2 of 3, from this line, failed" ]]
	# -o names a folder for the parts
	run -1 --separate-stderr ir-run --interp --split-input-file --input x="$d/x.npy" -o "$d/x.npy" "$d/a.ir"
	assert_output ''
	[[ "$stderr" == *"-o names a directory for the parts' results; '$d/x.npy' is not one"* ]]
}
