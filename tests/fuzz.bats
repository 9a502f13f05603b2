#!/usr/bin/env bats
# Inputs the fuzzer (make fuzz, tests/fuzz/fuzz_parse.c) once crashed on:
# each must now be diagnosed (exit 1) or accepted (exit 0), never crash;
# the sanitizer run of make check catches what a crash would not show.

setup() {
	load test_helper
}

survives() {
	local f=$1 rc
	for tool in ir-parse ir-plan-devices ir-flatten-texture; do
		rc=0
		"$tool" "$f" > /dev/null 2>&1 || rc=$?
		if [ "$rc" -gt 1 ]; then
			echo "$tool $f: exit $rc"
			return 1
		fi
	done
}

@test "fuzz: a function opened inside another frees its name table (leak)" {
	survives "$BATS_TEST_DIRNAME/fuzz/crashes/nested-fn-leak.ir"
}

@test "fuzz: closing a block after a nested function replaced the names (null)" {
	survives "$BATS_TEST_DIRNAME/fuzz/crashes/kill-defs-after-nested-fn.ir"
}

@test "fuzz: an empty constant list before any number was read (UB)" {
	survives "$BATS_TEST_DIRNAME/fuzz/crashes/empty-const-list.ir"
}

@test "fuzz: an arm yielding an on_device that planning removes yields its operand" {
	local f="$BATS_TEST_DIRNAME/fuzz/crashes/yield-of-removed-on-device.ir"
	survives "$f"
	ir-plan-devices "$f" > "$BATS_TEST_TMPDIR/p.ir"
	ir-parse "$BATS_TEST_TMPDIR/p.ir" > /dev/null
	ir-plan-devices "$BATS_TEST_TMPDIR/p.ir" | cmp - "$BATS_TEST_TMPDIR/p.ir"
}

@test "fuzz: a memory-planned module is refused by ir-plan-devices, not planned into one that does not verify" {
	local f="$BATS_TEST_DIRNAME/fuzz/crashes/memory-planned.ir"
	survives "$f"
	run -1 --separate-stderr ir-plan-devices "$f"
	assert_equal "$output" ""
	assert_equal "${stderr_lines[0]}" "$f:33:78: error: the module has a memory plan: run ir-plan-devices before ir-plan-memory"
}

# The campaigns of `make fuzz`, briefly: the harnesses themselves run in
# make check as tests/unit/fuzz_smoke_test.

@test "fuzz: mutants of the test files through every tool" {
	have_python numpy || skip "python3-numpy is not installed"
	run "$PY" "$BATS_TEST_DIRNAME/fuzz/mutate.py" --seed 1 --count 40 --jobs 2 \
		--bin "$IRPIPE_BIN" --out "$BATS_TEST_TMPDIR/mutants"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "fuzz: a tool that crashes on a mutant fails the campaign, with the seed" {
	have_python numpy || skip "python3-numpy is not installed"
	mkdir "$BATS_TEST_TMPDIR/bin"
	for t in "$IRPIPE_BIN"/ir-*; do
		[ "${t##*/}" = ir-lower ] || ln -s "$t" "$BATS_TEST_TMPDIR/bin/"
	done
	printf '#!/bin/sh\nkill -SEGV $$\n' > "$BATS_TEST_TMPDIR/bin/ir-lower"
	chmod +x "$BATS_TEST_TMPDIR/bin/ir-lower"
	run "$PY" "$BATS_TEST_DIRNAME/fuzz/mutate.py" --seed 5 --count 2 --jobs 1 \
		--bin "$BATS_TEST_TMPDIR/bin" --out "$BATS_TEST_TMPDIR/mutants"
	[ "$status" -eq 1 ]
	[[ "$output" == *"mutate: FAIL seed 5 "*"ir-lower"*"exit status -11"* ]]
	[ -f "$BATS_TEST_TMPDIR/mutants/mutant-5.ir" ]
}

@test "fuzz: check.py --corpus writes every stage of the random models, memory-planned and OpenCL C included, for make fuzz's seeds" {
	have_python numpy || skip "python3-numpy is not installed"
	local c=$BATS_TEST_TMPDIR/c s k
	run "$PY" "$BATS_TEST_DIRNAME/gen/check.py" --seed 3 --count 2 --jobs 2 \
		--bin "$IRPIPE_BIN" --corpus "$c"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(ls "$c" | wc -l)" = 18 ]
	for s in 3 4; do
		for k in model s1 s2 s3 s4 s5 p5 o1 o2; do
			ir-parse "$c/seed$s-$k.ir" > /dev/null
		done
		grep -Eq ' in (@|image2d\()' "$c/seed$s-p5.ir"
		grep -Eq ' in (@|image2d\()' "$c/seed$s-o2.ir"
		grep -q '^program @' "$c/seed$s-o1.ir"
		grep -q '^program @' "$c/seed$s-o2.ir"
	done
}
