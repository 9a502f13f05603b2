#!/usr/bin/env bats
# ir-run on OpenCL keeps a module's constants on the device for every run
# of one process: --repeat uploads each once (in the warm-up), --stats and
# --profile say so, and the results stay the interpreter's, also with a
# memory plan and when a prim stores into a constant (never kept).

setup() {
	load test_helper
	bats_require_minimum_version 1.5.0
	ocl_setup
	FX="$BATS_TEST_DIRNAME/ir-run-ocl"
}

# consts [PLAN]: tests/ir-run-ocl/consts.ir compiled (with ir-plan-memory
# when PLAN is given) to $d/m.ir, its weight files and random inputs
# written ($args); n: how many constants its @main has
consts() {
	d=$BATS_TEST_TMPDIR
	"$PY" -c "import numpy as np; r = np.random.default_rng(3)
np.save('$d/w.npy', r.standard_normal((1, 4, 3, 3, 4)).astype(np.float32))
np.save('$d/k.npy', r.standard_normal((8, 8)).astype(np.float32))"
	ir-plan-devices "$FX/consts.ir" | ir-lower | ir-plan-devices | ir-flatten-texture \
		| if [ -n "${1:-}" ]; then ir-plan-memory; else cat; fi | ir-codegen-ocl > "$d/m.ir"
	args="$("$PY" "$H" inputs "$FX/consts.ir" "$d") --data-dir $d"
	n=$(grep -c '^  %[a-z]*: .* = const ' "$d/m.ir")
	[ "$n" -ge 3 ]
	mkdir -p "$d/ref"
	ir-run --interp $args -o "$d/ref" "$d/m.ir"
}

# host_copies PROFILE: the calls of every copy from the host, summed
host_copies() {
	awk '$1 ~ /^[0-9.]+$/ && $9 == "copy" && $10 ~ /^host->/ { n += $3 } END { print n + 0 }' <<< "$1"
}

@test "run_ocl_const: --repeat uploads each constant once and takes it from the device after; same results" {
	consts
	mkdir -p "$d/o"
	run -0 --separate-stderr ir-run --stats --repeat 3 $args -o "$d/o" "$d/m.ir"
	# four runs: one upload of each constant, the three later runs take it
	grep -Eq "^ir-run: @gpu: constants: $n uploaded \([0-9.]+ MiB\), 0 made on the device, $n kept; taken from earlier evaluations $((3 * n)) times$" <<< "$stderr"
	"$PY" "$H" same "$d/o" "$d/ref"
	# --check reads the kept constants back for the interpreter
	run -0 ir-run --check --repeat 2 $args "$d/m.ir"
}

@test "run_ocl_const: --profile over --repeat leaves the warm-up and with it every constant upload out" {
	consts
	mkdir -p "$d/o"
	# one run: the two inputs and the constants go up
	run -0 --separate-stderr ir-run --profile $args -o "$d/o" "$d/m.ir"
	[ "$(host_copies "$stderr")" = $((2 + n)) ]
	# three timed runs after the warm-up: the inputs only
	run -0 --separate-stderr ir-run --profile --repeat 3 $args -o "$d/o" "$d/m.ir"
	[ "$(host_copies "$stderr")" = 6 ]
	# the constants line counts from the warm-up, as the pools' lines do
	grep -q "^ir-run: @gpu: constants: $n uploaded " <<< "$stderr"
	"$PY" "$H" same "$d/o" "$d/ref"
	# --no-keep-constants: everything goes up in every run, same results
	rm -r "$d/o"/*
	run -0 --separate-stderr ir-run --no-keep-constants --profile --repeat 3 $args -o "$d/o" "$d/m.ir"
	[ "$(host_copies "$stderr")" = $((3 * (2 + n))) ]
	"$PY" "$H" same "$d/o" "$d/ref"
	run -2 ir-run --interp --no-keep-constants $args "$d/m.ir"
	[[ "$output" == *"--no-keep-constants runs on OpenCL devices"* ]]
}

@test "run_ocl_const: constants a memory plan puts in its pool and images are kept too, results the same" {
	consts plan
	grep -q 'const .* in @constants' "$d/m.ir"
	grep -q 'const .* in image2d' "$d/m.ir"
	mkdir -p "$d/o"
	run -0 --separate-stderr ir-run --stats --profile --repeat 3 $args -o "$d/o" "$d/m.ir"
	grep -q "^ir-run: @gpu: constants: $n uploaded .* $n kept; taken from earlier evaluations $((3 * n)) times$" <<< "$stderr"
	[ "$(host_copies "$stderr")" = 6 ]
	"$PY" "$H" same "$d/o" "$d/ref"
}

@test "run_ocl_const: a constant a prim stores into is not kept: every run starts from it again" {
	local d=$BATS_TEST_TMPDIR
	ir-codegen-ocl "$FX/const_writes.ir" > "$d/m.ir"
	args=$("$PY" "$H" inputs "$FX/const_writes.ir" "$d")
	ir-run --interp --repeat 3 $args -o "$d/ref.npy" "$d/m.ir"
	run -0 --separate-stderr ir-run --stats --repeat 3 $args -o "$d/o.npy" "$d/m.ir"
	"$PY" "$H" same "$d/o.npy" "$d/ref.npy"
	# uploaded in each of the four runs (its two calls share the upload)
	grep -q "^ir-run: @gpu: constants: 4 uploaded .* 0 kept; .*; 4 not kept: a prim stores into them$" <<< "$stderr"
}

@test "run_ocl_const: a constant a device_copy takes to the device goes up once, then the copy shares it" {
	local d=$BATS_TEST_TMPDIR
	compiled "$FX/const_copy.ir" "$d/m.ir"
	grep -q 'device_copy(%c' "$d/m.ir"
	args=$("$PY" "$H" inputs "$FX/const_copy.ir" "$d")
	ir-run --interp $args -o "$d/ref.npy" "$d/m.ir"
	run -0 --separate-stderr ir-run --stats --profile --repeat 3 $args -o "$d/o.npy" "$d/m.ir"
	"$PY" "$H" same "$d/o.npy" "$d/ref.npy"
	# the timed runs upload only %x
	[ "$(host_copies "$stderr")" = 3 ]
	grep -q "^ir-run: @gpu: constants: 1 uploaded .* 1 kept; taken from earlier evaluations 3 times$" <<< "$stderr"
}
