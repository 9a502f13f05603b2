#!/usr/bin/env bats
# ir-run's workspace pools (lib/ocl/rt_pool.c over lib/ocl/wspool.c, whose
# policy tests/unit/wspool_test.c checks without OpenCL): prim workspaces,
# image and buffer, are reused across calls and runs, an image grows once
# for alternating shapes, and results equal the interpreter's.

setup() {
	load test_helper
	bats_require_minimum_version 1.5.0
	ocl_setup
	d=$BATS_TEST_TMPDIR
	export XDG_CACHE_HOME=$d/cache
}

@test "run_ocl_pool: alternating wide and tall image workspaces grow one image once, then reuse it" {
	f=$BATS_TEST_DIRNAME/ir-run-ocl/pool_alternating.ir
	ir-flatten-texture "$f" | ir-codegen-ocl > "$d/o.ir"
	grep -q 'alloc %T: f32\[4,12,4\] @gpu:texture image2d\[12, 4\]' "$d/o.ir"
	grep -q 'alloc %T: f32\[12,4,4\] @gpu:texture image2d\[4, 12\]' "$d/o.ir"
	args=$("$PY" "$H" inputs "$f" "$d")
	mkdir "$d/ref" "$d/ocl"
	ir-run --interp $args -o "$d/ref" "$f"
	run -0 --separate-stderr ir-run --check --stats $args -o "$d/ocl" "$d/o.ir"
	# 12x4 new, 4x12 grows it to 12x12, then both shapes reuse it
	[[ "$stderr" == *"ir-run: @gpu: image workspace pool: 4 requests, 2 reused, 1 new, 1 grown; 1 held, 0.002 MiB"* ]]
	# the buffers: 768 bytes each, one serves all four calls
	[[ "$stderr" == *"ir-run: @gpu: buffer workspace pool: 4 requests, 3 reused, 1 new, 0 grown; 1 held"* ]]
	"$PY" "$H" same "$d/ocl" "$d/ref"
	# --profile says them after the device's memory line (the walk again)
	run -0 --separate-stderr ir-run --check --profile --repeat 1 $args -o "$d/ocl" "$d/o.ir"
	[[ "$stderr" == *"ir-run: memory on @gpu:"*$'\n'"ir-run: @gpu: image workspace pool: 8 requests, 6 reused, 1 new, 1 grown; 1 held"*$'\n'"ir-run: @gpu: buffer workspace pool: 8 requests, 7 reused"* ]]
	# the executor plans the workspaces with the values, once: the four
	# calls' buffers share one of 768 bytes, 10 images (inputs,
	# results, workspaces) share 4 of their sizes, and no run makes any
	run -0 --separate-stderr ir-run --stats --repeat 3 $args -o "$d/ocl" "$d/o.ir"
	[[ "$stderr" == *"plan memory: 14 objects: 4 buffers in 1 of 768 bytes, 10 images in 4 of "* ]]
	[[ "$stderr" != *"workspace pool"* ]]
	[ "$(grep -c '^ir-run: run [0-9]* made 0 memory objects and 0 kernels$' <<< "$stderr")" = 2 ]
	"$PY" "$H" same "$d/ocl" "$d/ref"
}

@test "run_ocl_pool: TVM's texture-scope prim: its image workspace comes from the pool and matches" {
	f=$BATS_TEST_DIRNAME/ir-flatten-texture/tvm_texture_scope.ir
	printf '\nfn @main(%%a: f32[128,128,4] on @gpu:texture) -> f32[128,128,4] {\n  %%c = call_lowered @texture_scope(%%a)\n  %%e = call_lowered @texture_scope(%%c)\n  return %%e\n}\n' > "$d/main.ir"
	cat "$f" "$d/main.ir" > "$d/t.ir"
	ir-flatten-texture "$d/t.ir" | ir-codegen-ocl > "$d/o.ir"
	args=$("$PY" "$H" inputs "$d/t.ir" "$d")
	ir-run --interp $args -o "$d/ref.npy" "$d/t.ir"
	run -0 --separate-stderr ir-run --check --stats $args -o "$d/o.npy" "$d/o.ir"
	[[ "$stderr" == *"image workspace pool: 2 requests, 1 reused, 1 new, 0 grown; 1 held, 0.250 MiB"* ]]
	"$PY" "$H" same "$d/o.npy" "$d/ref.npy"
}
