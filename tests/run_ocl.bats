#!/usr/bin/env bats
# ir-run on OpenCL devices (POCL here): every model and lowering test module
# on cpu, gpu and texture gpu, fused, unfused and untiled, equals the
# reference interpreter; device selection and errors in words.

setup() {
	load test_helper
	bats_require_minimum_version 1.5.0
	ocl_setup
}

# on_each_device D [CALLS]: D/m.ir on cpu, gpu and texture gpu (D/c.DEV.ir),
# each run with --check on D/x.npy (CALLS prims equal the interpreter's,
# when given) and its results equal to D/want
on_each_device() {
	local d=$1 dev
	for dev in cpu gpu tex; do
		retarget $dev "$d/m.ir" > "$d/m.$dev.ir"
		compiled "$d/m.$dev.ir" "$d/c.$dev.ir"
		mkdir "$d/got.$dev"
		run -0 --separate-stderr ir-run --check --input x="$d/x.npy" -o "$d/got.$dev" "$d/c.$dev.ir"
		[ -z "${2-}" ] || [[ "$stderr" == *"--check: $2 calls of prims equal the interpreter's"* ]]
		"$PY" "$H" same "$d/got.$dev" "$d/want"
	done
}

# every_module_everywhere: the first test's loop (see its name), run
# untraced: 279 compilations (one pipeline a mode for all) and runs.  Each
# of a module's nine compilations runs with --check (every prim call equal
# to the loop-level interpreter's on the same operands), and its results
# must equal the interpreter's on the module as written (before planning
# and lowering): one reference a module, end to end.  Where a compilation
# rounds otherwise than the source does (sums in another order, f16
# images on the texture gpu), the reference is each lowered form as
# interpreted, as it was for every module until interpreting those took a
# third of this file's time under the sanitizers (11 of 30 s).
every_module_everywhere() {
	local d=$BATS_TEST_TMPDIR f n dev mode opt args out i count=0 modules=0 lowered=0 pairs=() ins=() nine=()
	for f in "$BATS_TEST_DIRNAME"/ir-lower/*.ir "$BATS_TEST_DIRNAME"/ir-run/*.ir; do
		n=$(basename "$(dirname "$f")")-$(basename "$f" .ir)
		for dev in cpu gpu tex; do
			retarget $dev "$f" > "$d/$n.$dev.ir"
			ins+=("$d/$n.$dev.ir")
		done
	done
	for mode in fuse no-fuse no-tile; do
		opt=
		[ $mode = fuse ] || opt=--$mode
		compiled_each "$opt" ".$mode.ir" "${ins[@]}"
	done
	# the nine modules of a test module share its inputs: one start of
	# ir-run a test module for each engine (ran_each)
	for f in "$BATS_TEST_DIRNAME"/ir-lower/*.ir "$BATS_TEST_DIRNAME"/ir-run/*.ir; do
		n=$(basename "$(dirname "$f")")-$(basename "$f" .ir)
		mkdir -p "$d/$n"
		args=$("$PY" "$H" inputs "$f" "$d/$n")
		nine=()
		for dev in cpu gpu tex; do
			for mode in fuse no-fuse no-tile; do
				nine+=("$d/$n.$dev.$mode.ir")
			done
		done
		ran_each "$d/$n.ocl" "--check $args" "${nine[@]}"
		# a tuple result is a folder
		out=.npy
		if grep -q -- '-> (' "$f"; then out=; fi
		# shellcheck disable=SC2086
		ir-run --interp $args -o "$d/$n.src$out" "$f"
		pairs=()
		for i in "${!nine[@]}"; do
			pairs+=("$d/$n.ocl/$i$out" "$d/$n.src$out")
		done
		if ! "$PY" "$H" same "${pairs[@]}" 2> /dev/null; then
			# rounded otherwise than the source: each form as interpreted
			ran_each "$d/$n.ref" "--interp $args" "${nine[@]}"
			pairs=()
			for i in "${!nine[@]}"; do
				pairs+=("$d/$n.ocl/$i$out" "$d/$n.ref/$i$out")
			done
			"$PY" "$H" same "${pairs[@]}"
			lowered=$((lowered + 1))
		fi
		count=$((count + ${#nine[@]}))
		modules=$((modules + 1))
	done
	echo "# $count runs, $lowered modules against their lowered forms" >&3
	# the source's interpretation stands for most modules, not all
	[ $((lowered * 4)) -lt "$modules" ]
}

@test "run_ocl: every model and lowering module x cpu, gpu, texture gpu x fuse, no-fuse, no-tile equals the interpreter" {
	untraced every_module_everywhere
}

@test "run_ocl: a texture model uses images and matches; --repeat prints the median, the min and the CPU time a run" {
	local d=$BATS_TEST_TMPDIR
	retarget tex "$BATS_TEST_DIRNAME/ir-lower/texture_block.ir" > "$d/t.ir"
	compiled "$d/t.ir" "$d/t.ocl.ir"
	grep -q 'image2d_t' "$d/t.ocl.ir"
	args=$("$PY" "$H" inputs "$d/t.ir" "$d")
	run -0 --separate-stderr ir-run --repeat 3 $args -o "$d/o.npy" "$d/t.ocl.ir"
	[[ "$stderr" =~ ir-run:\ 3\ runs,\ median\ [0-9.]+\ ms,\ min\ [0-9.]+\ ms,\ cpu\ [0-9.]+\ ms\ a\ run$ ]]
	ir-run --interp $args -o "$d/r.npy" "$d/t.ocl.ir"
	"$PY" "$H" same "$d/o.npy" "$d/r.npy"
}

@test "run_ocl: a gpu with no GPU present runs on POCL's cpu, said once" {
	local d=$BATS_TEST_TMPDIR
	printf 'device @a = gpu(0)\ndevice @b = gpu(1)\nfn @main(%%x: f32[4] on @a) -> f32[4] on @b {\n  %%y = add(%%x, %%x)\n  %%z = device_copy(%%y, @a -> @b)\n  %%w = nn.relu(%%z)\n  return %%w\n}\n' > "$d/g.ir"
	compiled "$d/g.ir" "$d/g.ocl.ir"
	args=$("$PY" "$H" inputs "$d/g.ir" "$d")
	run -0 --separate-stderr ir-run $args "$d/g.ocl.ir"
	if ! grep -q "no OpenCL GPU" <<< "$stderr"; then skip "this machine has a GPU"; fi
	[ "$(grep -c "no OpenCL GPU here" <<< "$stderr")" = 1 ]
}

@test "run_ocl: --device binds by platform or device name; unknown names list what exists" {
	local d=$BATS_TEST_TMPDIR
	compiled "$BATS_TEST_DIRNAME/ir-lower/placement.ir" "$d/p.ir"
	args=$("$PY" "$H" inputs "$d/p.ir" "$d")
	run -0 ir-run --check --device @gpu="Portable Computing" --device @cpu=pthread:0 $args "$d/p.ir"
	run -1 --separate-stderr ir-run --device @gpu=NoSuchVendor $args -o "$d/o.npy" "$d/p.ir"
	[[ "$stderr" == *"error: --device @gpu=NoSuchVendor:0: no OpenCL device's platform or device name contains 'NoSuchVendor'"* ]]
	[[ "$stderr" == *"note: there is the cpu device '"*"' of the platform 'Portable Computing Language'"* ]]
	[ ! -e "$d/o.npy" ]
	run -1 --separate-stderr ir-run --device @nodev=x $args "$d/p.ir"
	[[ "$stderr" == *"--device @nodev: the module declares no device @nodev"* ]]
	run -2 --separate-stderr ir-run --device gpu $args "$d/p.ir"
	[[ "$stderr" == *"--device takes @DEV=NAME[:N], not 'gpu'"* ]]
}

@test "run_ocl: a device index past the devices there are lists them" {
	local d=$BATS_TEST_TMPDIR
	printf 'device @c = cpu(7)\nfn @main(%%x: f32[4]) -> f32[4] {\n  %%y = nn.relu(%%x)\n  return %%y\n}\n' > "$d/c.ir"
	compiled "$d/c.ir" "$d/c.ocl.ir"
	args=$("$PY" "$H" inputs "$d/c.ir" "$d")
	run -1 --separate-stderr ir-run $args -o "$d/o.npy" "$d/c.ocl.ir"
	[[ "$stderr" == *"c.ocl.ir:1:1: error: device @c is cpu(7), but there is 1 OpenCL cpu device"* ]]
	[[ "$stderr" == *"note: there is the cpu device"* ]]
	[ ! -e "$d/o.npy" ]
}

@test "run_ocl: a module without generated code says to run ir-codegen-ocl" {
	local d=$BATS_TEST_TMPDIR
	ir-plan-devices "$BATS_TEST_DIRNAME/ir-lower/placement.ir" | ir-lower | ir-plan-devices \
		| ir-flatten-texture > "$d/f.ir"
	args=$("$PY" "$H" inputs "$d/f.ir" "$d")
	run -1 --separate-stderr ir-run $args -o "$d/o.npy" "$d/f.ir"
	[[ "$stderr" == *"f.ir:"*": error: kernel @"*" has no launch: run ir-codegen-ocl first (or use --interp)"* ]]
	[ ! -e "$d/o.npy" ]
	run -0 ir-run --interp $args "$d/f.ir"
}

@test "run_ocl: a program that does not build gives the build log" {
	local d=$BATS_TEST_TMPDIR
	compiled "$BATS_TEST_DIRNAME/ir-lower/reduce_ends.ir" "$d/r.ir"
	awk '/^\| __kernel/ && !done { print "| this is not C;"; done=1 } {print}' "$d/r.ir" > "$d/bad.ir"
	args=$("$PY" "$H" inputs "$d/r.ir" "$d")
	run -1 --separate-stderr ir-run $args -o "$d/o.npy" "$d/bad.ir"
	[[ "$stderr" == *"error: the program of @"*" does not build on '"*"'; the build log:"* ]]
	[[ "$stderr" == *"unknown type name 'this'"* ]]
	[ ! -e "$d/o.npy" ]
}

@test "run_ocl: --check names the prim that differs and by how much" {
	local d=$BATS_TEST_TMPDIR
	compiled "$BATS_TEST_DIRNAME/ir-lower/reduce_ends.ir" "$d/r.ir"
	# the kernel's first store adds 1
	awk 'BEGIN{done=0} /^\|/ && !done && /\] = / && /;$/ { sub(/;$/, " + 1.0f;"); done=1 } {print}' "$d/r.ir" > "$d/bad.ir"
	! cmp -s "$d/r.ir" "$d/bad.ir"
	args=$("$PY" "$H" inputs "$d/r.ir" "$d")
	run -0 --separate-stderr ir-run --check --repeat 1 $args "$d/r.ir"
	# two runs of every call, each compared
	n=$(grep -c call_lowered "$d/r.ir")
	[[ "$stderr" == *"ir-run: --check: $((2 * n)) calls of prims equal the interpreter's ("* ]]
	run -1 --separate-stderr ir-run --check $args -o "$d/o.npy" "$d/bad.ir"
	[[ "$stderr" == *"error: --check: @"*" differs from the interpreter: result 0 element "*" on OpenCL, "*" in the interpreter (off by "* ]]
	[ ! -e "$d/o.npy" ]
}

@test "run_ocl: max and min keep NaN lowered and on OpenCL, as the reference does" {
	local d=$BATS_TEST_TMPDIR
	"$PY" -c 'import numpy as np; x = np.arange(12, dtype=np.float32).reshape(3, 4); x[1, 2] = np.nan; np.save("'"$d"'/x.npy", x)'
	cat > "$d/m.ir" <<'IR'
device @gpu = gpu(0)
fn @main(%x: f32[3,4]) -> (f32[3], f32[4]) {
  %a = max(%x) {axis=[1]}
  %b = min(%x) {axis=[0]}
  %t = (%a, %b)
  return %t
}
IR
	run -0 ir-run --interp --input x="$d/x.npy" "$d/m.ir"
	assert_line '0: f32[3] [3.0, nan, 11.0]'
	assert_line '1: f32[4] [0.0, 1.0, nan, 3.0]'
	local ref=$output
	compiled "$d/m.ir" "$d/c.ir"
	run -0 ir-run --interp --input x="$d/x.npy" "$d/c.ir"
	assert_equal "$output" "$ref"
	run -0 --separate-stderr ir-run --input x="$d/x.npy" "$d/c.ir"
	assert_equal "$output" "$ref"
}

@test "run_ocl: erf (GELU as torch exports it), hard_sigmoid and hard_swish on cpu, gpu and texture gpu equal the interpreter, which equals C's erf and ONNX's formulas" {
	local d=$BATS_TEST_TMPDIR dev
	# -5..5, with NaN, infinities and 0 (NaN stays NaN; the saturated ends)
	"$PY" -c 'import numpy as np
x = np.linspace(-5, 5, 72, dtype=np.float32).reshape(1, 2, 3, 3, 4)
x.flat[0:4] = [np.nan, np.inf, -np.inf, 0]
np.save("'"$d"'/x.npy", x)'
	cat > "$d/m.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[1,2,3,3,4]) -> (f32[1,2,3,3,4], f32[1,2,3,3,4], f32[1,2,3,3,4], f32[1,2,3,3,4]) {
  %e = erf(%x)
  %s = hard_sigmoid(%x) {alpha=0.25, beta=0.625}
  %w = hard_swish(%x)
  %g0 = multiply(%x, 0.70710677)
  %g1 = erf(%g0)
  %g2 = add(%g1, 1.0)
  %g3 = multiply(%x, %g2)
  %g = multiply(%g3, 0.5)
  %t = (%e, %s, %w, %g)
  return %t
}
IR
	mkdir "$d/want"
	ir-run --interp --input x="$d/x.npy" -o "$d/want" "$d/m.ir"
	"$PY" - "$d" <<'PY'
import math, sys
import numpy as np
np.seterr(invalid="ignore")     # hard_swish(-inf) is -inf * 0: NaN, as ONNX's formula
d = sys.argv[1]
x = np.load(d + "/x.npy").astype(np.float64)
erf = np.vectorize(math.erf)
hs = lambda v, a, b: np.where(np.isnan(v), v, np.clip(a * v + b, 0, 1))
want = [erf(x), hs(x, 0.25, 0.625), x * hs(x, 1 / 6, 0.5), 0.5 * x * (1 + erf(x * 0.70710677))]
for i, w in enumerate(want):
    got = np.load("%s/want/%d.npy" % (d, i))
    assert np.allclose(got, w.astype(np.float32), rtol=1e-6, atol=1e-7, equal_nan=True), (i, got, w)
PY
	on_each_device "$d" 4
	grep -q 'irp_erfx4(' "$d/c.cpu.ir"
	# the texture gpu reads and writes the 4-wide last axis as images
	grep -q 'image2d_t' "$d/c.tex.ir"
}

# erf of float is a rational approximation on OpenCL (ir-codegen-ocl's
# irp_erf: POCL's erf does not vectorize); over a dense sweep of -6..6, of
# tiny magnitudes and of f16, a scalar and a vector kernel stay within
# 8 ulp of C's erf (relative 1e-6), f16 within one f16 unit
@test "run_ocl: erf of f32 (scalar and 4 lanes) and f16 on OpenCL is within 1e-6 relative of C's erf" {
	local d=$BATS_TEST_TMPDIR
	"$PY" -c 'import numpy as np
x = np.concatenate([np.linspace(-6, 6, 120001), 10.0 ** np.linspace(-30, 0.6, 3998),
                    -(10.0 ** np.linspace(-30, 0.6, 3998)), [0, 4, -4]]).astype(np.float32)
np.save("'"$d"'/x.npy", x.reshape(25600, 5))
np.save("'"$d"'/v.npy", x.reshape(1, 2000, 4, 4, 4))
np.save("'"$d"'/h.npy", x.astype(np.float16).reshape(25600, 5))'
	cat > "$d/m.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[25600,5], %v: f32[1,2000,4,4,4], %h: f16[25600,5]) -> (f32[25600,5], f32[1,2000,4,4,4], f16[25600,5]) {
  %a = erf(%x)
  %b = erf(%v)
  %c = erf(%h)
  %t = (%a, %b, %c)
  return %t
}
IR
	compiled "$d/m.ir" "$d/c.ir"
	grep -q 'irp_erf(' "$d/c.ir"
	grep -q 'irp_erfx4(' "$d/c.ir"
	mkdir "$d/got"
	run -0 --separate-stderr ir-run --input x="$d/x.npy" --input v="$d/v.npy" --input h="$d/h.npy" \
		-o "$d/got" "$d/c.ir"
	"$PY" - "$d" <<'PY'
import math, sys
import numpy as np
d = sys.argv[1]
erf = np.vectorize(math.erf)
for i, f, tol in ((0, "x", 1e-6), (1, "v", 1e-6), (2, "h", 1e-3)):
    x = np.load("%s/%s.npy" % (d, f))
    got = np.load("%s/got/%d.npy" % (d, i)).astype(np.float64)
    want = erf(x.astype(np.float64))
    if f == "h":
        want = want.astype(np.float16).astype(np.float64)
    rel = np.abs(got - want) / np.maximum(np.abs(want), 1e-38)
    print(f, "largest relative difference %.3g" % rel.max())
    assert rel.max() <= tol, (f, rel.max(), x.flat[rel.argmax()])
PY
}

# softmax rows in vectors on a cpu (lower_softmax_cpu): rows of 197 (16
# lanes and a tail), 19 (8 lanes and a tail) and 16, with an infinity, a
# row of -inf (NaN throughout) and a NaN, equal the interpreter and numpy
@test "run_ocl: cpu softmax in vectors equals the interpreter and numpy, infinities and NaN included" {
	local d=$BATS_TEST_TMPDIR
	"$PY" -c 'import numpy as np
r = np.random.default_rng(0)
x = (r.standard_normal((2, 3, 197)) * 5).astype(np.float32)
x[0, 0, 5] = np.inf; x[0, 1, :] = -np.inf; x[1, 2, 7] = np.nan
np.save("'"$d"'/x.npy", x)
np.save("'"$d"'/y.npy", (r.standard_normal((5, 16)) * 30).astype(np.float32))
np.save("'"$d"'/z.npy", r.standard_normal((4, 19)).astype(np.float32))'
	cat > "$d/m.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[2,3,197], %y: f32[5,16], %z: f32[4,19]) -> (f32[2,3,197], f32[5,16], f32[4,19]) {
  %a = nn.softmax(%x)
  %b = nn.softmax(%y)
  %c = nn.softmax(%z)
  %t = (%a, %b, %c)
  return %t
}
IR
	compiled "$d/m.ir" "$d/c.ir"
	grep -q 'float16' "$d/c.ir"
	mkdir "$d/got"
	run -0 --separate-stderr ir-run --check --input x="$d/x.npy" --input y="$d/y.npy" \
		--input z="$d/z.npy" -o "$d/got" "$d/c.ir"
	[[ "$stderr" == *"--check: 3 calls of prims equal the interpreter's"* ]]
	"$PY" - "$d" <<'PY'
import sys
import numpy as np
np.seterr(invalid="ignore")
d = sys.argv[1]
for i, f in enumerate("xyz"):
    x = np.load("%s/%s.npy" % (d, f)).astype(np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    want = e / e.sum(-1, keepdims=True)
    got = np.load("%s/got/%d.npy" % (d, i))
    assert np.allclose(got, want, rtol=1e-5, atol=1e-7, equal_nan=True), (f, got, want)
PY
}

@test "run_ocl: sin, cos (and tan as their quotient), asin, acos and atan on cpu, gpu and texture gpu equal the interpreter, which equals C's" {
	local d=$BATS_TEST_TMPDIR dev
	"$PY" -c 'import numpy as np
x = np.linspace(-7, 7, 72, dtype=np.float32).reshape(1, 2, 3, 3, 4)
x.flat[0:3] = [np.nan, np.inf, 0]
np.save("'"$d"'/x.npy", x)'
	cat > "$d/m.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[1,2,3,3,4]) -> (f32[1,2,3,3,4], f32[1,2,3,3,4], f32[1,2,3,3,4], f32[1,2,3,3,4], f32[1,2,3,3,4], f32[1,2,3,3,4]) {
  %s = sin(%x)
  %c = cos(%x)
  %t0 = divide(%s, %c)
  %as = asin(%c)
  %ac = acos(%s)
  %at = atan(%x)
  %t = (%s, %c, %t0, %as, %ac, %at)
  return %t
}
IR
	mkdir "$d/want"
	ir-run --interp --input x="$d/x.npy" -o "$d/want" "$d/m.ir"
	"$PY" - "$d" <<'PY'
import sys
import numpy as np
np.seterr(invalid="ignore")
d = sys.argv[1]
x = np.load(d + "/x.npy").astype(np.float64)
s, c = np.sin(x).astype(np.float32), np.cos(x).astype(np.float32)
want = [np.sin(x), np.cos(x), np.sin(x) / np.cos(x), np.arcsin(c.astype(np.float64)),
        np.arccos(s.astype(np.float64)), np.arctan(x)]
for i, w in enumerate(want):
    got = np.load("%s/want/%d.npy" % (d, i))
    assert np.allclose(got, w.astype(np.float32), rtol=1e-6, atol=1e-7, equal_nan=True), (i, got, w)
PY
	on_each_device "$d"
	grep -q 'sin(' "$d/c.cpu.ir"
	grep -q 'image2d_t' "$d/c.tex.ir"
}

@test "run_ocl: a value copied from texture to texture:weight is reshaped, not shared" {
	local d=$BATS_TEST_TMPDIR
	# the weight's layout_transform writes an image in texture (16 rows of
	# 18 texels would be 2 rows of 72 in texture:weight); the copy to the
	# convolution's texture:weight must lay the same elements out anew
	cat > "$d/w.ir" <<'IR'
device @gpu = gpu(0) {texture=true}
fn @main(%x: f32[1,2,5,5,4], %w: f32[8,8,3,3]) -> f32[1,2,5,5,4] {
  %wp = layout_transform(%w) {src_layout="OIHW", dst_layout="OIHW4o"}
  %c = nn.conv2d(%x, %wp) {padding=[1,1,1,1], data_layout="NCHW4c", kernel_layout="OIHW4o"}
  return %c
}
IR
	compiled "$d/w.ir" "$d/o.ir"
	grep -q 'device_copy(%wp, @gpu:texture -> @gpu:texture:weight)' "$d/o.ir"
	args=$("$PY" "$H" inputs "$d/w.ir" "$d")
	ir-run --interp $args -o "$d/ref.npy" "$d/w.ir"
	run -0 ir-run --check $args -o "$d/o.npy" "$d/o.ir"
	"$PY" "$H" same "$d/o.npy" "$d/ref.npy"
}

@test "run_ocl: u64 literals above INT64_MAX are ulong literals with their value on OpenCL" {
	local d=$BATS_TEST_TMPDIR f=$BATS_TEST_DIRNAME/ir-run-ocl/u64_literals.ir mode opt
	for mode in fuse no-fuse no-tile; do
		opt=
		[ $mode = fuse ] || opt=--$mode
		compiled "$f" "$d/$mode.ir" $opt
		grep -q '> 9223372036854775808UL' "$d/$mode.ir"
		grep -q 'F\[0\] = (float)18446744073709551615UL;' "$d/$mode.ir"
		# u64_literals.out: worked out by hand (tests/run.bats)
		run -0 --separate-stderr ir-run --check "$d/$mode.ir"
		assert_output "$(cat "${f%.ir}.out")"
		# --check says how much it compared (issue 28, item 12)
		[[ "$stderr" =~ ir-run:\ --check:\ [1-9][0-9]*\ calls?\ of\ prims\ equal\ the\ interpreter\'s\ \([1-9][0-9]*\ result\ elements\ compared\) ]]
	done
}

@test "run_ocl: f16 arithmetic and casts to f16 are rounded to f16 on OpenCL, bit for bit as the interpreter rounds them" {
	local d=$BATS_TEST_TMPDIR dev
	# f16 is computed in float on OpenCL: without rounding each result, a
	# cast to f16 was nothing and 2048 + 1 stayed 2049 (f16 has 2048)
	cat > "$d/m.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[1,3,2,8], %a: f16[1,3,2,8], %b: f16[1,3,2,8]) -> (f32[1,3,2,8], f32[1,3,2,8]) {
  %h = cast(%x) {dtype="f16"}
  %y = cast(%h) {dtype="f32"}
  %c = const f16[] 0.1
  %s = add(%a, %b)
  %p = multiply(%s, %a)
  %q = add(%p, %c)
  %z = cast(%q) {dtype="f32"}
  %t = (%y, %z)
  return %t
}
IR
	"$PY" -c 'import numpy as np, sys
d = sys.argv[1]
# ties to even, the largest f16 and past it, subnormals, their ties, NaN
x = [1 + 2**-11, 1 + 3 * 2**-11, 65519, 65520, -65536, 2**-25, 3 * 2**-25, 2**-14 - 2**-25,
     -0.1, 1e-8, np.nan, -np.inf, 1 / 3, 2049, -2051, 0.5 + 2**-12]
x = np.array(x * 3, np.float32).reshape(1, 3, 2, 8)
a = np.array([2048, 1, -3, 0.1, 1000, 2**-14, 7, 0.3] * 6, np.float16).reshape(1, 3, 2, 8)
b = np.array([1, 2**-11, 2**-12, 0.2, 0.5, 2**-24, 2**-9, 1 / 3] * 6, np.float16).reshape(1, 3, 2, 8)
for n, v in (("x", x), ("a", a), ("b", b)):
    np.save("%s/%s.npy" % (d, n), v)' "$d"
	for dev in cpu gpu tex; do
		retarget $dev "$d/m.ir" > "$d/$dev.ir"
		compiled "$d/$dev.ir" "$d/$dev.ocl.ir"
		mkdir -p "$d/$dev.ocl" "$d/$dev.ref"
		run -0 ir-run --check --input x="$d/x.npy" --input a="$d/a.npy" --input b="$d/b.npy" \
			-o "$d/$dev.ocl" "$d/$dev.ocl.ir"
		ir-run --interp --input x="$d/x.npy" --input a="$d/a.npy" --input b="$d/b.npy" \
			-o "$d/$dev.ref" "$d/$dev.ocl.ir"
		"$PY" -c 'import numpy as np, sys
d, o, r = sys.argv[1:]
x, a, b = (np.load("%s/%s.npy" % (d, n)) for n in "xab")
with np.errstate(over="ignore"):
    y = x.astype(np.float16).astype(np.float32)
    z = ((a + b) * a + np.float16(0.1)).astype(np.float32)   # f16 rounds each
for i, want in enumerate((y, z)):
    for k in (o, r):
        got = np.load("%s/%d.npy" % (k, i))
        bad = (got.view(np.uint32) != want.view(np.uint32)) & ~(np.isnan(got) & np.isnan(want))
        if bad.any():
            j = np.argwhere(bad)[0]
            sys.exit("%s result %d at %s: %r, f16 rounding gives %r" % (k, i, j, got[tuple(j)], want[tuple(j)]))' \
			"$d" "$d/$dev.ocl" "$d/$dev.ref" || { echo "$dev differs"; return 1; }
	done
}

@test "run_ocl: f16 vectors (a packed convolution in images) pass --check: every lane rounded" {
	local d=$BATS_TEST_TMPDIR
	cat > "$d/v.ir" <<'IR'
device @gpu = gpu(0) {texture=true}
fn @main(%x: f32[1,2,3,2,4], %a: f16[1,2,3,2,4], %w: f16[2,8,3,3,4]) -> f32[1,2,3,2,4] {
  %h = cast(%x) {dtype="f16"}
  %s = add(%a, %h)
  %e = exp(%s)
  %c = nn.conv2d(%e, %w) {padding=[1, 1, 1, 1], data_layout="NCHW4c", kernel_layout="OIHW4o"}
  %z = cast(%c) {dtype="f32"}
  return %z
}
IR
	compiled "$d/v.ir" "$d/v.ocl.ir"
	args=$("$PY" "$H" inputs "$d/v.ir" "$d")
	run -0 ir-run --check $args -o "$d/o.npy" "$d/v.ocl.ir"
	grep -q 'irp_f16x4(' "$d/v.ocl.ir"
}

@test "run_ocl: f16 literals are generated rounded to f16, as the interpreter reads them" {
	local d=$BATS_TEST_TMPDIR
	cat > "$d/l.ir" <<'IR'
device @cpu = cpu(0)

prim @p(%A: f16[2] @cpu:global, %F: f32[4] @cpu:global) {
  kernel @k {
    let %v: f16 = 0.1
    %F[0] = cast<f32>(%v)
    %F[1] = cast<f32>(%A[0] + 2051)
    %F[2] = cast<f32>(%A[1] * 0.3)
    %F[3] = cast<f32>(%A[1] + 2049)
  }
}

fn @main() -> f32[4] {
  %x = const f16[2] [1, 0.5]
  %r = call_lowered @p(%x)
  return %r
}
IR
	compiled "$d/l.ir" "$d/l.ocl.ir"
	run -0 ir-run --interp "$d/l.ocl.ir"
	assert_output 'f32[4] [0.099975586, 2052.0, 0.15002441, 2048.0]'
	run -0 --separate-stderr ir-run --check "$d/l.ocl.ir"
	assert_output 'f32[4] [0.099975586, 2052.0, 0.15002441, 2048.0]'
	grep -qF 'const float v = 0.099975586f;' "$d/l.ocl.ir"
}

@test "run_ocl: nn.dense of any rank and nn.batch_matmul with either transpose take the tiled schedules on cpu, gpu and texture gpu, equal to the interpreter" {
	local d=$BATS_TEST_TMPDIR dev p
	cat > "$d/m.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%a: f32[1,37,24], %b: f32[2,3,5,24], %c: f32[11,1,24], %e: f32[24], %w: f32[20,24], %bias: f32[20], %g: f32[2,32,16], %wg: f32[32,16], %q: f32[3,12,16], %kt: f32[3,16,37], %qt: f32[3,16,12], %k1: f32[1,10,16], %h: f32[2,32,16], %ht: f32[2,16,32], %f: f32[1,2,3,5,24], %w4: f32[4,24]) -> (f32[1,37,20], f32[2,3,5,20], f32[11,1,20], f32[20], f32[2,32,32], f32[3,12,37], f32[3,12,37], f32[3,12,10], f32[2,32,32], f32[1,2,3,5,4]) {
  %d1 = nn.dense(%a, %w)
  %r1 = add(%d1, %bias)
  %d2 = nn.dense(%b, %w)
  %r2 = nn.relu(%d2)
  %d3 = nn.dense(%c, %w)
  %d4 = nn.dense(%e, %w)
  %d5 = nn.dense(%g, %wg)
  %m1 = nn.batch_matmul(%q, %kt) {transpose_b=false}
  %m2 = nn.batch_matmul(%qt, %kt) {transpose_a=true, transpose_b=false}
  %m3 = nn.batch_matmul(%qt, %k1) {transpose_a=true}
  %m4 = nn.batch_matmul(%h, %ht) {transpose_b=false}
  %d6 = nn.dense(%f, %w4)
  %t = (%r1, %r2, %d3, %d4, %d5, %m1, %m2, %m3, %m4, %d6)
  return %t
}
IR
	args=$("$PY" "$H" inputs "$d/m.ir" "$d")
	for dev in cpu gpu tex; do
		retarget $dev "$d/m.ir" > "$d/$dev.ir"
		compiled "$d/$dev.ir" "$d/$dev.ocl.ir"
		# no product is left to one element per work item: every prim
		# has a register tile (unrolled loops) or a shared-memory one,
		# but for a result in an image (%d6 on the texture gpu: a 5-d
		# result of 4 units is taken for a packed tensor), written a
		# texel at a time
		for p in $(grep -v '%out: [^)]*@cpu:texture' "$d/$dev.ocl.ir" | grep -o '^prim @[a-z_0-9]*' | cut -c6-); do
			awk -v p="$p" '$1 == "prim" && index($2, p "(") == 1 { on = 1 } on && /^}/ { exit }
				on && / unrolled \{|:shared/ { found = 1 } END { exit !found }' "$d/$dev.ocl.ir" ||
				{ echo "$dev: $p is not tiled"; return 1; }
		done
		# on a gpu the products of at least 16 rows and columns are
		# shared-memory tiles, ragged ones (37 rows, 20 columns) too
		[ $dev = cpu ] || [ "$(grep -c '^ *alloc %as[0-9]*: .*:shared$' "$d/$dev.ocl.ir")" -eq 4 ]
		mkdir "$d/$dev.ref" "$d/$dev.ocl"
		ir-run --interp $args -o "$d/$dev.ref" "$d/$dev.ocl.ir"
		ir-run --check $args -o "$d/$dev.ocl" "$d/$dev.ocl.ir"
		"$PY" "$H" same "$d/$dev.ocl" "$d/$dev.ref"
	done
	# the graph level's values
	mkdir "$d/graph"
	ir-run --interp $args -o "$d/graph" "$d/m.ir"
	"$PY" "$H" same "$d/cpu.ref" "$d/graph"
	# a 3-d dense [1,37,24] is the 2-d one [37,24], kernel for kernel
	for dev in cpu gpu tex; do
		printf 'device @d = %s\nfn @main(%%x: f32[%s], %%w: f32[20,24]) -> f32[%s] {\n  %%y = nn.dense(%%x, %%w)\n  return %%y\n}\n' \
			"$(retarget $dev "$d/m.ir" | sed -n '1s/^device @cpu = //p')" 1,37,24 1,37,20 > "$d/d3.ir"
		sed 's/1,37,/37,/g' "$d/d3.ir" > "$d/d2.ir"
		compiled "$d/d3.ir" "$d/d3.ocl.ir"
		compiled "$d/d2.ir" "$d/d2.ocl.ir"
		grep -q '^| __kernel' "$d/d3.ocl.ir"
		diff <(grep '^| ' "$d/d3.ocl.ir") <(grep '^| ' "$d/d2.ocl.ir")
	done
}

@test "run_ocl: a gpu product of at least 8 steps of k a slice loads its next tiles into registers while it multiplies (double buffering), equal to the interpreter; one of fewer steps does not (issue 27)" {
	local d=$BATS_TEST_TMPDIR dev
	# a batch is not split along k: 128 is 8 steps of 16, 130 9 ragged
	# ones (k past 130 reads zero), 64 only 4
	cat > "$d/m.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%a: f32[2,32,128], %b: f32[2,48,128], %c: f32[2,37,130], %e: f32[2,20,130], %f: f32[2,32,64], %g: f32[2,32,64]) -> (f32[2,32,48], f32[2,37,20], f32[2,32,32]) {
  %m1 = nn.batch_matmul(%a, %b)
  %m2 = nn.batch_matmul(%c, %e)
  %m3 = nn.batch_matmul(%f, %g)
  %t = (%m1, %m2, %m3)
  return %t
}
IR
	args=$("$PY" "$H" inputs "$d/m.ir" "$d")
	for dev in gpu tex; do
		retarget $dev "$d/m.ir" > "$d/$dev.ir"
		compiled "$d/$dev.ir" "$d/$dev.ocl.ir"
		[ "$(grep -c '^ *alloc %as[0-9]*: .*:shared$' "$d/$dev.ocl.ir")" -eq 3 ]
		# two of the three keep a step's tiles in registers
		[ "$(grep -c '^ *alloc %ra[0-9]*: .*:local$' "$d/$dev.ocl.ir")" -eq 2 ]
		mkdir "$d/$dev.ref" "$d/$dev.ocl"
		ir-run --interp $args -o "$d/$dev.ref" "$d/$dev.ocl.ir"
		ir-run --check $args -o "$d/$dev.ocl" "$d/$dev.ocl.ir"
		"$PY" "$H" same "$d/$dev.ocl" "$d/$dev.ref"
	done
}

@test "run_ocl: a gpu dense whose 8x6 tiles make one wave takes them unsplit (an encoder's QKV), double-buffered, equal to the interpreter (issue 27)" {
	local d=$BATS_TEST_TMPDIR
	# 96 tiles of 8x8 would split k; 128 of 8x6 (96 columns) do not; k
	# of 128 is 8 steps, double-buffered
	cat > "$d/m.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[1024,128], %w: f32[1536,128], %b: f32[1536]) -> f32[1024,1536] {
  %d = nn.dense(%x, %w)
  %y = add(%d, %b)
  return %y
}
IR
	args=$("$PY" "$H" inputs "$d/m.ir" "$d")
	retarget gpu "$d/m.ir" > "$d/gpu.ir"
	compiled "$d/gpu.ir" "$d/gpu.ocl.ir"
	grep -q '^ *alloc %acc[0-9]*: f32\[8,6\] @cpu:local$' "$d/gpu.ocl.ir"
	grep -q '^ *alloc %rb[0-9]*: f32\[6\] @cpu:local$' "$d/gpu.ocl.ir"
	[ "$(grep -c 'alloc %ps' "$d/gpu.ocl.ir")" = 0 ]
	# against the interpreter's nn.dense (the lowered prim interpreted,
	# --check, takes 9 s for its 200M multiply-adds)
	ir-run --interp $args -o "$d/ref.npy" "$d/m.ir"
	ir-run $args -o "$d/ocl.npy" "$d/gpu.ocl.ir"
	"$PY" "$H" same "$d/ocl.npy" "$d/ref.npy"
}

@test "run_ocl: a layer_norm after a gpu dense normalizes the product's rows in its second kernel, from one slice or the sums of several, through reshapes, transposes and adds, equal to the interpreter (issue 27)" {
	local d=$BATS_TEST_TMPDIR dev
	# the out-projection's shape (rows of 4 x 8 through a transpose,
	# the residual added) in one slice; a dense of k 256 in 8
	cat > "$d/m.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[32,48], %w: f32[64,48], %b: f32[64], %r: f32[4,8,64], %g: f32[64], %be: f32[64], %x2: f32[2,24,256], %w2: f32[96,256], %r2: f32[2,24,96], %g2: f32[96], %be2: f32[96]) -> (f32[4,8,64], f32[2,24,96]) {
  %d = nn.dense(%x, %w)
  %a = add(%d, %b)
  %s = reshape(%a) {newshape=[8,4,64]}
  %t = transpose(%s) {axes=[1,0,2]}
  %u = add(%t, %r)
  %n = nn.layer_norm(%u, %g, %be) {axis=2, epsilon=1e-5}
  %d2 = nn.dense(%x2, %w2)
  %a2 = add(%d2, %r2)
  %n2 = nn.layer_norm(%a2, %g2, %be2) {axis=-1, epsilon=1e-5}
  %o = (%n, %n2)
  return %o
}
IR
	args=$("$PY" "$H" inputs "$d/m.ir" "$d")
	mkdir "$d/ref"
	ir-run --interp $args -o "$d/ref" "$d/m.ir"
	for dev in gpu tex; do
		retarget $dev "$d/m.ir" > "$d/$dev.ir"
		compiled "$d/$dev.ir" "$d/$dev.ocl.ir"
		grep -q '^ *kernel @fused_nn_dense_add_reshape_transpose_add_nn_layer_norm_k1 ' "$d/$dev.ocl.ir"
		grep -q '^ *kernel @fused_nn_dense_add_nn_layer_norm_k1 ' "$d/$dev.ocl.ir"
		grep -q '^ *alloc %ps[0-9]*: f32\[1,32,64\]' "$d/$dev.ocl.ir"
		grep -q '^ *alloc %ps[0-9]*: f32\[8,48,96\]' "$d/$dev.ocl.ir"
		mkdir "$d/$dev"
		ir-run --check $args -o "$d/$dev" "$d/$dev.ocl.ir"
		"$PY" "$H" same "$d/$dev/0.npy" "$d/ref/0.npy" "$d/$dev/1.npy" "$d/ref/1.npy"
	done
}

@test "run_ocl: a cpu 1x1 conv2d, or one of few taps per output, with stride 1 is a tile of vectors along the output's columns, equal to the interpreter" {
	local d=$BATS_TEST_TMPDIR
	cat > "$d/m.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[1,16,8,32], %w: f32[24,16,1,1], %b: f32[24], %y: f32[1,3,16,16], %v: f32[8,3,3,3], %z: f32[2,4,6,8], %u: f32[16,2,1,1], %r: f32[2,16,6,8]) -> (f32[1,24,8,32], f32[1,8,16,16], f32[2,16,6,8]) {
  %c1 = nn.conv2d(%x, %w) {kernel_size=[1, 1]}
  %a1 = nn.bias_add(%c1, %b) {axis=1}
  %k1 = clip(%a1) {a_min=0.0, a_max=6.0}
  %c2 = nn.conv2d(%y, %v) {padding=[1, 1, 1, 1]}
  %c3 = nn.conv2d(%z, %u) {groups=2}
  %a3 = add(%c3, %r)
  %t = (%k1, %c2, %a3)
  return %t
}
IR
	compiled "$d/m.ir" "$d/m.ocl.ir"
	# each product reads a row of the input as a vector and stores one
	[ "$(grep -c '^prim @[a-z_0-9]*conv2d' "$d/m.ocl.ir")" -eq 3 ]
	[ "$(grep -c '^ *let %x[0-9]*: f32x\(16\|8\) = %[a-z0-9]*\[.*:\(16\|8\)\]$' "$d/m.ocl.ir")" -eq 3 ]
	[ "$(grep -c '^ *%out\[.*:\(16\|8\)\] = ' "$d/m.ocl.ir")" -eq 3 ]
	args=$("$PY" "$H" inputs "$d/m.ir" "$d")
	mkdir "$d/ref" "$d/ocl" "$d/graph"
	ir-run --interp $args -o "$d/graph" "$d/m.ir"
	ir-run --interp $args -o "$d/ref" "$d/m.ocl.ir"
	ir-run --check $args -o "$d/ocl" "$d/m.ocl.ir"
	"$PY" "$H" same "$d/ref" "$d/graph"
	"$PY" "$H" same "$d/ocl" "$d/ref"
}

# issue 27: nn.layer_norm's row kernels (lower_norm.c) on cpu, gpu and
# texture gpu: rows of 197 (vectors of 16 and a tail on a cpu, several
# items per row on a gpu), of 19 and 7 (odd, not multiples of 4), over
# two axes (axis=1), and of a packed tensor read from an image; each
# equals the interpreter (--check) and numpy (two-pass mean and biased
# variance, in double)
@test "run_ocl: layer_norm on cpu, gpu and texture gpu equals the interpreter and numpy, rows of odd lengths and over several axes" {
	local d=$BATS_TEST_TMPDIR dev mode opt
	cat > "$d/m.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[2,3,197], %gx: f32[197], %bx: f32[197], %y: f32[5,19], %gy: f32[19], %by: f32[19], %z: f32[3,2,7], %gz: f32[2,7], %bz: f32[2,7], %p: f32[1,2,3,5,4], %gp: f32[2,3,5,4], %bp: f32[2,3,5,4]) -> (f32[2,3,197], f32[5,19], f32[3,2,7], f32[1,2,3,5,4]) {
  %a = nn.layer_norm(%x, %gx, %bx)
  %b = nn.layer_norm(%y, %gy, %by) {epsilon=0.25}
  %c = nn.layer_norm(%z, %gz, %bz) {axis=-2}
  %e = exp(%p)
  %f = nn.layer_norm(%e, %gp, %bp) {axis=1}
  %t = (%a, %b, %c, %f)
  return %t
}
IR
	args=$("$PY" "$H" inputs "$d/m.ir" "$d")
	for dev in cpu gpu tex; do
		retarget $dev "$d/m.ir" > "$d/m.$dev.ir"
		for mode in fuse no-tile; do
			opt=
			[ $mode = fuse ] || opt=--$mode
			compiled "$d/m.$dev.ir" "$d/c.$dev.$mode.ir" $opt
			mkdir "$d/got.$dev.$mode"
			run -0 --separate-stderr ir-run --check $args -o "$d/got.$dev.$mode" "$d/c.$dev.$mode.ir"
			[[ "$stderr" == *"--check: 5 calls of prims equal the interpreter's"* ]]
		done
	done
	grep -q 'float16' "$d/c.cpu.fuse.ir"
	grep -q '__local' "$d/c.gpu.fuse.ir"
	grep -q 'image2d_t' "$d/c.tex.fuse.ir"
	"$PY" - "$d" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
L = lambda n: np.load("%s/%s.npy" % (d, n)).astype(np.float64)
def ln(x, g, b, axis, eps):
    ax = tuple(range(axis, x.ndim))
    m = x.mean(ax, keepdims=True)
    v = ((x - m) ** 2).mean(ax, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b
want = [ln(L("x"), L("gx"), L("bx"), 2, 1e-5), ln(L("y"), L("gy"), L("by"), 1, 0.25),
        ln(L("z"), L("gz"), L("bz"), 1, 1e-5),
        ln(np.exp(np.load(d + "/p.npy")).astype(np.float64), L("gp"), L("bp"), 1, 1e-5)]
for dev in ("cpu", "gpu", "tex"):
    for mode in ("fuse", "no-tile"):
        for i, w in enumerate(want):
            got = np.load("%s/got.%s.%s/%d.npy" % (d, dev, mode, i))
            assert np.allclose(got, w, rtol=1e-5, atol=2e-6), (dev, mode, i, np.abs(got - w).max())
PY
}

@test "run_ocl: a split k's slices added by each tile's last work group equal the epilogue kernel's to the bit, run after run, on gpu and texture gpu (issue 23)" {
	local d=$BATS_TEST_TMPDIR f=$BATS_TEST_DIRNAME/ir-lower/gpu_tiles_nchw.ir dev form r
	args=$("$PY" "$H" inputs "$f" "$d")
	for dev in gpu tex; do
		retarget $dev "$f" > "$d/$dev.ir"
		compiled "$d/$dev.ir" "$d/$dev.fused.ir"
		compiled "$d/$dev.ir" "$d/$dev.kernel.ir" --split-k-kernel
		grep -q 'atomic_add(&count1\[' "$d/$dev.fused.ir"
		[ "$(grep -c atomic_add "$d/$dev.kernel.ir")" = 0 ]
		mkdir "$d/$dev.ref" "$d/$dev.kernel" "$d/$dev.exec" "$d/$dev.walk"
		ir-run --interp $args -o "$d/$dev.ref" "$d/$dev.fused.ir"
		run -0 --separate-stderr ir-run --stats $args -o "$d/$dev.kernel" "$d/$dev.kernel.ir"
		[[ "$stderr" == *"(4 launches, "* ]]
		# three runs in one process (a warm-up and 2): the counters are
		# zero again after each, in the executor's plan and in the walk
		run -0 --separate-stderr ir-run --repeat 2 --stats $args -o "$d/$dev.exec" "$d/$dev.fused.ir"
		[[ "$stderr" == *"(3 launches, "* ]]
		run -0 --separate-stderr ir-run --check --repeat 2 $args -o "$d/$dev.walk" "$d/$dev.fused.ir"
		[[ "$stderr" == *"--check: 9 calls of prims equal the interpreter's"* ]]
		for form in exec walk; do
			for r in "$d/$dev.kernel"/*.npy; do
				cmp "$r" "$d/$dev.$form/$(basename "$r")"
			done
		done
		"$PY" "$H" same "$d/$dev.exec" "$d/$dev.ref"
	done
}

@test "run_ocl: atomic_add counts every work group once and a zeroed counter the last one resets starts each run at zero, planned and walked (issue 23)" {
	local d=$BATS_TEST_TMPDIR mode
	cat > "$d/count.ir" <<'IR'
device @gpu = gpu(0)

prim @count(%out: i32[64] @gpu) {
  alloc %c: i32[1] @gpu:global {zeroed=true}
  kernel @k {
    for %bx in 0..64 bind(blockIdx.x) {
      for %tx in 0..1 bind(threadIdx.x) {
        mem_fence()
        let %seen: i32 = atomic_add(%c[0], 1)
        %out[%bx] = %seen
        if %seen == 63 {
          %c[0] = 0
        }
      }
    }
  }
}

fn @main() -> i32[64] {
  %y = call_lowered @count()
  return %y
}
IR
	ir-codegen-ocl "$d/count.ir" > "$d/count.ocl.ir"
	grep -q '^|   mem_fence(CLK_GLOBAL_MEM_FENCE);$' "$d/count.ocl.ir"
	grep -q '^|   const int seen = atomic_add(&c\[0\], 1);$' "$d/count.ocl.ir"
	# the executor's plan, then the interpreter's walk with OpenCL kernels;
	# each 3 runs: the groups of each run see 0 to 63, in any order
	for mode in --stats --no-keep-constants; do
		ir-run --repeat 2 $mode -o "$d/o$mode.npy" "$d/count.ocl.ir"
		"$PY" -c "import numpy as np, sys; v = np.sort(np.load(sys.argv[1])); assert (v == np.arange(64)).all(), v" "$d/o$mode.npy"
	done
}
