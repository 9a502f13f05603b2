#!/usr/bin/env bats
# Every tool takes every rank the format allows (64), not only the small
# ones the passes were written for: no fixed array may be shorter.

setup() {
	load test_helper
}

# dims N LAST...: N-(number of LAST) ones, then LAST, comma-separated.
dims() {
	local n=$1 i out=''
	shift
	for ((i = 0; i < n - $#; i++)); do out+='1,'; done
	local IFS=,
	printf '%s' "$out$*"
}

# vals N: a [list] of N values, exact in binary so that any order of
# summation gives the same bits.
vals() {
	local i out=''
	for ((i = 0; i < $1; i++)); do out+="${out:+, }$((i % 7 - 3)).5"; done
	printf '[%s]' "$out"
}

# through FILE: the pipeline to the loop level and the interpreter on
# both levels, which must agree; every stage's output re-parses.
through() {
	local f=$1 t=$BATS_TEST_TMPDIR
	ir-plan-devices "$f" > "$t/planned.ir"
	ir-lower "$t/planned.ir" > "$t/lowered.ir"
	ir-parse "$t/lowered.ir" | diff -u "$t/lowered.ir" -
	ir-plan-devices "$t/lowered.ir" > "$t/replanned.ir"
	ir-run --interp -o "$t/graph" "$t/planned.ir"
	ir-run --interp -o "$t/loop" "$t/replanned.ir"
	diff -r "$t/graph" "$t/loop"
}

# model DEVICE RANK: operators over a rank-RANK tensor, from constants so
# that no input is needed; every value is exact in binary (softmax's of
# equal values too), so both interpreters give the same bits.
model() {
	local x
	x=$(dims "$2" 2 3 2)
	cat <<IR
device @d = $1
fn @main() {
  %x = const f32[$x] $(vals 12)
  %y = const f32[2,1,2] $(vals 4)
  %w = const f32[4,2] $(vals 8)
  %0 = add(%x, %y)
  %1 = transpose(%0)
  %2 = sum(%1) {axis=[0, 1], keepdims=true}
  %3 = mean(%0) {axis=[-1]}
  %t = (%0, %0)
  %4 = concatenate(%t) {axis=-2}
  %5 = split(%4) {indices_or_sections=2, axis=-2}
  %6 = %5.0
  %z = multiply(%6, 0.0)
  %7 = nn.softmax(%z) {axis=-1}
  %8 = reshape(%6) {newshape=[-1, 2]}
  %9 = nn.dense(%8, %w)
  %10 = squeeze(%0)
  %11 = expand_dims(%3) {axis=0, num_newaxis=1}
  %12 = nn.dense(%6, %w)
  %r = (%2, %7, %9, %10, %11, %12)
  return %r
}
IR
}

@test "ranks: rank 17 (one above ir-lower's old limit) lowers" {
	# the issue's reproducer: 17 dimensions copied into an array of 16
	model 'cpu(0)' 17 > "$BATS_TEST_TMPDIR/m.ir"
	through "$BATS_TEST_TMPDIR/m.ir"
}

@test "ranks: rank 64 lowers and runs on a cpu, a gpu and a texture gpu" {
	local d
	for d in 'cpu(0)' 'gpu(0)' 'gpu(0) {texture=true}'; do
		model "$d" 64 > "$BATS_TEST_TMPDIR/m.ir"
		through "$BATS_TEST_TMPDIR/m.ir"
	done
}

@test "ranks: 30 axes of 2 make 30 nested loops, in every tool" {
	cat > "$BATS_TEST_TMPDIR/m.ir" <<IR
device @d = gpu(0)
fn @main() {
  %x = const f32[$(dims 64 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2)] [1.0]
  %0 = negative(%x)
  %1 = sum(%0) {axis=[-1, 40]}
  %2 = nn.softmax(%1) {axis=-3}
  return %2
}
IR
	ir-plan-devices "$BATS_TEST_TMPDIR/m.ir" | ir-lower > "$BATS_TEST_TMPDIR/l.ir"
	ir-parse "$BATS_TEST_TMPDIR/l.ir" | diff -u "$BATS_TEST_TMPDIR/l.ir" -
	ir-plan-devices "$BATS_TEST_TMPDIR/l.ir" > /dev/null
}

@test "ranks: rank 65 is refused at the type, by every tool" {
	local t
	printf 'fn @main(%%x: f32[%s]) {\n  return %%x\n}\n' "$(dims 65 1)" > "$BATS_TEST_TMPDIR/m.ir"
	for t in ir-parse ir-plan-devices ir-lower ir-flatten-texture 'ir-run --interp'; do
		run -1 --separate-stderr $t "$BATS_TEST_TMPDIR/m.ir"
		[ -z "$output" ]
		[[ "$stderr" == *"m.ir:1:14: error: tensor rank 65 exceeds the limit of 64"* ]]
	done
}

@test "ranks: a rank-0 buffer is indexed as %p[], which every tool reads back" {
	cat > "$BATS_TEST_TMPDIR/m.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[4], %s: f32[]) {
  %0 = add(%x, %s)
  %1 = sum(%0)
  %c = const f32[] 2.5
  %2 = multiply(%1, %c)
  return %2
}
IR
	ir-plan-devices "$BATS_TEST_TMPDIR/m.ir" | ir-lower > "$BATS_TEST_TMPDIR/l.ir"
	run -0 cat "$BATS_TEST_TMPDIR/l.ir"
	assert_line --partial '= %p0[%r1] + %p1[]'
	assert_line --partial '= %p0[] * %p1[]'
	assert_line --regexp '^ +%out\[\] = '
	ir-parse "$BATS_TEST_TMPDIR/l.ir" | diff -u "$BATS_TEST_TMPDIR/l.ir" -
	ir-plan-devices "$BATS_TEST_TMPDIR/l.ir" > "$BATS_TEST_TMPDIR/p.ir"
	ir-lower "$BATS_TEST_TMPDIR/p.ir" | diff -u "$BATS_TEST_TMPDIR/p.ir" -
}

@test "ranks: a rank-1 buffer indexed as %b[] is an error (invalid-ranks.ir)" {
	expect_diagnostics ir-parse invalid-ranks.ir
}
