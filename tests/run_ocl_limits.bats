#!/usr/bin/env bats
# Device limits checked against the module before anything launches
# (lib/ocl/rt_limits.c): a work group larger than the device takes and an
# image wider than its image2d maximum and a buffer larger than its largest
# allocation are refused at once, each named,
# even behind an `if` not taken, and nothing is written; a program that
# needs cl_khr_fp16 on a device without it is refused when it is built.

setup() {
	load test_helper
	bats_require_minimum_version 1.5.0
	ocl_setup
	d=$BATS_TEST_TMPDIR
	export XDG_CACHE_HOME=$d/cache
	f=$BATS_TEST_DIRNAME/ir-run-ocl/limits.ir
	ir-flatten-texture "$f" | ir-codegen-ocl > "$d/o.ir"
	args=$("$PY" "$H" inputs "$f" "$d")
	# the `if` not taken: only @ok would run
	"$PY" -c 'import numpy, sys; numpy.save(sys.argv[1], numpy.array(False))' "$d/c.npy"
}

@test "run_ocl_limits: a work group, an image and a buffer over POCL's limits are refused before anything runs" {
	run -1 --separate-stderr ir-run --device @gpu="Portable Computing" $args -o "$d/o.npy" "$d/o.ir"
	[[ "$stderr" == *"o.ir:14:24: error: kernel @big_group_k0 has work groups of 8192 items (8192 x 1 x 1); '"*"' of @gpu takes at most "* ]]
	[[ "$stderr" == *"o.ir:24:9: error: the image of '%T' is 20000 x 1 texels, too large for '"*"' of @gpu (at most "* ]]
	[[ "$stderr" == *"error: '%U' (f32[400000000000]) is 1600000000000 bytes, more than one buffer of '"*"' of @gpu can hold ("* ]]
	# refused up front: no call ran, so no error is "in the call of" one
	[[ "$stderr" != *"in the call of"* ]]
	[ ! -e "$d/o.npy" ]
}

@test "run_ocl_limits: a program that needs cl_khr_fp16 on a device without it is refused in words" {
	compiled=$d/r.ir
	ir-plan-devices "$BATS_TEST_DIRNAME/ir-lower/reduce_ends.ir" | ir-lower | ir-plan-devices \
		| ir-flatten-texture | ir-codegen-ocl > "$compiled"
	# the program's first line asks for half arithmetic
	awk '/^\| / && !done { print "| #pragma OPENCL EXTENSION cl_khr_fp16 : enable"; done=1 } {print}' \
		"$compiled" > "$d/h.ir"
	a=$("$PY" "$H" inputs "$compiled" "$d")
	run --separate-stderr ir-run $a -o "$d/h.npy" "$d/h.ir"
	[ "$status" != 0 ] || skip "this OpenCL device has cl_khr_fp16"
	[ "$status" = 1 ]
	[[ "$stderr" == *"error: the program of @"*" computes in f16, but the OpenCL device '"*"' has no fp16 (cl_khr_fp16)"* ]]
	[ ! -e "$d/h.npy" ]
}
