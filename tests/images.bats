#!/usr/bin/env bats
# Images at the loop level: the interpreter runs texture2d_load,
# texture2d_store and lane with a lane number that is not a literal, on
# the N-d buffer itself (texel (x, y) is elements (y*width + x)*4.. of it,
# the scope's convention giving the width), and checks their bounds.

setup() {
	load test_helper
}

# module BODY: a prim @p(%A in texture, %B global) of f32[2,3,4] with
# BODY, called by @main on the numbers 0..23.
module() {
	local xs i
	for ((i = 0; i < 24; i++)); do xs+="${xs:+, }$i"; done
	cat <<IR
device @gpu = gpu(0) {texture=true}
prim @p(%A: f32[2,3,4] @gpu:texture, %B: f32[2,3,4] @gpu) {
$1
}
fn @main() -> f32[2,3,4] on @gpu {
  %x: f32[2,3,4] on @gpu = const f32[2,3,4] [$xs]
  %y: f32[2,3,4] on @gpu = call_lowered @p(%x)
  return %y
}
IR
}

@test "images: a texel stored to an image alloc and read back by channel" {
	module '  alloc %T: f32[2,3,4] @gpu:texture image2d[3, 2]
  kernel @k0 {
    for %i in 0..2 bind(blockIdx.x) {
      for %j in 0..3 bind(threadIdx.x) {
        texture2d_store(%T, %j, %i, texture2d_load(%A, %j, %i) + broadcast<f32x4>(1.0))
      }
    }
  }
  kernel @k1 {
    for %i2 in 0..2 bind(blockIdx.x) {
      for %j2 in 0..3 bind(threadIdx.x) {
        for %c in 0..4 {
          %B[%i2, %j2, 3 - %c] = lane(texture2d_load(%T, %j2, %i2), %c) * 2.0
        }
      }
    }
  }' > "$BATS_TEST_TMPDIR/m.ir"
	run -0 ir-run --interp "$BATS_TEST_TMPDIR/m.ir"
	assert_output 'f32[2,3,4] [8.0, 6.0, 4.0, 2.0, 16.0, 14.0, 12.0, 10.0, 24.0, 22.0, 20.0, 18.0, 32.0, 30.0, 28.0, 26.0, 40.0, 38.0, 36.0, 34.0, 48.0, 46.0, 44.0, 42.0]'
}

@test "images: texel coordinates follow the scope: texture:weight is 2 high, 3 wide here" {
	module '  alloc %W: f32[2,3,4] @gpu:texture:weight image2d[3, 2]
  for %i in 0..2 {
    for %j in 0..3 {
      texture2d_store(%W, %j, %i, %A[%i, %j, 0:4])
      %B[%i, %j, 0:4] = texture2d_load(%W, %j, %i)
    }
  }' > "$BATS_TEST_TMPDIR/m.ir"
	run -0 ir-run --interp "$BATS_TEST_TMPDIR/m.ir"
	assert_output --partial 'f32[2,3,4] [0.0, 1.0, 2.0, 3.0, 4.0,'
}

@test "images: a texel out of the image is a located error" {
	module '  %B[0, 0, 0:4] = texture2d_load(%A, 3, 0)' > "$BATS_TEST_TMPDIR/m.ir"
	run -1 --separate-stderr ir-run --interp "$BATS_TEST_TMPDIR/m.ir"
	assert_equal "$output" ''
	assert_equal "${stderr_lines[0]}" "$BATS_TEST_TMPDIR/m.ir:3:19: error: in @p: texel x 3 is out of bounds for '%A', an image 3 wide and 2 high"
	module '  texture2d_store(%A, 0, -1, broadcast<f32x4>(0.0))' > "$BATS_TEST_TMPDIR/m.ir"
	run -1 --separate-stderr ir-run --interp "$BATS_TEST_TMPDIR/m.ir"
	assert_equal "${stderr_lines[0]}" "$BATS_TEST_TMPDIR/m.ir:3:3: error: in @p: texel y -1 is out of bounds for '%A', an image 3 wide and 2 high"
}

@test "images: a lane number out of the vector is a located error when it runs" {
	module '  for %c in 0..5 {
    %B[0, 0, 0] = lane(texture2d_load(%A, 0, 0), %c)
  }' > "$BATS_TEST_TMPDIR/m.ir"
	run -1 --separate-stderr ir-run --interp "$BATS_TEST_TMPDIR/m.ir"
	assert_equal "$output" ''
	assert_equal "${stderr_lines[0]}" "$BATS_TEST_TMPDIR/m.ir:4:19: error: in @p: lane 4 of a vector of 4 lanes"
}
