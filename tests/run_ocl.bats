#!/usr/bin/env bats
# ir-run on OpenCL devices (POCL here): every model and lowering test module
# on cpu, gpu and texture gpu, fused, unfused and untiled, equals the
# reference interpreter; device selection and errors in words.

setup() {
	load test_helper
	bats_require_minimum_version 1.5.0
	ocl_setup
}

@test "run_ocl: every model and lowering module x cpu, gpu, texture gpu x fuse, no-fuse, no-tile equals the interpreter" {
	local d=$BATS_TEST_TMPDIR f n dev mode opt args out count=0
	for f in "$BATS_TEST_DIRNAME"/ir-lower/*.ir "$BATS_TEST_DIRNAME"/ir-run/*.ir; do
		n=$(basename "$(dirname "$f")")-$(basename "$f" .ir)
		mkdir -p "$d/$n"
		args=$("$PY" "$H" inputs "$f" "$d/$n")
		for dev in cpu gpu tex; do
			retarget $dev "$f" > "$d/$n.$dev.ir"
			for mode in fuse no-fuse no-tile; do
				opt=
				[ $mode = fuse ] || opt=--$mode
				out=$d/$n.$dev.$mode
				# a tuple result is written to a folder
				if grep -q -- '-> (' "$f"; then mkdir -p "$out.ref" "$out.ocl"; fi
				compiled "$d/$n.$dev.ir" "$out.ir" $opt
				ir-run --interp $args -o "$out.ref" "$out.ir"
				ir-run --check $args -o "$out.ocl" "$out.ir" 2> "$out.err" ||
					{ cat "$out.err"; echo "$out: fails"; return 1; }
				"$PY" "$H" same "$out.ocl" "$out.ref" || { echo "$out: differs"; return 1; }
				count=$((count + 1))
			done
		done
	done
	echo "# $count runs" >&3
}

@test "run_ocl: a texture model uses images and matches; --repeat prints the median" {
	local d=$BATS_TEST_TMPDIR
	retarget tex "$BATS_TEST_DIRNAME/ir-lower/texture_block.ir" > "$d/t.ir"
	compiled "$d/t.ir" "$d/t.ocl.ir"
	grep -q 'image2d_t' "$d/t.ocl.ir"
	args=$("$PY" "$H" inputs "$d/t.ir" "$d")
	run -0 --separate-stderr ir-run --repeat 3 $args -o "$d/o.npy" "$d/t.ocl.ir"
	[[ "$stderr" =~ ir-run:\ 3\ runs,\ median\ [0-9.]+\ ms,\ min\ [0-9.]+\ ms$ ]]
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
	run -0 ir-run --check $args "$d/r.ir"
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
		run -0 ir-run --check "$d/$mode.ir"
		assert_output "$(cat "${f%.ir}.out")"
	done
}
