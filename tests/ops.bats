#!/usr/bin/env bats
# Graph-level operators: the inferred result type of each operator, and the
# diagnostics for bad attributes, operands and shapes.
# Each error test checks the first diagnostic line exactly
# (<stdin>:LINE:COL: error: ...) and that nothing reached stdout.

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

@test "ops: reshape with 0 and -1" {
	run -0 ir-parse - <<'IR'
fn @main(%x: f32[2,3,4]) {
  %0 = reshape(%x) {newshape=[0,-1]}
  return %0
}
IR
	assert_output --partial '%0: f32[2,12]'
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

@test "ops error: unknown attribute, with a suggestion" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[1,3,32,32], %w: f32[16,3,3,3]) {
  %0 = nn.conv2d(%x, %w) {stride=[1,1]}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:27: error: unknown attribute 'stride' for nn.conv2d"
	assert_equal "${stderr_lines[3]}" "<stdin>:2:27: note: did you mean 'strides'?"
}

@test "ops error: unknown attribute, with the valid names" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[4]) {
  %0 = nn.relu(%x) {alpha=0.1}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:21: error: unknown attribute 'alpha' for nn.relu"
	assert_equal "${stderr_lines[3]}" "<stdin>:2:21: note: nn.relu takes no attributes"
}

@test "ops error: a string where a list is expected" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[1,3,32,32], %w: f32[16,3,3,3]) {
  %0 = nn.conv2d(%x, %w) {strides="1"}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:35: error: 'strides' of nn.conv2d must be a list of 2 positive integers, not a string"
}

@test "ops error: a negative stride" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[1,3,32,32], %w: f32[16,3,3,3]) {
  %0 = nn.conv2d(%x, %w) {strides=[-1,1]}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:35: error: 'strides' of nn.conv2d must be a list of 2 positive integers"
}

@test "ops error: padding of 3 values" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[1,3,32,32], %w: f32[16,3,3,3]) {
  %0 = nn.conv2d(%x, %w) {padding=[1,1,1]}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:35: error: 'padding' of nn.conv2d must be a list of 1, 2 or 4 non-negative integers"
}

@test "ops error: groups must divide the channels" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[1,3,32,32], %w: f32[16,3,3,3]) {
  %0 = nn.conv2d(%x, %w) {groups=2}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:34: error: 'groups' of nn.conv2d (2) must divide the input channels (3) and the output channels (16)"
}

@test "ops error: a bad layout string" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[1,3,32,32], %w: f32[16,3,3,3]) {
  %0 = nn.conv2d(%x, %w) {data_layout="NHWC"}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:39: error: 'data_layout' of nn.conv2d must be \"NCHW\" or \"NCHW4c\", not \"NHWC\""
}

@test "ops error: conv2d channel mismatch" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[1,3,32,32], %w: f32[16,4,3,3]) {
  %0 = nn.conv2d(%x, %w)
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:3: error: nn.conv2d: the input has 3 channels but the weight expects 4 (I*groups = 4*1)"
}

@test "ops error: conv2d window larger than the input" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[1,3,2,2], %w: f32[16,3,3,3]) {
  %0 = nn.conv2d(%x, %w)
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:3: error: nn.conv2d: the window (3) is larger than the padded height (2)"
}

@test "ops error: NCHW4c data must end in 4" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[1,3,8,8,3], %w: f32[16,12,3,3]) {
  %0 = nn.conv2d(%x, %w) {data_layout="NCHW4c"}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:3: error: nn.conv2d: data has type f32[1,3,8,8,3], but layout NCHW4c needs dimension 4 to be 4"
}

@test "ops error: arity" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[2]) {
  %0 = add(%x, %x, %x)
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:3: error: 'add' takes 2 operands, 3 given"
}

@test "ops error: element types differ" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[2], %y: f16[2]) {
  %0 = add(%x, %y)
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:3: error: add: element types differ: f32[2] and f16[2]"
}

@test "ops error: shapes that do not broadcast" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[2,3], %y: f32[4,3]) {
  %0 = multiply(%x, %y)
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:3: error: multiply: shapes do not broadcast: f32[2,3] and f32[4,3] (2 vs 4 at axis 0 of the result)"
}

@test "ops error: a float literal with an int tensor" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: i32[2]) {
  %0 = add(%x, 2.5)
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:16: error: add: float literal cannot be an element of type i32 (the type of the other operand)"
}

@test "ops error: a tuple operand" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%a: f32[2]) {
  %t = (%a, %a)
  %0 = nn.relu(%t)
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:3:3: error: nn.relu: operand 1 ('%t') is a tuple (f32[2], f32[2]); project a field first"
}

@test "ops error: clip needs both bounds" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[4]) {
  %0 = clip(%x) {a_min=0}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:3: error: clip: missing attribute 'a_max' (for example a_max=6.0)"
}

@test "ops error: cast to an unknown dtype" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[4]) {
  %0 = cast(%x) {dtype="f8"}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:24: error: 'dtype' of cast must be an element type such as \"f16\" or \"float16\", not \"f8\""
}

@test "ops error: dense feature mismatch" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[1,64], %w: f32[10,32]) {
  %0 = nn.dense(%x, %w)
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:3: error: nn.dense: data f32[1,64] has 64 features (last axis) but the weight f32[10,32] expects 32"
}

@test "ops error: batch_matmul reduction mismatch" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[2,3,4], %y: f32[2,4,5]) {
  %0 = nn.batch_matmul(%x, %y)
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:3: error: nn.batch_matmul: the reduction sizes differ: 4 in x f32[2,3,4] and 5 in y f32[2,4,5] (transpose_a=false, transpose_b=true)"
}

@test "ops error: bias_add axis out of range" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[1,16], %b: f32[16]) {
  %0 = nn.bias_add(%x, %b) {axis=2}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:34: error: 'axis' of nn.bias_add is 2, out of range for rank 2 (-2 to 1)"
}

@test "ops error: max_pool2d needs pool_size" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[1,3,8,8]) {
  %0 = nn.max_pool2d(%x) {strides=[2,2]}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:3: error: nn.max_pool2d: missing attribute 'pool_size' (for example pool_size=[2, 2])"
}

@test "ops error: reshape element count" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[2,3,4]) {
  %0 = reshape(%x) {newshape=[5,5]}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:3: error: reshape: cannot reshape f32[2,3,4] (24 elements) to [5, 5]"
}

@test "ops error: reshape special values beyond -1" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[2,3,4]) {
  %0 = reshape(%x) {newshape=[-2]}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:30: error: 'newshape' of reshape: the special value -2 is not supported (only 0 and -1 are)"
}

@test "ops error: transpose axes must be a permutation" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[2,3,4]) {
  %0 = transpose(%x) {axes=[0,0,1]}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:28: error: 'axes' of transpose is not a permutation: axis 0 appears twice"
}

@test "ops error: layout_transform needs divisible channels" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[1,6,4,4]) {
  %0 = layout_transform(%x) {dst_layout="NCHW4c", src_layout="NCHW"}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:3: error: layout_transform: axis C has size 6, which NCHW4c needs to be a multiple of 4"
}

@test "ops error: concatenate of a tensor" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[2]) {
  %0 = concatenate(%x)
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:3: error: concatenate: takes one non-empty tuple of tensors (TVM style: %t = (%a, %b)), not f32[2]"
}

@test "ops error: split sections must divide the axis" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[4,6]) {
  %0 = split(%x) {axis=1, indices_or_sections=4}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:47: error: 'indices_or_sections' of split (4) must be a number of sections from 1 to 65536 that divides the axis (size 6)"
}

@test "ops error: squeeze of an axis that is not 1" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[1,3]) {
  %0 = squeeze(%x) {axis=[1]}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:26: error: 'axis' of squeeze names axis 1, which has size 3; only axes of size 1 can be squeezed"
}

@test "ops error: sum keepdims must be a bool" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: f32[2,3]) {
  %0 = sum(%x) {keepdims="yes"}
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:26: error: 'keepdims' of sum must be true or false, not a string"
}

@test "ops error: exp of an integer tensor" {
	run -1 --separate-stderr ir-parse - <<'IR'
fn @main(%x: i32[2]) {
  %0 = exp(%x)
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:2:3: error: exp: needs a floating-point operand, not i32[2] (cast it first)"
}
