#!/usr/bin/env bats
# "did you mean" notes (lib/suggest.c, one rule for every unknown name):
# operators, attributes, devices, element types, loop kinds, intrinsics,
# on_device options, and the parameters ir-run's --input names.  Each case
# is checked with --verify-diagnostics: the error and exactly its notes.

setup() {
	load test_helper
}

# verified: ir-parse --verify-diagnostics on the module on stdin accepts
# the expected-* comments in it, and prints nothing else.
verified() {
	cat > "$BATS_TEST_TMPDIR/in.ir"
	run -0 --separate-stderr ir-parse --verify-diagnostics "$BATS_TEST_TMPDIR/in.ir"
	assert_equal "$stderr" ''
	assert_equal "$output" ''
}

@test "suggest: an operator with two letters swapped: did you mean 'nn.relu'?" {
	verified <<'IR'
fn @main(%x: f32[4]) -> f32[4] {
  // expected-error@+2:8 {{unknown operator 'nn.rleu'}}
  // expected-note@+1:8 {{did you mean 'nn.relu'?}}
  %a = nn.rleu(%x)
  return %a
}
IR
}

@test "suggest: an operator near none has no note" {
	verified <<'IR'
fn @main(%x: f32[4]) -> f32[4] {
  // expected-error@+1:8 {{unknown operator 'nn.frobnicate'}}
  %a = nn.frobnicate(%x)
  return %a
}
IR
}

@test "suggest: an attribute with a letter missing; one near none lists them all" {
	verified <<'IR'
fn @main(%x: f32[1,4,8,8]) -> f32[1,4,4,4] {
  // expected-error@+2:27 {{unknown attribute 'pool_sze' for nn.max_pool2d}}
  // expected-note@+1:27 {{did you mean 'pool_size'?}}
  %a = nn.max_pool2d(%x) {pool_sze=[2,2], strides=[2,2]}
  return %a
}
IR
	verified <<'IR'
fn @main(%x: f32[4]) -> f32[4] {
  // expected-error@+2:18 {{unknown attribute 'a_mean' for clip}}
  // expected-note@+1:18 {{clip takes: a_max, a_min}}
  %a = clip(%x) {a_mean=1.0, a_min=0.0, a_max=6.0}
  return %a
}
IR
}

@test "suggest: an undeclared device, in 'on', default and host" {
	verified <<'IR'
device @cpu0 = cpu(0)
device @gpu0 = gpu(0)
// expected-error@+2:1 {{default device '@gpu1' is not declared}}
// expected-note@+1:1 {{did you mean '@gpu0'?}}
default @gpu1
// expected-error@+2:1 {{host device '@CPU0' is not declared}}
// expected-note@+1:1 {{did you mean '@cpu0'?}}
host @CPU0
fn @main(%x: f32[4] on @cpu0) -> f32[4] {
  // expected-error@+2:3 {{unknown device '@gpu_0'}}
  // expected-note@+1:3 {{did you mean '@gpu0'?}}
  %a = on_device(%x, @gpu_0)
  return %a
}
IR
}

@test "suggest: a short device name is no typo of another: @gpu does not suggest @cpu" {
	verified <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[4]) -> f32[4] {
  // expected-error@+1:3 {{unknown device '@gpu'}}
  %a = on_device(%x, @gpu)
  return %a
}
IR
}

@test "suggest: device and pool attributes, on_device options" {
	verified <<'IR'
// expected-error@+2:21 {{unknown device attribute 'image2d_mx'}}
// expected-note@+1:21 {{did you mean 'image2d_max'?}}
device @g = gpu(0) {image2d_mx=[8, 8]}
// expected-error@+2:19 {{unknown pool attribute 'alignmnet'}}
// expected-note@+1:19 {{did you mean 'alignment'?}}
pool @p {size=64, alignmnet=16}
fn @main(%x: f32[4]) -> f32[4] {
  // expected-error@+2:26 {{unknown on_device option 'constrain_bdoy'}}
  // expected-note@+1:26 {{did you mean 'constrain_body'?}}
  %a = on_device(%x, @g, constrain_bdoy=true)
  return %a
}
IR
}

@test "suggest: element types, loop kinds and intrinsics" {
	verified <<'IR'
// expected-error@+2:14 {{unknown element type 'BOOL'}}
// expected-note@+1:14 {{did you mean 'bool'?}}
fn @main(%x: BOOL[4]) -> f32[4] {
  return %x
}
IR
	verified <<'IR'
device @cpu = cpu(0)
prim @p(%A: f32[4] @cpu) {
  // expected-error@+2:18 {{unknown loop kind 'paralel'}}
  // expected-note@+1:18 {{did you mean 'parallel'?}}
  for %i in 0..4 paralel {
    %A[%i] = 0.0
  }
}
IR
	verified <<'IR'
device @cpu = cpu(0)
prim @p(%A: f32[4] @cpu) {
  for %i in 0..4 {
    // expected-error@+2:14 {{unknown intrinsic 'sqtr'}}
    // expected-note@+1:14 {{did you mean 'sqrt'?}}
    %A[%i] = sqtr(%A[%i])
  }
}
IR
}

@test "suggest: ir-run --input X= names the parameter x" {
	printf 'fn @main(%%x: f32[2], %%w: f32[2]) -> f32[2] {\n  %%a = add(%%x, %%w)\n  return %%a\n}\n' \
		> "$BATS_TEST_TMPDIR/m.ir"
	# (a name that matches nothing is reported before any file is read)
	run -1 --separate-stderr ir-run --interp --input X="$BATS_TEST_TMPDIR/x.npy" \
		"$BATS_TEST_TMPDIR/m.ir"
	assert_equal "$output" ''
	assert_equal "${stderr_lines[0]}" "$BATS_TEST_TMPDIR/m.ir:1:1: error: --input X: @main has no parameter '%X'"
	assert_equal "${stderr_lines[3]}" "$BATS_TEST_TMPDIR/m.ir:1:10: note: did you mean 'x'?"
}
