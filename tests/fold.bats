#!/usr/bin/env bats
# ir-fold-constants: goldens of folding and weight preparation, files
# and their names, --max-bytes and --inline-max, errors; every model of
# tests/ir-run and random models (tests/gen/gen.py) interpret to the same
# bits before and after folding, also with their parameters made
# constants, and lowered after folding (tests/gen/check_fold.py).
#
# UPDATE_GOLDEN=1 bats tests/fold.bats rewrites tests/ir-fold-constants/*.out.

setup() {
	load test_helper
	D="$BATS_TEST_DIRNAME/ir-fold-constants"
	T=$BATS_TEST_TMPDIR
}

need_numpy() {
	have_python numpy || skip "python3-numpy is not installed"
}

@test "golden: chains fold into the last binding; placement, if arms, refused kernels, unused values" {
	golden ir-fold-constants chain
}

@test "golden: a packed weight's layout_transform folds; conv2d reads constant weights as HWIO" {
	golden ir-fold-constants weights
}

@test "golden: a dense with a constant weight and 8 rows or more reads it packed in panels (weight_layout NC<P>n)" {
	golden ir-fold-constants dense
}

# dense DEVICE: a cpu dense of 64 rows and a constant weight 96x48 (from
# wd.npy), fused with a relu, and its input xd.npy.
dense() {
	need_numpy
	"$PY" -c "
import numpy as np
r = np.random.RandomState(3)
np.save('$T/wd.npy', r.randn(96, 48).astype(np.float32))
np.save('$T/xd.npy', r.randn(64, 48).astype(np.float32))"
	printf 'device @cpu = %s\nfn @main(%%x: f32[64,48]) -> f32[64,96] {\n  %%w = const f32[96,48] file="wd.npy"\n  %%d = nn.dense(%%x, %%w)\n  %%r = nn.relu(%%d)\n  return %%r\n}\n' "${1:-cpu(0)}" > "$T/d.ir"
}

@test "fold: after ir-fold-constants the cpu dense prim has no weight transpose kernel and runs equal on POCL; --no-weight-layouts keeps it" {
	dense
	ir-plan-devices "$T/d.ir" | ir-lower > "$T/before.ir"
	ir-fold-constants "$T/d.ir" > "$T/f.ir"
	ir-plan-devices "$T/f.ir" | ir-lower > "$T/after.ir"
	ir-fold-constants --no-weight-layouts "$T/d.ir" | ir-plan-devices | ir-lower | cmp - "$T/before.ir"
	grep -q 'alloc %wt' "$T/before.ir"
	run -1 grep -q 'alloc %wt' "$T/after.ir"
	[ "$(grep -c '^  kernel ' "$T/after.ir")" -eq "$(($(grep -c '^  kernel ' "$T/before.ir") - 1))" ]
	grep -q 'w_nc32n: f32\[3,48,32\] = const f32\[3,48,32\] file="main.w_nc32n.npy"' "$T/f.ir"
	grep -q 'weight_layout="NC32n"' "$T/f.ir"
	# folding again changes nothing
	ir-fold-constants "$T/f.ir" | cmp - "$T/f.ir"
	# the same bits on the interpreter, folded or not, lowered or not
	ir-run --interp --data-dir "$T" --input x="$T/xd.npy" -o "$T/a.npy" "$T/d.ir"
	ir-run --interp --data-dir "$T" --input x="$T/xd.npy" -o "$T/b.npy" "$T/f.ir"
	cmp "$T/a.npy" "$T/b.npy"
	ir-run --interp --data-dir "$T" --input x="$T/xd.npy" -o "$T/c.npy" "$T/after.ir"
	# and on OpenCL (POCL), the packed constant read by the generated tile
	ir-plan-devices "$T/after.ir" | ir-flatten-texture | ir-codegen-ocl > "$T/after.ocl.ir"
	ir-run --check --data-dir "$T" --input x="$T/xd.npy" -o "$T/o.npy" "$T/after.ocl.ir"
	"$PY" -c "
import numpy as np
a, c, o = np.load('$T/a.npy'), np.load('$T/c.npy'), np.load('$T/o.npy')
assert np.allclose(a, c, rtol=1e-5, atol=1e-5), abs(a - c).max()
assert np.allclose(a, o, rtol=1e-5, atol=1e-5), abs(a - o).max()"
}

@test "fold: a dense weight stays [N,K] in a module with a gpu (its tiles read it along k)" {
	dense 'gpu(0)'
	ir-fold-constants --no-weight-layouts "$T/d.ir" > "$T/keep.ir"
	ir-fold-constants "$T/d.ir" | cmp - "$T/keep.ir"
	run -1 grep -q weight_layout "$T/keep.ir"
}

# big: a module whose transposed 10x20 constant (from big.npy) is folded.
big() {
	need_numpy
	"$PY" -c "import numpy as np; np.save('$T/big.npy', np.arange(200, dtype=np.float32).reshape(10, 20) / 7)"
	printf 'fn @main(%%x: f32[20,10]) -> f32[20,10] {\n  %%c = const f32[10,20] file="big.npy"\n  %%t = transpose(%%c) {axes=[1, 0]}\n  %%n = negative(%%t)\n  %%v = multiply(%%x, %%n)\n  return %%v\n}\n' > "$T/big.ir"
}

@test "fold: a large result goes to FUNC.NAME.npy beside the input, equal to NumPy's; no file for what folded further" {
	big
	run -0 ir-fold-constants "$T/big.ir"
	assert_line -n 0 'fn @main(%x: f32[20,10]) -> f32[20,10] {'
	assert_line -n 1 '  %n: f32[20,10] = const f32[20,10] file="main.n.npy"'
	assert_line -n 2 '  %v: f32[20,10] = multiply(%x, %n)'
	[ ! -e "$T/main.t.npy" ]
	"$PY" -c "
import numpy as np
a, b = np.load('$T/main.n.npy'), -np.load('$T/big.npy').T
assert a.dtype == b.dtype and a.shape == b.shape and (a == b).all()"
	# the folded module runs to the same bits
	"$PY" -c "import numpy as np; np.save('$T/x.npy', np.linspace(-1, 1, 200, dtype=np.float32).reshape(20, 10))"
	ir-run --interp --input x="$T/x.npy" -o "$T/a.npy" "$T/big.ir"
	ir-fold-constants "$T/big.ir" > "$T/f.ir"
	ir-run --interp --input x="$T/x.npy" -o "$T/b.npy" "$T/f.ir"
	cmp "$T/a.npy" "$T/b.npy"
}

@test "fold: --data-dir is where constants are read and written; the output is the same bytes every time" {
	big
	mkdir "$T/d" "$T/e"
	mv "$T/big.npy" "$T/d/"
	run -1 ir-fold-constants "$T/big.ir"
	ir-fold-constants --data-dir "$T/d" "$T/big.ir" > "$T/1.ir"
	cp "$T/d/main.n.npy" "$T/first.npy"
	ir-fold-constants --data-dir "$T/d" < "$T/big.ir" > "$T/2.ir"
	cmp "$T/1.ir" "$T/2.ir"
	cmp "$T/first.npy" "$T/d/main.n.npy"
	# folding again changes nothing and writes nothing
	rm "$T/d/main.n.npy"
	ir-fold-constants --data-dir "$T/e" "$T/1.ir" | cmp - "$T/1.ir"
	[ -z "$(ls "$T/e")" ]
}

@test "fold: --max-bytes leaves larger values; --inline-max puts small ones in files too" {
	big
	run -0 --separate-stderr ir-fold-constants --stats --max-bytes 799 "$T/big.ir"
	assert_line -n 1 '  %c: f32[10,20] = const f32[10,20] file="big.npy"'
	assert_line -n 2 '  %t: f32[20,10] = transpose(%c) {axes=[1, 0]}'
	[[ $stderr == *"left: 1 over --max-bytes"* ]]
	run -0 ir-fold-constants --max-bytes 800 "$T/big.ir"
	assert_line -n 1 '  %n: f32[20,10] = const f32[20,10] file="main.n.npy"'
	printf 'fn @main() -> f32[2] {\n  %%a = const f32[2] [1, 2]\n  %%b = add(%%a, %%a)\n  return %%b\n}\n' > "$T/s.ir"
	run -0 ir-fold-constants --inline-max 1 "$T/s.ir"
	assert_line -n 1 '  %b: f32[2] = const f32[2] file="main.b.npy"'
	run -0 ir-run --interp --data-dir "$T" "$T/s.ir"
	assert_output 'f32[2] [2.0, 4.0]'
	ir-fold-constants --inline-max 1 "$T/s.ir" > "$T/s2.ir"
	run -0 ir-run --interp "$T/s2.ir"
	assert_output 'f32[2] [2.0, 4.0]'
}

@test "fold: after ir-fold-constants the cpu conv2d prim has no weight transpose stage; --no-weight-layouts keeps it" {
	need_numpy
	# (8 input channels: 72 taps per output, the channel tile's; a conv of
	# at most 32 reads its OIHW weight as it is, in vectors along x)
	"$PY" -c "import numpy as np; np.save('$T/w.npy', np.random.RandomState(1).randn(8, 8, 3, 3).astype(np.float32))"
	printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[1,8,8,8]) -> f32[1,8,8,8] {\n  %%w = const f32[8,8,3,3] file="w.npy"\n  %%c = nn.conv2d(%%x, %%w) {padding=[1, 1, 1, 1]}\n  %%r = nn.relu(%%c)\n  return %%r\n}\n' > "$T/c.ir"
	ir-plan-devices "$T/c.ir" | ir-lower > "$T/before.ir"
	ir-fold-constants "$T/c.ir" | ir-plan-devices | ir-lower > "$T/after.ir"
	ir-fold-constants --no-weight-layouts "$T/c.ir" | ir-plan-devices | ir-lower | cmp - "$T/before.ir"
	grep -q 'alloc %wt' "$T/before.ir"
	! grep -q 'alloc %wt' "$T/after.ir"
	[ "$(grep -c '^  kernel ' "$T/after.ir")" -eq "$(($(grep -c '^  kernel ' "$T/before.ir") - 1))" ]
	grep -q 'w_hwio: f32\[3,3,8,8\]' "$T/after.ir"
	"$PY" -c "import numpy as np; np.save('$T/x.npy', np.random.RandomState(2).randn(1, 8, 8, 8).astype(np.float32))"
	ir-run --interp --data-dir "$T" --input x="$T/x.npy" -o "$T/a.npy" "$T/before.ir"
	ir-run --interp --data-dir "$T" --input x="$T/x.npy" -o "$T/b.npy" "$T/after.ir"
	"$PY" -c "
import numpy as np
a, b = np.load('$T/a.npy'), np.load('$T/b.npy')
assert np.allclose(a, b, rtol=1e-5, atol=1e-5), abs(a - b).max()"
}

@test "fold: errors name the constant and its line; usage errors" {
	printf 'fn @main() -> f32[2] {\n  %%a = const f32[2] file="nowhere.npy"\n  %%b = negative(%%a)\n  return %%b\n}\n' > "$T/m.ir"
	run -1 --separate-stderr ir-fold-constants "$T/m.ir"
	assert_output ''
	[[ $stderr == *"m.ir:2:3: error: cannot load the constant '%a': $T/nowhere.npy: No such file or directory"* ]]
	need_numpy
	"$PY" -c "import numpy as np; np.save('$T/nowhere.npy', np.zeros(3, dtype=np.float32))"
	run -1 --separate-stderr ir-fold-constants "$T/m.ir"
	[[ $stderr == *"m.ir:2:3: error: the constant '%a' is f32[2], but '$T/nowhere.npy' holds f32[3]"* ]]
	big
	run -1 --separate-stderr ir-fold-constants --data-dir "$T/no/such/dir" "$T/big.ir"
	assert_output ''
	[[ $stderr == *"big.ir:2:3: error: cannot load the constant '%c'"* ]]
	cp "$T/big.npy" "$T/ro.npy"
	mkdir "$T/ro" && cp "$T/big.npy" "$T/ro/" && chmod a-w "$T/ro"
	if [ ! -w "$T/ro" ]; then
		run -1 --separate-stderr ir-fold-constants --data-dir "$T/ro" "$T/big.ir"
		assert_output ''
		[[ $stderr == *"big.ir:4:3: error: cannot write the folded constant '%n': $T/ro/main.n.npy"* ]]
	fi
	chmod u+w "$T/ro"
	run -2 ir-fold-constants --max-bytes 0 "$T/big.ir"
	[[ $output == *"--max-bytes takes a number of bytes above 0"* ]]
	run -2 ir-fold-constants --inline-max=-1 "$T/big.ir"
	[[ $output == *"--inline-max takes a number of elements"* ]]
}

@test "fold: every model of tests/ir-run, as written, with constant parameters and constant weights" {
	need_numpy
	for f in "$BATS_TEST_DIRNAME"/ir-run/*.ir; do
		m=$(basename "$f" .ir)
		mkdir "$T/$m"
		"$PY" "$BATS_TEST_DIRNAME/ir-run/oracle.py" inputs "$m" "$T/$m" > /dev/null
		run "$PY" "$BATS_TEST_DIRNAME/gen/check_fold.py" --model "$f" --inputs "$T/$m" --bin "$IRPIPE_BIN"
		echo "$output"
		[ "$status" -eq 0 ]
	done
}

@test "fold: random models fold, fold idempotently and interpret to the same bits" {
	need_numpy
	export TMPDIR=$T
	run "$PY" "$BATS_TEST_DIRNAME/gen/check_fold.py" --bin "$IRPIPE_BIN" \
		--seed "${IRPIPE_RANDOM_SEED:-1}" --count "${IRPIPE_RANDOM_COUNT:-150}"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "fold: a power's one-element inline constant exponent becomes a literal; lowered, 0-4, -1 and 0.5 are products, a division and sqrt, equal to pow on NaN, infinities, -0 and negative bases" {
	need_numpy
	"$PY" -c "
import numpy as np
x = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, -3, -0.5, 1.5, 2, 1e30, -1e30, 1e-30, 7, 0.25, -2, 3], np.float32)
np.save('$T/x.npy', x.reshape(2, 8))"
	cat > "$T/p.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[2,8]) -> (f32[2,8], f32[2,8], f32[2,8], f32[2,8], f32[2,8], f32[2,8], f32[2,8], f32[2,8], f32[2,8], f32[1,2,8]) {
  %e0 = const f32[] 0.0
  %p0 = power(%x, %e0)
  %e1 = const f32[1] [1.0]
  %p1 = power(%x, %e1)
  %e2 = const f32[] 2.0
  %p2 = power(%x, %e2)
  %p3 = power(%x, 3.0)
  %e4 = const f32[1,1] [4.0]
  %p4 = power(%x, %e4)
  %em = const f32[] -1.0
  %pm = power(%x, %em)
  %eh = const f32[] 0.5
  %ph = power(%x, %eh)
  %ek = const f32[] 2.5
  %pk = power(%x, %ek)
  %pn = power(%x, -2.0)
  %ew = const f32[1,1,1] [2.0]
  %pw = power(%x, %ew)
  %t = (%p0, %p1, %p2, %p3, %p4, %pm, %ph, %pk, %pn, %pw)
  return %t
}
IR
	ir-fold-constants "$T/p.ir" > "$T/f.ir"
	# every exponent that keeps x's shape is a literal; the one that
	# widens the result stays a constant
	for p in 'p0, 0.0' 'p1, 1.0' 'p2, 2.0' 'p4, 4.0' 'pm, -1.0' 'ph, 0.5' 'pk, 2.5'; do
		grep -q "= power(%x, ${p#*, })\$" "$T/f.ir"
	done
	[ "$(grep -c ' = const ' "$T/f.ir")" -eq 1 ]
	grep -q '%pw: f32\[1,2,8\] = power(%x, %ew)$' "$T/f.ir"
	ir-fold-constants "$T/f.ir" | cmp - "$T/f.ir"
	# lowered: pow() only for 2.5, -2 and the exponent in a buffer
	ir-plan-devices "$T/f.ir" | ir-lower > "$T/l.ir"
	[ "$(grep -c 'pow(' "$T/l.ir")" -eq 3 ]
	grep -A 8 '^prim @power_2(' "$T/l.ir" | grep -q ': f32 = %a2 \* %a2$'
	# the same bits as the graph level on the interpreter, and on OpenCL
	ir-run --interp --input x="$T/x.npy" -o "$T/a" "$T/p.ir"
	ir-run --interp --input x="$T/x.npy" -o "$T/b" "$T/l.ir"
	compiled "$T/f.ir" "$T/o.ir"
	ir-run --check --input x="$T/x.npy" -o "$T/c" "$T/o.ir"
	"$PY" -c "
import numpy as np
for i in range(10):
    a, b, c = (np.load('$T/%s/%d.npy' % (s, i)) for s in 'abc')
    assert a.tobytes() == b.tobytes(), (i, a, b)
    # OpenCL's pow is within 16 ulp, its sqrt within 3; a NaN's sign is
    # not pow's to keep
    n = np.isnan(a)
    assert np.array_equal(np.signbit(a)[~n], np.signbit(c)[~n]), (i, a, c)
    assert np.allclose(a, c, rtol=4e-6, atol=0, equal_nan=True), (i, a, c)"
}

@test "fold: a dense of a 3-d input (its leading axes rows) reads a constant weight packed in panels, equal on POCL" {
	need_numpy
	"$PY" -c "
import numpy as np
r = np.random.RandomState(5)
np.save('$T/w3.npy', r.randn(64, 24).astype(np.float32))
np.save('$T/x3.npy', r.randn(1, 13, 24).astype(np.float32))"
	printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[1,13,24]) -> f32[1,13,64] {\n  %%w = const f32[64,24] file="w3.npy"\n  %%d = nn.dense(%%x, %%w)\n  return %%d\n}\n' > "$T/d3.ir"
	ir-fold-constants "$T/d3.ir" > "$T/f.ir"
	grep -q '%d: f32\[1,13,64\] = nn.dense(%x, %w_nc32n) {weight_layout="NC32n"}' "$T/f.ir"
	compiled "$T/f.ir" "$T/f.ocl.ir"
	[ "$(grep -c '^  kernel ' "$T/f.ocl.ir")" -eq 1 ]
	ir-run --interp --data-dir "$T" --input x="$T/x3.npy" -o "$T/a.npy" "$T/d3.ir"
	ir-run --check --data-dir "$T" --input x="$T/x3.npy" -o "$T/o.npy" "$T/f.ocl.ir"
	"$PY" -c "
import numpy as np
a, o = np.load('$T/a.npy'), np.load('$T/o.npy')
assert np.allclose(a, o, rtol=1e-5, atol=1e-5), abs(a - o).max()"
}

@test "fold: a cpu conv2d's constant weight of 16k output channels is made OIHW16o (panels of 16), read with no transpose, equal on POCL; a gpu, groups and other counts keep HWIO (issue 23)" {
	need_numpy
	"$PY" -c "
import numpy as np
r = np.random.RandomState(6)
np.save('$T/w16.npy', r.randn(32, 8, 3, 3).astype(np.float32))
np.save('$T/w24.npy', r.randn(24, 8, 1, 1).astype(np.float32))
np.save('$T/wg.npy', r.randn(32, 4, 1, 1).astype(np.float32))
np.save('$T/x.npy', r.randn(1, 8, 9, 16).astype(np.float32))"
	cat > "$T/c.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[1,8,9,16]) -> (f32[1,32,9,16], f32[1,24,9,16], f32[1,32,9,16]) {
  %w16 = const f32[32,8,3,3] file="w16.npy"
  %w24 = const f32[24,8,1,1] file="w24.npy"
  %wg = const f32[32,4,1,1] file="wg.npy"
  %c = nn.conv2d(%x, %w16) {padding=[1, 1, 1, 1]}
  %r = nn.relu(%c)
  %d = nn.conv2d(%x, %w24)
  %g = nn.conv2d(%x, %wg) {groups=2}
  %o = (%r, %d, %g)
  return %o
}
IR
	ir-fold-constants "$T/c.ir" > "$T/f.ir"
	grep -q '%w16_oihw16o: f32\[2,8,3,3,16\] = const' "$T/f.ir"
	grep -q 'nn.conv2d(%x, %w16_oihw16o) {kernel_layout="OIHW16o", padding=\[1, 1, 1, 1\]}' "$T/f.ir"
	grep -q 'nn.conv2d(%x, %w24_hwio) {kernel_layout="HWIO"}' "$T/f.ir"
	grep -q 'nn.conv2d(%x, %wg_hwio) {groups=2, kernel_layout="HWIO"}' "$T/f.ir"
	sed 's/cpu(0)/gpu(0)/' "$T/c.ir" > "$T/cg.ir"
	ir-fold-constants "$T/cg.ir" > "$T/g.ir"
	! grep -q 'OIHW16o' "$T/g.ir"
	grep -q 'nn.conv2d(%x, %w16_hwio) {kernel_layout="HWIO", padding=\[1, 1, 1, 1\]}' "$T/g.ir"
	# the tile reads the panels as they are: no transpose stage
	ir-plan-devices "$T/f.ir" | ir-lower > "$T/l.ir"
	! grep -q 'alloc %wt' "$T/l.ir"
	grep -Eq 'let %w[0-9]+: f32x16 = %p1\[%i[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, 0:16\]' "$T/l.ir"
	mkdir -p "$T/a" "$T/o"
	ir-run --interp --data-dir "$T" --input x="$T/x.npy" -o "$T/a" "$T/c.ir"
	compiled "$T/f.ir" "$T/f.ocl.ir"
	ir-run --check --data-dir "$T" --input x="$T/x.npy" -o "$T/o" "$T/f.ocl.ir"
	"$PY" -c "
import numpy as np
for i in range(3):
    a, o = np.load('$T/a/%d.npy' % i), np.load('$T/o/%d.npy' % i)
    assert np.allclose(a, o, rtol=1e-5, atol=1e-5), (i, abs(a - o).max())"
}
