#!/usr/bin/env bats
# Graph-level operators: the inferred result type of each operator, and the
# diagnostics for bad attributes, operands and shapes.
# The error cases are in tests/ir-parse/invalid-ops.ir, each diagnostic
# pinned to its line, column and message by --verify-diagnostics.

setup() {
	load test_helper
}

@test "ops: add broadcasts NumPy style" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,1,4], %y: f32[3,1]) {
  %0 = add(%x, %y)
  return %0
}
IR
	assert_output --partial '%0: f32[2,3,4]'
}

@test "ops: subtract with an int literal takes the tensor's type" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,3]) {
  %0 = subtract(%x, 1)
  return %0
}
IR
	assert_output --partial '%0: f32[1,3]'
}

@test "ops: multiply" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f16[4], %y: f16[4]) {
  %0 = multiply(%x, %y)
  return %0
}
IR
	assert_output --partial '%0: f16[4]'
}

@test "ops: divide with a float literal first" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,2]) {
  %0 = divide(2.5, %x)
  return %0
}
IR
	assert_output --partial '%0: f32[2,2]'
}

@test "ops: maximum of two int literals is i32[]" {
	run -0 ir-parse - <<'IR'
fn @main() {
  %0 = maximum(1, 2)
  return %0
}
IR
	assert_output --partial '%0: i32[]'
}

@test "ops: minimum of two float literals is f32[]" {
	run -0 ir-parse - <<'IR'
fn @main() {
  %0 = minimum(1.5, 2.5)
  return %0
}
IR
	assert_output --partial '%0: f32[]'
}

@test "ops: power" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[3], %y: f32[1]) {
  %0 = power(%x, %y)
  return %0
}
IR
	assert_output --partial '%0: f32[3]'
}

@test "ops: negative" {
	run -0 ir-parse - <<'IR'
fn @main(%x: i32[3]) {
  %0 = negative(%x)
  return %0
}
IR
	assert_output --partial '%0: i32[3]'
}

@test "ops: exp" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,3]) {
  %0 = exp(%x)
  return %0
}
IR
	assert_output --partial '%0: f32[2,3]'
}

@test "ops: log" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f64[2]) {
  %0 = log(%x)
  return %0
}
IR
	assert_output --partial '%0: f64[2]'
}

@test "ops: sqrt" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f16[5]) {
  %0 = sqrt(%x)
  return %0
}
IR
	assert_output --partial '%0: f16[5]'
}

@test "ops: rsqrt" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[5]) {
  %0 = rsqrt(%x)
  return %0
}
IR
	assert_output --partial '%0: f32[5]'
}

@test "ops: sigmoid" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[5]) {
  %0 = sigmoid(%x)
  return %0
}
IR
	assert_output --partial '%0: f32[5]'
}

@test "ops: tanh" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[5]) {
  %0 = tanh(%x)
  return %0
}
IR
	assert_output --partial '%0: f32[5]'
}

@test "ops: erf, hard_sigmoid (alpha, beta: ONNX's defaults 0.2, 0.5) and hard_swish keep the float type" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f16[5], %y: f64[2,3]) {
  %0 = erf(%x)
  %1 = hard_sigmoid(%y) {alpha=0.25, beta=1}
  %2 = hard_sigmoid(%0)
  %3 = hard_swish(%y)
  %t = (%2, %1, %3)
  return %t
}
IR
	assert_output --partial '%0: f16[5] = erf(%x)'
	assert_output --partial '%1: f64[2,3] = hard_sigmoid(%y) {alpha=0.25, beta=1}'
	assert_output --partial '%2: f16[5] = hard_sigmoid(%0)'
	assert_output --partial '%3: f64[2,3] = hard_swish(%y)'
}

@test "ops: erf, hard_sigmoid and hard_swish refuse integers; hard_sigmoid's alpha and beta are finite numbers" {
	cat > "$BATS_TEST_TMPDIR/e.ir" <<'IR'
fn @main(%x: i32[2], %f: f32[2]) {
  // expected-error@+1:3 {{erf: needs a floating-point operand, not i32[2] (cast it first)}}
  %0 = erf(%x)
  // expected-error@+1:3 {{hard_swish: needs a floating-point operand, not i32[2] (cast it first)}}
  %1 = hard_swish(%x)
  // expected-error@+1:3 {{hard_sigmoid: needs a floating-point operand, not i32[2] (cast it first)}}
  %2 = hard_sigmoid(%x)
  // expected-error@+1:32 {{'alpha' of hard_sigmoid must be a number, not a string}}
  %3 = hard_sigmoid(%f) {alpha="x"}
  // expected-error@+1:31 {{'beta' of hard_sigmoid must be a finite number}}
  %4 = hard_sigmoid(%f) {beta=1e400}
  // expected-error@+2:26 {{unknown attribute 'gamma' for hard_sigmoid}}
  // expected-note@+1:26 {{hard_sigmoid takes: alpha, beta}}
  %5 = hard_sigmoid(%f) {gamma=1.0}
  return %f
}
IR
	run -0 ir-parse --verify-diagnostics "$BATS_TEST_TMPDIR/e.ir"
}

@test "ops: sin, cos, asin, acos and atan keep the float type and refuse integers" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f16[5], %y: f64[2,3]) {
  %0 = sin(%x)
  %1 = cos(%y)
  %2 = asin(%x)
  %3 = acos(%y)
  %4 = atan(%x)
  %t = (%0, %1, %2, %3, %4)
  return %t
}
IR
	assert_output --partial '%0: f16[5] = sin(%x)'
	assert_output --partial '%1: f64[2,3] = cos(%y)'
	assert_output --partial '%2: f16[5] = asin(%x)'
	assert_output --partial '%3: f64[2,3] = acos(%y)'
	assert_output --partial '%4: f16[5] = atan(%x)'
	cat > "$BATS_TEST_TMPDIR/e.ir" <<'IR'
fn @main(%x: i32[2]) {
  // expected-error@+1:3 {{sin: needs a floating-point operand, not i32[2] (cast it first)}}
  %0 = sin(%x)
  // expected-error@+1:3 {{cos: needs a floating-point operand, not i32[2] (cast it first)}}
  %1 = cos(%x)
  // expected-error@+1:3 {{atan: needs a floating-point operand, not i32[2] (cast it first)}}
  %2 = atan(%x)
  return %x
}
IR
	run -0 ir-parse --verify-diagnostics "$BATS_TEST_TMPDIR/e.ir"
}

@test "ops: nn.relu" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,8]) {
  %0 = nn.relu(%x)
  return %0
}
IR
	assert_output --partial '%0: f32[1,8]'
}

@test "ops: clip takes int and float bounds" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[4]) {
  %0 = clip(%x) {a_min=0, a_max=6.0}
  return %0
}
IR
	assert_output --partial '%0: f32[4]'
}

@test "ops: cast" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,3]) {
  %0 = cast(%x) {dtype="f16"}
  return %0
}
IR
	assert_output --partial '%0: f16[2,3]'
}

@test "ops: cast takes TVM's dtype names" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,3]) {
  %0 = cast(%x) {dtype="int8"}
  return %0
}
IR
	assert_output --partial '%0: i8[2,3]'
}

@test "ops: nn.conv2d NCHW with padding" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,3,32,32], %w: f32[16,3,3,3]) {
  %0 = nn.conv2d(%x, %w) {padding=[1,1,1,1], strides=[1,1]}
  return %0
}
IR
	assert_output --partial '%0: f32[1,16,32,32]'
}

@test "ops: nn.conv2d strides and 2-value padding" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,3,32,32], %w: f32[16,3,3,3]) {
  %0 = nn.conv2d(%x, %w) {padding=[1,2], strides=[2,2]}
  return %0
}
IR
	assert_output --partial '%0: f32[1,16,16,17]'
}

@test "ops: nn.conv2d TVM 4-value padding is top, left, bottom, right" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,3,32,32], %w: f32[16,3,3,3]) {
  %0 = nn.conv2d(%x, %w) {padding=[1,0,0,0]}
  return %0
}
IR
	assert_output --partial '%0: f32[1,16,31,30]'
}

@test "ops: nn.conv2d dilation" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,3,32,32], %w: f32[16,3,3,3]) {
  %0 = nn.conv2d(%x, %w) {dilation=[2,2]}
  return %0
}
IR
	assert_output --partial '%0: f32[1,16,28,28]'
}

@test "ops: nn.conv2d NCHW4c with OIHW4o" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,8,56,56,4], %w: f32[32,32,3,3,4]) {
  %0 = nn.conv2d(%x, %w) {data_layout="NCHW4c", kernel_layout="OIHW4o", padding=[1,1,1,1]}
  return %0
}
IR
	assert_output --partial '%0: f32[1,32,56,56,4]'
}

@test "ops: nn.conv2d NCHW with OIHW4o gives NCHW" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,8,8,8], %w: f32[4,8,1,1,4]) {
  %0 = nn.conv2d(%x, %w) {kernel_layout="OIHW4o"}
  return %0
}
IR
	assert_output --partial '%0: f32[1,16,8,8]'
}

@test "ops: nn.conv2d depthwise" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,64,112,112], %w: f32[64,1,3,3]) {
  %0 = nn.conv2d(%x, %w) {groups=64, padding=[1,1,1,1], strides=[2,2]}
  return %0
}
IR
	assert_output --partial '%0: f32[1,64,56,56]'
}

@test "ops: nn.conv2d grouped" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,8,8,8], %w: f32[16,4,3,3]) {
  %0 = nn.conv2d(%x, %w) {groups=2, channels=16, kernel_size=[3,3]}
  return %0
}
IR
	assert_output --partial '%0: f32[1,16,6,6]'
}

@test "ops: nn.conv2d out_dtype" {
	run -0 ir-parse - <<'IR'
fn @main(%x: i8[1,8,8,8], %w: i8[16,8,1,1]) {
  %0 = nn.conv2d(%x, %w) {out_dtype="i32"}
  return %0
}
IR
	assert_output --partial '%0: i32[1,16,8,8]'
}

@test "ops: nn.dense" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,5,64], %w: f32[10,64]) {
  %0 = nn.dense(%x, %w) {units=10}
  return %0
}
IR
	assert_output --partial '%0: f32[2,5,10]'
}

@test "ops: nn.dense with a packed weight, weight_layout NC<n>n: [N/n,K,n]" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,5,64], %w: f32[3,64,32]) {
  %0 = nn.dense(%x, %w) {units=96, weight_layout="NC32n"}
  return %0
}
IR
	assert_output --partial '%0: f32[2,5,96]'
}

@test "ops: nn.batch_matmul transposes y by default" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,3,4], %y: f32[2,5,4]) {
  %0 = nn.batch_matmul(%x, %y)
  return %0
}
IR
	assert_output --partial '%0: f32[2,3,5]'
}

@test "ops: nn.batch_matmul transpose_b=false and batch broadcast" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,3,4], %y: f32[6,4,5]) {
  %0 = nn.batch_matmul(%x, %y) {transpose_b=false}
  return %0
}
IR
	assert_output --partial '%0: f32[6,3,5]'
}

@test "ops: nn.bias_add" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,16,8,8], %b: f32[16]) {
  %0 = nn.bias_add(%x, %b)
  return %0
}
IR
	assert_output --partial '%0: f32[1,16,8,8]'
}

@test "ops: nn.bias_add negative axis" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,8,8,16], %b: f32[16]) {
  %0 = nn.bias_add(%x, %b) {axis=-1}
  return %0
}
IR
	assert_output --partial '%0: f32[1,8,8,16]'
}

@test "ops: nn.max_pool2d" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,3,32,32]) {
  %0 = nn.max_pool2d(%x) {pool_size=[2,2], strides=[2,2]}
  return %0
}
IR
	assert_output --partial '%0: f32[1,3,16,16]'
}

@test "ops: nn.max_pool2d ceil_mode" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,3,7,7]) {
  %0 = nn.max_pool2d(%x) {ceil_mode=true, pool_size=[2,2], strides=[2,2]}
  return %0
}
IR
	assert_output --partial '%0: f32[1,3,4,4]'
}

@test "ops: nn.avg_pool2d NCHW4c" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,2,8,8,4]) {
  %0 = nn.avg_pool2d(%x) {count_include_pad=true, layout="NCHW4c", padding=[1,1], pool_size=[3,3]}
  return %0
}
IR
	assert_output --partial '%0: f32[1,2,8,8,4]'
}

@test "ops: nn.global_avg_pool2d" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,2,7,7,4]) {
  %0 = nn.global_avg_pool2d(%x) {layout="NCHW4c"}
  return %0
}
IR
	assert_output --partial '%0: f32[1,2,1,1,4]'
}

@test "ops: nn.softmax" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,10]) {
  %0 = nn.softmax(%x)
  return %0
}
IR
	assert_output --partial '%0: f32[2,10]'
}

@test "ops: nn.layer_norm normalizes axis..rank-1 (default the last), gamma and beta of their shape" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,3,5], %g: f32[5], %g2: f32[3,5], %h: f16[4,6], %gh: f16[6]) {
  %0 = nn.layer_norm(%x, %g, %g)
  %1 = nn.layer_norm(%x, %g2, %g2) {axis=-2, epsilon=0.001}
  %2 = nn.layer_norm(%h, %gh, %gh) {axis=1}
  return %0
}
IR
	assert_output --partial '%0: f32[2,3,5] = nn.layer_norm(%x, %g, %g)'
	assert_output --partial '%1: f32[2,3,5] = nn.layer_norm(%x, %g2, %g2) {axis=-2, epsilon=0.001}'
	assert_output --partial '%2: f16[4,6] = nn.layer_norm(%h, %gh, %gh) {axis=1}'
}

@test "ops: nn.layer_norm's errors: gamma or beta not of the normalized shape, axis, epsilon, integers, element types, arity, attribute names" {
	cat > "$BATS_TEST_TMPDIR/l.ir" <<'IR'
fn @main(%x: f32[2,3,5], %g: f32[3,5], %b: f32[5], %i: i32[2,5], %gi: i32[5], %h: f16[5]) {
  %0 = nn.layer_norm(%x, %b, %b) {axis=1}
  %1 = nn.layer_norm(%x, %g, %g) {axis=3}
  %2 = nn.layer_norm(%x, %b, %b) {epsilon=-1.0}
  %3 = nn.layer_norm(%i, %gi, %gi)
  %4 = nn.layer_norm(%x, %b, %h)
  %5 = nn.layer_norm(%x, %b)
  %6 = nn.layer_norm(%x, %b, %b) {eps=0.1}
  %7 = nn.layer_norm(%x, %g, %b) {axis=-2}
  return %0
}
IR
	run -1 --separate-stderr ir-parse "$BATS_TEST_TMPDIR/l.ir"
	[ -z "$output" ]
	[[ "$stderr" == *"l.ir:2:3: error: nn.layer_norm: gamma has type f32[5], but data f32[2,3,5] normalized over axes 1 to 2 needs f32[3,5]"* ]]
	[[ "$stderr" == *"l.ir:3:40: error: 'axis' of nn.layer_norm is 3, out of range for rank 3 (-3 to 2)"* ]]
	[[ "$stderr" == *"l.ir:4:43: error: 'epsilon' of nn.layer_norm must be a finite number, not negative (it is -1)"* ]]
	[[ "$stderr" == *"l.ir:5:3: error: nn.layer_norm: needs a floating-point operand, not i32[2,5]"* ]]
	[[ "$stderr" == *"l.ir:6:3: error: nn.layer_norm: data and beta have different element types: f32[2,3,5] and f16[5]"* ]]
	[[ "$stderr" == *"l.ir:7:3: error: 'nn.layer_norm' takes 3 operands, 2 given"* ]]
	[[ "$stderr" == *"l.ir:8:35: error: unknown attribute 'eps' for nn.layer_norm"* ]]
	[[ "$stderr" == *"note: nn.layer_norm takes: axis, epsilon"* ]]
	[[ "$stderr" == *"l.ir:9:3: error: nn.layer_norm: beta has type f32[5], but data f32[2,3,5] normalized over axes 1 to 2 needs f32[3,5]"* ]]
}

@test "ops: reshape with 0 and -1" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,3,4]) {
  %0 = reshape(%x) {newshape=[0,-1]}
  return %0
}
IR
	assert_output --partial '%0: f32[2,12]'
}

@test "ops: a list of one entry per axis longer than the rank limit says so, at the attribute" {
	local ones zeros
	ones=$(printf '1, %.0s' {1..64})1
	zeros=$(printf '0, %.0s' {1..64})0
	printf 'fn @main(%%x: f32[1]) {\n  %%0 = reshape(%%x) {newshape=[%s]}\n  %%1 = sum(%%x) {axis=[%s]}\n  return %%0\n}\n' "$ones" "$zeros" > "$BATS_TEST_TMPDIR/l.ir"
	run -1 --separate-stderr ir-parse "$BATS_TEST_TMPDIR/l.ir"
	[ -z "$output" ]
	[[ "${stderr_lines[0]}" == *"l.ir:2:30: error: 'newshape' of reshape has 65 entries, more than the 64 axes a tensor may have" ]]
	[[ "${stderr_lines[3]}" == *"l.ir:3:22: error: 'axis' of sum has 65 entries, more than the 64 axes a tensor may have" ]]
}

@test "ops: transpose reverses by default" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,3,4]) {
  %0 = transpose(%x)
  return %0
}
IR
	assert_output --partial '%0: f32[4,3,2]'
}

@test "ops: transpose axes" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,3,4]) {
  %0 = transpose(%x) {axes=[0,2,1]}
  return %0
}
IR
	assert_output --partial '%0: f32[2,4,3]'
}

@test "ops: comparisons broadcast and give bool; logic takes bool; where takes x's type" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,1,4], %y: f32[3,1], %c: bool[4]) {
  %0 = less(%x, %y)
  %1 = equal(%x, 0.5)
  %2 = logical_and(%0, %c)
  %3 = logical_not(%c)
  %4 = where(%c, %y, 0.0)
  %5 = where(%0, 1, 0)
  return %0
}
IR
	assert_output --partial '%0: bool[2,3,4]'
	assert_output --partial '%1: bool[2,1,4]'
	assert_output --partial '%2: bool[2,3,4]'
	assert_output --partial '%3: bool[4]'
	assert_output --partial '%4: f32[3,4]'
	assert_output --partial '%5: i32[2,3,4]'
}

@test "ops: argmax and argmin reduce to an i32 index" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f16[2,3,4]) {
  %0 = argmax(%x) {axis=[1]}
  %1 = argmin(%x) {axis=[0, 2], keepdims=true, select_last_index=true}
  %2 = argmax(%x)
  return %0
}
IR
	assert_output --partial '%0: i32[2,4]'
	assert_output --partial '%1: i32[1,3,1]'
	assert_output --partial '%2: i32[]'
}

@test "ops: max and min reduce like sum" {
	run -0 ir-parse - <<'IR'
fn @main(%x: i16[2,3,4]) {
  %0 = max(%x) {axis=[1]}
  %1 = min(%x) {axis=[0, 2], keepdims=true}
  %2 = max(%x)
  return %0
}
IR
	assert_output --partial '%0: i16[2,4]'
	assert_output --partial '%1: i16[1,3,1]'
	assert_output --partial '%2: i16[]'
}

@test "ops: strided_slice reads begin, end and strides as ONNX's Slice (negative, clamped)" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[10,6,4]) {
  %0 = strided_slice(%x) {begin=[-1, 1], end=[-9223372036854775807, 100], strides=[-3, 2]}
  %1 = strided_slice(%x) {axes=[2], begin=[1], end=[-1]}
  %2 = strided_slice(%x) {begin=[5], end=[2]}
  return %0
}
IR
	assert_output --partial '%0: f32[4,3,4]'
	assert_output --partial '%1: f32[10,6,2]'
	assert_output --partial '%2: f32[0,6,4]'
}

@test "ops: nn.pad adds before and after each axis, in every mode" {
	run -0 ir-parse - <<'IR'
fn @main(%x: i32[2,3]) {
  %0 = nn.pad(%x) {pad_width=[1, 0, 2, 3], pad_value=-5}
  %1 = nn.pad(%x) {pad_mode="edge", pad_width=[4, 4, 0, 0]}
  %2 = nn.pad(%x) {pad_mode="reflect", pad_width=[1, 1, 2, 2]}
  return %0
}
IR
	assert_output --partial '%0: i32[3,8]'
	assert_output --partial '%1: i32[10,3]'
	assert_output --partial '%2: i32[4,7]'
}

@test "ops: layout_transform NCHW to NCHW4c" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,32,720,1280]) {
  %0 = layout_transform(%x) {dst_layout="NCHW4c", src_layout="NCHW"}
  return %0
}
IR
	assert_output --partial '%0: f32[1,8,720,1280,4]'
}

@test "ops: layout_transform NCHW4c to NHWC" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,2,4,5,4]) {
  %0 = layout_transform(%x) {dst_layout="NHWC", src_layout="NCHW4c"}
  return %0
}
IR
	assert_output --partial '%0: f32[1,4,5,8]'
}

@test "ops: layout_transform OIHW to OIHW4o" {
	run -0 ir-parse - <<'IR'
fn @main(%w: f32[16,3,3,3]) {
  %0 = layout_transform(%w) {dst_layout="OIHW4o", src_layout="OIHW"}
  return %0
}
IR
	assert_output --partial '%0: f32[4,3,3,3,4]'
}

@test "ops: concatenate takes a tuple" {
	run -0 ir-parse - <<'IR'
fn @main(%a: f32[1,2], %b: f32[1,3]) {
  %t = (%a, %b)
  %0 = concatenate(%t) {axis=1}
  return %0
}
IR
	assert_output --partial '%0: f32[1,5]'
}

@test "ops: split into sections" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[4,6]) {
  %0 = split(%x) {indices_or_sections=3, axis=1}
  return %0
}
IR
	assert_output --partial '%0: (f32[4,2], f32[4,2], f32[4,2])'
}

@test "ops: split at indices" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[4,6]) {
  %0 = split(%x) {indices_or_sections=[1,3], axis=-1}
  return %0
}
IR
	assert_output --partial '%0: (f32[4,1], f32[4,2], f32[4,3])'
}

@test "ops: squeeze all size-1 axes" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,3,1,2]) {
  %0 = squeeze(%x)
  return %0
}
IR
	assert_output --partial '%0: f32[3,2]'
}

@test "ops: squeeze named axes" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[1,3,1,2]) {
  %0 = squeeze(%x) {axis=[-2]}
  return %0
}
IR
	assert_output --partial '%0: f32[1,3,2]'
}

@test "ops: expand_dims" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,3]) {
  %0 = expand_dims(%x) {axis=1, num_newaxis=2}
  return %0
}
IR
	assert_output --partial '%0: f32[2,1,1,3]'
}

@test "ops: sum over all axes" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,3,4]) {
  %0 = sum(%x)
  return %0
}
IR
	assert_output --partial '%0: f32[]'
}

@test "ops: sum keepdims" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,3,4]) {
  %0 = sum(%x) {axis=[1], keepdims=true}
  return %0
}
IR
	assert_output --partial '%0: f32[2,1,4]'
}

@test "ops: mean exclude" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,3,4]) {
  %0 = mean(%x) {axis=[1], exclude=true}
  return %0
}
IR
	assert_output --partial '%0: f32[3]'
}

@test "invalid-ops.ir: graph-level operators" { expect_diagnostics ir-parse invalid-ops.ir; }
