/* lower_test: for every operator and several shapes and attributes,
 * lowering (lib/lower/lower.c) and interpreting the prims (lib/ref/interp_prim.c)
 * gives what the reference kernels (lib/ref_*.c) give on the graph level.
 *
 * Each case is a module; it runs on random inputs once as written and
 * once lowered, on a cpu, a gpu and a texture gpu, fused, with
 * --no-fuse, and fused with --no-tile (no register tiles).  Integers must
 * match exactly; floats within 1e-4 relative
 * (the prims accumulate in the result's type, the reference in double).
 * On the texture gpu the lowered module is then flattened
 * (lib/texture/flatten_texture.c): it must have no N-d access to an image left,
 * flatten again to itself and give the lowered result bit for bit.
 * Exit 0 when every check passed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "texture/flatten_texture.h"
#include "ref/interp.h"
#include "ir.h"
#include "lower/lower.h"
#include "pbuild.h"
#include "tensor/tensor.h"

static int checks, failures, flattened;

/* xorshift: the same inputs on every machine. */
static uint64_t rng = 88172645463325252ull;

static double
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static const char *const cases[] = {
	/* broadcasting binary operators */
	"fn @main(%a: f32[2,3,4], %b: f32[3,1]) -> f32[2,3,4] {\n"
	"  %0 = add(%a, %b)\n  return %0\n}\n",
	"fn @main(%a: f32[5], %b: f32[5]) -> f32[5] {\n"
	"  %0 = subtract(%a, 1.5)\n  %1 = multiply(%0, %b)\n  %2 = divide(%1, %b)\n  return %2\n}\n",
	"fn @main(%a: f32[2,1,3], %b: f32[4,1]) -> f32[2,4,3] {\n"
	"  %0 = maximum(%a, %b)\n  %1 = minimum(%0, 0.25)\n  return %1\n}\n",
	"fn @main(%a: f32[7], %b: f32[7]) -> f32[7] {\n"
	"  %0 = power(%a, %b)\n  return %0\n}\n",
	"fn @main(%a: i32[3,5], %b: i32[5]) -> i32[3,5] {\n"
	"  %0 = add(%a, %b)\n  %1 = multiply(%0, 2147483)\n  %2 = divide(%1, %b)\n  %3 = subtract(%2, %a)\n"
	"  %4 = maximum(%3, %b)\n  %5 = minimum(%4, 40)\n  return %5\n}\n",
	"fn @main(%a: u8[6], %b: u8[6]) -> u8[6] {\n"
	"  %0 = multiply(%a, %b)\n  %1 = add(%0, 250)\n  %2 = power(%1, 2)\n  return %2\n}\n",
	"fn @main(%a: i32[9]) -> i32[9] {\n"
	"  %0 = negative(%a)\n  %1 = power(%0, -3)\n  %2 = power(%0, -2)\n"
	"  %3 = power(%a, 2147483647)\n  %4 = add(%1, %2)\n  %5 = add(%4, %3)\n  return %5\n}\n",
	"fn @main(%a: u64[5], %b: i8[5]) -> u64[5] {\n"
	"  %0 = power(%a, 9223372036854775807)\n  %1 = power(%b, 127)\n"
	"  %2 = cast(%1) {dtype=\"u64\"}\n  %3 = add(%0, %2)\n  return %3\n}\n",
	/* unary operators */
	"fn @main(%a: f32[3,4]) -> f32[3,4] {\n"
	"  %0 = negative(%a)\n  %1 = nn.relu(%0)\n  %2 = exp(%1)\n  %3 = log(%2)\n  %4 = sqrt(%3)\n"
	"  %5 = rsqrt(%2)\n  %6 = sigmoid(%5)\n  %7 = tanh(%6)\n  return %7\n}\n",
	"fn @main(%a: f32[9]) -> f32[9] {\n"
	"  %0 = clip(%a) {a_min=0.2, a_max=0.7}\n  return %0\n}\n",
	"fn @main(%a: f32[2,5]) -> i32[2,5] {\n"
	"  %0 = multiply(%a, 100.0)\n  %1 = cast(%0) {dtype=\"i32\"}\n  %2 = clip(%1) {a_min=-20, a_max=50}\n"
	"  %3 = negative(%2)\n  %4 = nn.relu(%3)\n  return %4\n}\n",
	"fn @main(%a: f16[2,3], %b: f16[2,3]) -> f16[2,3] {\n"
	"  %0 = add(%a, %b)\n  %1 = exp(%0)\n  return %1\n}\n",
	"fn @main(%a: f32[2,3,4,5], %b: f32[3]) -> f32[2,3,4,5] {\n"
	"  %0 = nn.bias_add(%a, %b)\n  return %0\n}\n",
	"fn @main(%a: f32[2,3,4,5], %b: f32[5]) -> f32[2,3,4,5] {\n"
	"  %0 = nn.bias_add(%a, %b) {axis=-1}\n  return %0\n}\n",
	/* data movement */
	"fn @main(%a: f32[2,3,4]) -> f32[4,6] {\n"
	"  %0 = reshape(%a) {newshape=[4,6]}\n  return %0\n}\n",
	"fn @main(%a: f32[1,3,1,4]) -> f32[3,1,4,1] {\n"
	"  %0 = squeeze(%a)\n  %1 = expand_dims(%0) {axis=1}\n  %2 = expand_dims(%1) {axis=3}\n"
	"  return %2\n}\n",
	"fn @main(%a: f32[2,3,4]) -> f32[4,2,3] {\n"
	"  %0 = transpose(%a) {axes=[2,0,1]}\n  return %0\n}\n",
	"fn @main(%a: f32[2,3,4]) -> f32[4,3,2] {\n"
	"  %0 = transpose(%a)\n  %1 = nn.relu(%0)\n  return %1\n}\n",
	"fn @main(%a: f32[1,8,3,5]) -> f32[1,8,3,5] {\n"
	"  %0 = layout_transform(%a) {src_layout=\"NCHW\", dst_layout=\"NCHW4c\"}\n"
	"  %1 = nn.relu(%0)\n"
	"  %2 = layout_transform(%1) {src_layout=\"NCHW4c\", dst_layout=\"NHWC\"}\n"
	"  %3 = layout_transform(%2) {src_layout=\"NHWC\", dst_layout=\"NCHW\"}\n  return %3\n}\n",
	"fn @main(%a: f32[8,2,3,3]) -> f32[2,2,3,3,4] {\n"
	"  %0 = layout_transform(%a) {src_layout=\"OIHW\", dst_layout=\"OIHW4o\"}\n  return %0\n}\n",
	"fn @main(%a: f32[2,3], %b: f32[2,5]) -> f32[2,8] {\n"
	"  %t = (%a, %b)\n  %0 = concatenate(%t) {axis=1}\n  return %0\n}\n",
	/* comparisons, logic and where, fused, broadcasting */
	"fn @main(%a: f32[3,4], %b: f32[4], %c: i32[3,1], %d: i32[4]) -> f32[3,4] {\n"
	"  %0 = less(%a, %b)\n  %1 = greater_equal(%c, %d)\n  %2 = logical_xor(%0, %1)\n"
	"  %3 = logical_not(%2)\n  %4 = equal(%c, 2)\n  %5 = logical_or(%3, %4)\n"
	"  %6 = not_equal(%a, %b)\n  %7 = logical_and(%5, %6)\n"
	"  %8 = exp(%a)\n  %9 = where(%7, %8, %b)\n  return %9\n}\n",
	"fn @main(%a: f32[2,8,3,3,4], %b: f32[2,8,3,3,4]) -> f32[2,8,3,3,4] {\n"
	"  %0 = less_equal(%a, %b)\n  %1 = where(%0, %a, 0.0)\n  return %1\n}\n",
	/* argmax and argmin, fused after a producer, first or last index */
	"fn @main(%a: f32[3,4,5], %b: i32[6,7]) -> (i32[3,5], i32[1,4,1], i32[7]) {\n"
	"  %0 = exp(%a)\n  %1 = argmax(%0) {axis=[1]}\n"
	"  %2 = argmin(%a) {axis=[0, 2], keepdims=true, select_last_index=true}\n"
	"  %3 = argmax(%b) {axis=[0], select_last_index=true}\n"
	"  %t = (%1, %2, %3)\n  return %t\n}\n",
	/* max and min, fused after a producer, over inner and outer axes */
	"fn @main(%a: f32[3,4,5]) -> f32[3,5] {\n"
	"  %0 = exp(%a)\n  %1 = max(%0) {axis=[1]}\n  return %1\n}\n",
	"fn @main(%a: f32[3,4,5]) -> f32[1,4,1] {\n"
	"  %0 = min(%a) {axis=[0, 2], keepdims=true}\n  %1 = negative(%0)\n  return %1\n}\n",
	"fn @main(%a: i32[6,7], %b: u64[2,3]) -> (i32[7], u64[2]) {\n"
	"  %0 = min(%a) {axis=[0]}\n  %1 = max(%b) {axis=[1]}\n  %t = (%0, %1)\n  return %t\n}\n",
	"fn @main(%a: f32[2,8,3,3,4]) -> f32[2,8,1,1,4] {\n"
	"  %0 = max(%a) {axis=[2, 3], keepdims=true}\n  return %0\n}\n",
	/* strided_slice fused after an elementwise producer and before a
	 * consumer; backward, strided and clamped */
	"fn @main(%a: f32[5,7,3]) -> f32[3,3,2] {\n"
	"  %0 = exp(%a)\n"
	"  %1 = strided_slice(%0) {begin=[-1, 1, 0], end=[-100, 100, 2], strides=[-2, 2, 1]}\n"
	"  %2 = nn.relu(%1)\n  return %2\n}\n",
	"fn @main(%a: i32[4,6]) -> i32[2,6] {\n"
	"  %0 = strided_slice(%a) {axes=[0], begin=[1], end=[3]}\n  return %0\n}\n",
	/* nn.pad in its three modes, fused with producers and consumers */
	"fn @main(%a: f32[1,3,5,4]) -> f32[1,3,8,5] {\n"
	"  %0 = nn.relu(%a)\n"
	"  %1 = nn.pad(%0) {pad_width=[0, 0, 0, 0, 2, 1, 0, 1], pad_value=-0.5}\n"
	"  %2 = exp(%1)\n  return %2\n}\n",
	"fn @main(%a: i16[3,4]) -> i16[5,8] {\n"
	"  %0 = nn.pad(%a) {pad_width=[1, 1, 2, 2], pad_value=-7}\n  return %0\n}\n",
	"fn @main(%a: f32[3,4]) -> f32[7,9] {\n"
	"  %0 = nn.pad(%a) {pad_mode=\"edge\", pad_width=[2, 2, 1, 4]}\n  return %0\n}\n",
	"fn @main(%a: f32[3,4]) -> f32[7,9] {\n"
	"  %0 = negative(%a)\n"
	"  %1 = nn.pad(%0) {pad_mode=\"reflect\", pad_width=[2, 2, 3, 2]}\n  return %1\n}\n",
	"fn @main(%a: f32[2,3], %b: f32[1,3]) -> f32[3,3] {\n"
	"  %t = (%a, %b)\n  %0 = concatenate(%t) {axis=0}\n  %1 = exp(%0)\n  return %1\n}\n",
	"fn @main(%a: f32[3,6]) -> (f32[3,2], f32[3,2], f32[3,2]) {\n"
	"  %0 = split(%a) {indices_or_sections=3, axis=1}\n  return %0\n}\n",
	"fn @main(%a: f32[7,2]) -> f32[2,2] {\n"
	"  %0 = split(%a) {indices_or_sections=[2,5]}\n  %1 = %0.0\n  return %1\n}\n",
	/* reductions */
	"fn @main(%a: f32[3,4,5]) -> f32[3,5] {\n"
	"  %0 = sum(%a) {axis=[1]}\n  return %0\n}\n",
	"fn @main(%a: f32[3,4,5]) -> f32[1,4,1] {\n"
	"  %0 = mean(%a) {axis=[0,2], keepdims=true}\n  return %0\n}\n",
	"fn @main(%a: i32[3,4,5]) -> i32[4] {\n"
	"  %0 = sum(%a) {axis=[1], exclude=true}\n  return %0\n}\n",
	"fn @main(%a: f32[2,3]) -> f32[] {\n"
	"  %0 = exp(%a)\n  %1 = sum(%0)\n  return %1\n}\n",
	"fn @main(%a: f32[1,2,7,7]) -> f32[1,2,4,4] {\n"
	"  %0 = nn.max_pool2d(%a) {pool_size=[3,3], strides=[2,2], padding=[1,1,1,1]}\n  return %0\n}\n",
	"fn @main(%a: f32[1,2,6,6]) -> f32[1,2,3,3] {\n"
	"  %0 = nn.max_pool2d(%a) {pool_size=[2,2], strides=[2,2], dilation=[1,1], ceil_mode=true}\n"
	"  return %0\n}\n",
	"fn @main(%a: f32[1,2,7,7]) -> f32[1,2,4,4] {\n"
	"  %0 = nn.avg_pool2d(%a) {pool_size=[3,3], strides=[2,2], padding=[1,1,1,1]}\n  return %0\n}\n",
	"fn @main(%a: f32[1,2,7,7]) -> f32[1,2,4,4] {\n"
	"  %0 = nn.avg_pool2d(%a) {pool_size=[3,3], strides=[2,2], padding=[1,1,1,1], count_include_pad=true}\n"
	"  return %0\n}\n",
	"fn @main(%a: f32[1,2,5,5,4]) -> f32[1,2,2,2,4] {\n"
	"  %0 = nn.max_pool2d(%a) {pool_size=[2,2], strides=[2,2], dilation=[2,2], layout=\"NCHW4c\"}\n"
	"  return %0\n}\n",
	"fn @main(%a: f32[2,3,4,5]) -> f32[2,3,1,1] {\n"
	"  %0 = nn.global_avg_pool2d(%a)\n  return %0\n}\n",
	"fn @main(%a: f32[1,2,3,3,4]) -> f32[1,2,1,1,4] {\n"
	"  %0 = nn.global_avg_pool2d(%a) {layout=\"NCHW4c\"}\n  return %0\n}\n",
	"fn @main(%a: f32[2,3,5]) -> f32[2,3,5] {\n"
	"  %0 = nn.softmax(%a) {axis=1}\n  return %0\n}\n",
	"fn @main(%a: f32[4,6]) -> f32[4,6] {\n"
	"  %0 = nn.softmax(%a)\n  %1 = multiply(%0, 2.0)\n  return %1\n}\n",
	/* conv2d, dense, batch_matmul */
	"fn @main(%x: f32[1,3,7,7], %w: f32[4,3,3,3], %b: f32[4]) -> f32[1,4,4,4] {\n"
	"  %0 = nn.conv2d(%x, %w) {strides=[2,2], padding=[1,1,1,1]}\n  %1 = nn.bias_add(%0, %b)\n"
	"  %2 = nn.relu(%1)\n  return %2\n}\n",
	"fn @main(%x: f32[2,4,6,5], %w: f32[6,2,3,2]) -> f32[2,6,2,4] {\n"
	"  %0 = nn.conv2d(%x, %w) {groups=2, dilation=[2,1], padding=[0,0,0,0]}\n  return %0\n}\n",
	"fn @main(%x: f32[1,4,5,5], %w: f32[4,1,3,3]) -> f32[1,4,5,5] {\n"
	"  %0 = nn.conv2d(%x, %w) {groups=4, padding=[1,1]}\n  return %0\n}\n",
	"fn @main(%x: f32[1,2,6,6,4], %w: f32[3,8,3,3,4], %r: f32[1,3,6,6,4]) -> f32[1,3,6,6,4] {\n"
	"  %0 = nn.conv2d(%x, %w) {padding=[1,1,1,1], data_layout=\"NCHW4c\", kernel_layout=\"OIHW4o\"}\n"
	"  %1 = add(%0, %r)\n  %2 = nn.relu(%1)\n  return %2\n}\n",
	"fn @main(%x: i8[1,2,4,4], %w: i8[3,2,2,2]) -> i32[1,3,3,3] {\n"
	"  %0 = nn.conv2d(%x, %w) {out_dtype=\"i32\"}\n  return %0\n}\n",
	"fn @main(%x: f32[2,3,5], %w: f32[4,5], %b: f32[4]) -> f32[2,3,4] {\n"
	"  %0 = nn.dense(%x, %w)\n  %1 = nn.bias_add(%0, %b) {axis=-1}\n  return %1\n}\n",
	"fn @main(%x: f32[2,3,5], %y: f32[2,4,5]) -> f32[2,3,4] {\n"
	"  %0 = nn.batch_matmul(%x, %y)\n  return %0\n}\n",
	"fn @main(%x: f32[1,5,3], %y: f32[2,5,4]) -> f32[2,3,4] {\n"
	"  %0 = nn.batch_matmul(%x, %y) {transpose_a=true, transpose_b=false}\n  return %0\n}\n",
	/* packed results: a texel (4 lanes) at a time, on a texture gpu in 2-d
	 * work groups with partial blocks on both axes */
	"fn @main(%a: f32[1,3,5,37,4]) -> f32[1,3,5,37,4] {\n"
	"  %0 = exp(%a)\n  %1 = multiply(%0, %a)\n  return %1\n}\n",
	"fn @main(%a: f32[1,2,3,3,4], %b: f32[1,2,1,1,4], %c: f32[1,2,3,3,1]) -> f32[1,2,3,3,4] {\n"
	"  %0 = add(%a, %b)\n  %1 = multiply(%0, %c)\n  %2 = subtract(%1, 0.5)\n"
	"  %3 = clip(%2) {a_min=-1.0, a_max=2.0}\n  %4 = sigmoid(%3)\n  return %4\n}\n",
	"fn @main(%a: f32[1,2,3,3,4], %b: f32[4]) -> i32[1,2,3,3,4] {\n"
	"  %0 = exp(%a)\n  %1 = nn.bias_add(%0, %b) {axis=4}\n  %2 = multiply(%1, 9.0)\n"
	"  %3 = cast(%2) {dtype=\"i32\"}\n  %4 = negative(%3)\n  %5 = nn.relu(%4)\n  return %5\n}\n",
	"fn @main(%a: f32[1,2,3,3,4], %b: f32[2]) -> f32[1,2,3,3,4] {\n"
	"  %0 = nn.bias_add(%a, %b)\n  return %0\n}\n",
	"fn @main(%a: i32[1,2,3,3,4], %b: i32[1,2,3,3,4]) -> i32[1,2,3,3,4] {\n"
	"  %0 = power(%a, 3)\n  %1 = add(%0, %b)\n  return %1\n}\n",
	"fn @main(%a: f32[2,3,5,5,4]) -> f32[2,1,1,1,4] {\n"
	"  %0 = mean(%a) {axis=[1,2,3], keepdims=true}\n  return %0\n}\n",
	"fn @main(%a: f32[2,3,5,5,4]) -> f32[2,3,5,5] {\n"
	"  %0 = sum(%a) {axis=[4]}\n  return %0\n}\n",
	"fn @main(%a: f32[1,2,7,7,4]) -> f32[1,2,4,4,4] {\n"
	"  %0 = nn.avg_pool2d(%a) {pool_size=[3,3], strides=[2,2], padding=[1,1,1,1], layout=\"NCHW4c\", "
	"count_include_pad=true}\n  return %0\n}\n",
	"fn @main(%x: f32[1,4,5,5,4], %w: f32[4,8,3,3,4]) -> f32[1,4,3,3,4] {\n"
	"  %0 = nn.conv2d(%x, %w) {groups=2, strides=[2,2], padding=[1,1,1,1], data_layout=\"NCHW4c\", "
	"kernel_layout=\"OIHW4o\"}\n  return %0\n}\n",
	"fn @main(%x: f32[1,2,5,5,4], %w: f32[2,2,3,3,4]) -> f32[1,2,5,5,4] {\n"
	"  %0 = nn.conv2d(%x, %w) {groups=4, padding=[1,1,1,1], data_layout=\"NCHW4c\", "
	"kernel_layout=\"OIHW4o\"}\n  return %0\n}\n",
	"fn @main(%x: i8[1,1,4,4,4], %w: i8[2,4,2,2,4]) -> i32[1,2,3,3,4] {\n"
	"  %0 = nn.conv2d(%x, %w) {data_layout=\"NCHW4c\", kernel_layout=\"OIHW4o\", out_dtype=\"i32\"}\n"
	"  return %0\n}\n",
	/* packed, 16 output channels a group: on a cpu a tile of 4 output
	 * texels, the input padded first (asymmetric padding, a consumer;
	 * groups, strides and dilation; integers without padding) */
	"fn @main(%x: f32[1,2,6,7,4], %w: f32[4,8,3,3,4], %r: f32[1,4,5,8,4]) -> f32[1,4,5,8,4] {\n"
	"  %0 = nn.conv2d(%x, %w) {padding=[1,2,0,1], data_layout=\"NCHW4c\", kernel_layout=\"OIHW4o\"}\n"
	"  %1 = add(%0, %r)\n  %2 = nn.relu(%1)\n  return %2\n}\n",
	"fn @main(%x: f32[1,4,9,9,4], %w: f32[8,8,3,3,4]) -> f32[1,8,5,7,4] {\n"
	"  %0 = nn.conv2d(%x, %w) {groups=2, strides=[2,1], dilation=[1,2], padding=[1,1,1,1], "
	"data_layout=\"NCHW4c\", kernel_layout=\"OIHW4o\"}\n  return %0\n}\n",
	"fn @main(%x: i8[1,1,4,4,4], %w: i8[4,4,2,2,4]) -> i32[1,4,3,3,4] {\n"
	"  %0 = nn.conv2d(%x, %w) {data_layout=\"NCHW4c\", kernel_layout=\"OIHW4o\", out_dtype=\"i32\"}\n"
	"  return %0\n}\n",
	/* long reductions: on a gpu across the work items of a group */
	"fn @main(%a: f32[2,600]) -> f32[2] {\n"
	"  %0 = exp(%a)\n  %1 = sum(%0) {axis=[1]}\n  return %1\n}\n",
	"fn @main(%a: f32[8,3,100]) -> f32[1,3,1] {\n"
	"  %0 = transpose(%a) {axes=[0,1,2]}\n  %1 = mean(%0) {axis=[0,2], keepdims=true}\n  return %1\n}\n",
	"fn @main(%a: f32[40,30]) -> f32[] {\n"
	"  %0 = sum(%a)\n  return %0\n}\n",
	"fn @main(%a: i32[700,2]) -> i32[2] {\n"
	"  %0 = multiply(%a, 1000003)\n  %1 = sum(%0) {axis=[0]}\n  return %1\n}\n",
	/* integer averages add up exactly (in 64 bits) and wrap only the
	 * quotient, as the reference does: plain, across a work group and
	 * packed in 4 lanes; sums of the element type would wrap */
	"fn @main(%a: u8[4,6]) -> u8[4,1] {\n"
	"  %0 = multiply(%a, 25)\n  %1 = mean(%0) {axis=[1], keepdims=true}\n  return %1\n}\n",
	"fn @main(%a: u8[2,600]) -> u8[2] {\n"
	"  %0 = multiply(%a, 25)\n  %1 = mean(%0) {axis=[1]}\n  return %1\n}\n",
	"fn @main(%a: i8[3,5,4]) -> i8[5] {\n"
	"  %0 = multiply(%a, -14)\n  %1 = mean(%0) {axis=[0,2]}\n  return %1\n}\n",
	"fn @main(%a: i32[700,2]) -> i32[2] {\n"
	"  %0 = multiply(%a, 238609294)\n  %1 = mean(%0) {axis=[0]}\n  return %1\n}\n",
	"fn @main(%a: i32[2,3,5,5,4]) -> i32[2,1,1,1,4] {\n"
	"  %0 = multiply(%a, 238609294)\n  %1 = mean(%0) {axis=[1,2,3], keepdims=true}\n"
	"  return %1\n}\n",
	"fn @main(%a: u8[1,2,7,7]) -> u8[1,2,4,4] {\n"
	"  %0 = multiply(%a, 25)\n"
	"  %1 = nn.avg_pool2d(%0) {pool_size=[3,3], strides=[2,2], padding=[1,1,1,1], count_include_pad=true}\n"
	"  return %1\n}\n",
	"fn @main(%a: i8[1,2,7,7,4]) -> i8[1,2,4,4,4] {\n"
	"  %0 = multiply(%a, -14)\n"
	"  %1 = nn.avg_pool2d(%0) {pool_size=[3,3], strides=[2,2], padding=[1,1,1,1], layout=\"NCHW4c\"}\n"
	"  return %1\n}\n",
	"fn @main(%a: i32[1,2,6,6]) -> i32[1,2,3,3] {\n"
	"  %0 = multiply(%a, 238609294)\n  %1 = nn.avg_pool2d(%0) {pool_size=[2,2], strides=[2,2]}\n"
	"  return %1\n}\n",
	"fn @main(%a: u8[2,3,4,5]) -> u8[2,3,1,1] {\n"
	"  %0 = multiply(%a, 25)\n  %1 = nn.global_avg_pool2d(%0)\n  return %1\n}\n",
	"fn @main(%a: i8[1,2,3,3,4]) -> i8[1,2,1,1,4] {\n"
	"  %0 = multiply(%a, -14)\n  %1 = nn.global_avg_pool2d(%0) {layout=\"NCHW4c\"}\n  return %1\n}\n",
	"fn @main(%a: i32[1,2,3,4]) -> i32[1,2,1,1] {\n"
	"  %0 = multiply(%a, 238609294)\n  %1 = nn.global_avg_pool2d(%0)\n  return %1\n}\n",
	/* register tiles: dense by 4x4 rows and columns of 16, 8 or 2 lanes of k
	 * (gpu); on a cpu 8, 4, 2 or 1 rows x 2 or 1 vectors of 16, 8, 4 or 2
	 * columns, the full 8 x 2 x 16 tile with consumers and in batches */
	"fn @main(%x: f32[16,20], %w: f32[64,20], %b: f32[64]) -> f32[16,64] {\n"
	"  %0 = nn.dense(%x, %w)\n  %1 = nn.bias_add(%0, %b) {axis=-1}\n  %2 = nn.relu(%1)\n  return %2\n}\n",
	"fn @main(%x: f32[2,8,5], %y: f32[1,32,5]) -> f32[2,8,32] {\n"
	"  %0 = nn.batch_matmul(%x, %y)\n  return %0\n}\n",
	"fn @main(%x: f32[8,32], %w: f32[12,32], %b: f32[12]) -> f32[8,12] {\n"
	"  %0 = nn.dense(%x, %w)\n  %1 = nn.bias_add(%0, %b) {axis=-1}\n  %2 = nn.relu(%1)\n  return %2\n}\n",
	"fn @main(%x: f32[1,24], %w: f32[6,24]) -> f32[1,6] {\n"
	"  %0 = nn.dense(%x, %w)\n  return %0\n}\n",
	"fn @main(%x: i8[6,10], %w: i8[5,10]) -> i32[6,5] {\n"
	"  %0 = nn.dense(%x, %w) {out_dtype=\"i32\"}\n  return %0\n}\n",
	"fn @main(%x: f16[4,16], %w: f16[4,16]) -> f16[4,4] {\n"
	"  %0 = nn.dense(%x, %w)\n  return %0\n}\n",
	"fn @main(%x: f32[2,4,16], %y: f32[2,8,16]) -> f32[2,4,8] {\n"
	"  %0 = nn.batch_matmul(%x, %y)\n  %1 = nn.relu(%0)\n  return %1\n}\n",
	"fn @main(%x: f32[1,3,8], %y: f32[2,6,8]) -> f32[2,3,6] {\n"
	"  %0 = nn.batch_matmul(%x, %y)\n  return %0\n}\n",
	"fn @main(%x: f32[3,2,12], %y: f32[1,5,12]) -> f32[3,2,5] {\n"
	"  %0 = nn.batch_matmul(%x, %y)\n  return %0\n}\n",
	/* a weight per batch on a cpu: panels of the weight per batch */
	"fn @main(%x: f32[2,8,6], %y: f32[2,64,6]) -> f32[2,8,64] {\n"
	"  %0 = nn.batch_matmul(%x, %y)\n  return %0\n}\n",
	/* register tiles: conv2d by 16, 8 or 4 output channels x columns */
	"fn @main(%x: f32[1,3,9,9], %w: f32[16,3,3,3], %b: f32[16]) -> f32[1,16,9,9] {\n"
	"  %0 = nn.conv2d(%x, %w) {padding=[1,1,1,1]}\n  %1 = nn.bias_add(%0, %b)\n  %2 = nn.relu(%1)\n"
	"  return %2\n}\n",
	"fn @main(%x: f32[2,4,7,8], %w: f32[16,2,3,2]) -> f32[2,16,2,4] {\n"
	"  %0 = nn.conv2d(%x, %w) {groups=2, strides=[2,2], dilation=[2,1], padding=[0,1,1,0]}\n"
	"  return %0\n}\n",
	"fn @main(%x: f32[1,8,5,6], %w: f32[8,8,1,1], %r: f32[1,8,5,6]) -> f32[1,8,5,6] {\n"
	"  %0 = nn.conv2d(%x, %w)\n  %1 = add(%0, %r)\n  return %1\n}\n",
	"fn @main(%x: i8[1,2,5,5], %w: i8[4,2,2,2]) -> i32[1,4,4,4] {\n"
	"  %0 = nn.conv2d(%x, %w) {out_dtype=\"i32\"}\n  return %0\n}\n",
	/* control flow and calls around lowered code */
	"fn @sq(%v: f32[4]) -> f32[4] {\n  %0 = multiply(%v, %v)\n  return %0\n}\n"
	"fn @main(%a: f32[4], %c: bool[]) -> f32[4] {\n"
	"  %0 = if %c {\n    %1 = @sq(%a)\n    yield %1\n  } else {\n    %2 = exp(%a)\n    yield %2\n  }\n"
	"  %3 = add(%0, 1.0)\n  return %3\n}\n",
};

static const char *const devices[] = {
	"device @d = cpu(0)\n",
	"device @d = gpu(0) {max_work_group_size=16}\n",
	"device @d = gpu(0) {texture=true}\n",
};

static Module *
parse(Ctx *ctx, const char *dev, const char *body)
{
	size_t n = strlen(dev) + strlen(body);
	char *text = xmalloc(n + 1);
	strcpy(text, dev);
	strcat(text, body);
	uint16_t f = src_add(ctx, "<case>", text, n);
	return ir_parse(ctx, f, 0, n);
}

/* Random inputs for @main's parameters. */
static uint32_t
make_inputs(Module *m, InterpInput *in, Tensor **ts)
{
	Func *main = module_func(m, sym_intern_cstr(m, "main"));
	for (uint32_t i = 0; i < main->nparams; i++) {
		const Type *t = main->params[i]->type;
		Tensor *x = tensor_like_type(t);
		for (int64_t k = 0; k < x->numel; k++) {
			if (elem_is_float(t->dt.kind))
				tensor_set(x, k, rnd() * 2.0 - 0.5);
			else if (t->dt.kind == ET_BOOL)
				tensor_set_int(x, k, rnd() < 0.5);
			else
				tensor_set_int(x, k, 1 + (int64_t)(rnd() * 9));
		}
		ts[i] = x;
		in[i] = (InterpInput){main->params[i]->name, NULL, x};
	}
	return main->nparams;
}

static bool
close_enough(const Tensor *a, const Tensor *b, int64_t *where)
{
	if (a->kind != b->kind || a->numel != b->numel)
		return false;
	for (int64_t i = 0; i < a->numel; i++) {
		*where = i;
		if (!elem_is_float(a->kind)) {
			if (tensor_get_int(a, i) != tensor_get_int(b, i))
				return false;
			continue;
		}
		double x = tensor_get(a, i), y = tensor_get(b, i);
		if (isnan(x) && isnan(y))
			continue;
		double tol = a->kind == ET_F16 ? 2e-3 : 1e-4;
		if (!(fabs(x - y) <= tol * (1 + fabs(y))))
			return false;
	}
	return true;
}

static void
flatten(const RtVal *r, const Tensor **out, uint32_t *n)
{
	if (r->type->kind == TY_TENSOR) {
		out[(*n)++] = r->t;
		return;
	}
	for (uint32_t i = 0; i < r->n; i++)
		flatten(r->fields[i], out, n);
}

static const char *const modes[] = {"no-fuse", "fuse", "fuse, no-tile"};

/* Bit for bit: the same arithmetic in the same order, on images. */
static bool
same_bits(const Tensor *a, const Tensor *b, int64_t *where)
{
	if (a->kind != b->kind || a->numel != b->numel)
		return false;
	for (int64_t i = 0; i < a->numel; i++) {
		*where = i;
		double x = tensor_get(a, i), y = tensor_get(b, i);
		if (elem_is_float(a->kind) ? !(x == y || (isnan(x) && isnan(y)))
		                           : tensor_get_int(a, i) != tensor_get_int(b, i))
			return false;
	}
	return true;
}

static char *
print_module(const Module *m)
{
	FILE *f = tmpfile();
	if (!f)
		die_oom();
	ir_print(m, f, &(PrintOpts){0});
	long n = ftell(f);
	char *text = xmalloc((size_t)n + 1);
	rewind(f);
	text[fread(text, 1, (size_t)n, f)] = 0;
	fclose(f);
	return text;
}

/* The first texture buffer that the text of m still accesses by N-d
 * index ("%NAME[" in its prim), or NULL.  The images of these modules are
 * prim parameters. */
static const char *
nd_image_access(const Module *m, const char *text)
{
	for (const Prim *p = m->prims; p; p = p->next) {
		char head[256];
		snprintf(head, sizeof head, "prim @%s(", p->name);
		const char *from = strstr(text, head), *to = from ? strstr(from, "\n}\n") : NULL;
		if (!to)
			return "(a prim not found in the text)";
		for (uint32_t i = 0; i < p->nparams; i++) {
			const PVar *v = p->params[i];
			if (v->kind != PV_BUFFER || !v->vd || !v->vd->scope ||
			    strncmp(v->vd->scope, "texture", 7) != 0)
				continue;
			char use[128];
			snprintf(use, sizeof use, "%%%s[", v->name);
			const char *at = strstr(from, use);
			if (at && at < to)
				return v->name;
		}
	}
	return NULL;
}

/* Lowers case ci again (running low has used its scratch fields),
 * flattens it and checks it against rb, what the lowered module gave. */
static void
check_flattened(Ctx *ctx, size_t ci, const char *dev, const char *mname, const LowerOpts *lo,
                const RtVal *rb, InterpOpts *o)
{
	Module *low = parse(ctx, dev, cases[ci]);
	checks++;
	if (!low || !lower_module(low, lo) || !ir_verify(low) || !flatten_texture(low) ||
	    !ir_verify(low)) {
		module_free(low);
		failures++;
		printf("FAIL case %zu (%s, %s): flattening failed\n", ci, dev, mname);
		return;
	}
	char *once = print_module(low);
	const char *left = nd_image_access(low, once);
	checks++;
	if (left) {
		failures++;
		printf("FAIL case %zu (%s, %s): '%%%s' is still accessed by N-d index\n", ci, dev,
		       mname, left);
	}
	checks++;
	if (strstr(once, "texture2d_"))
		flattened++;
	if (!flatten_texture(low) || !ir_verify(low)) {
		failures++;
		printf("FAIL case %zu (%s, %s): flattening again failed\n", ci, dev, mname);
	} else {
		char *twice = print_module(low);
		checks++;
		if (strcmp(once, twice) != 0) {
			failures++;
			printf("FAIL case %zu (%s, %s): flattening twice differs from once\n", ci, dev, mname);
		}
		free(twice);
	}
	free(once);
	Interp *c = interp_new(low);
	const RtVal *rc = interp_run_main(c, o);
	checks++;
	if (!rc) {
		failures++;
		printf("FAIL case %zu (%s, %s): flattened run failed\n", ci, dev, mname);
		interp_free(c);
		module_free(low);
		return;
	}
	const Tensor *tb[16], *tc[16];
	uint32_t nb = 0, nc = 0;
	flatten(rb, tb, &nb);
	flatten(rc, tc, &nc);
	for (uint32_t i = 0; i < nb && i < nc; i++) {
		int64_t at = 0;
		checks++;
		if (!same_bits(tc[i], tb[i], &at)) {
			failures++;
			printf("FAIL case %zu (%s, %s): flattened result %u differs at element %lld: "
			       "flattened %.9g, lowered %.9g\n", ci, dev, mname, i, (long long)at,
			       tensor_get(tc[i], at), tensor_get(tb[i], at));
		}
	}
	interp_free(c);
	module_free(low);
}

static void
run_case(size_t ci, const char *dev, int mode)
{
	const char *mname = modes[mode];
	Ctx *ctx = ctx_new("lower_test");
	Module *ref = parse(ctx, dev, cases[ci]), *low = parse(ctx, dev, cases[ci]);
	checks++;
	if (!ref || !low) {
		failures++;
		printf("FAIL case %zu: does not parse\n", ci);
		module_free(ref);
		module_free(low);
		ctx_free(ctx);
		return;
	}
	LowerOpts lo = {.no_fuse = mode == 0, .no_tile = mode == 2};
	bool lowered = lower_module(low, &lo) && ir_verify(low);
	checks++;
	if (!lowered) {
		failures++;
		printf("FAIL case %zu (%s, %s): lowering failed\n", ci, dev, mname);
	}
	InterpInput in[8];
	Tensor *ts[8];
	uint32_t n = make_inputs(ref, in, ts);
	Interp *a = interp_new(ref), *b = interp_new(low);
	InterpOpts o = {.inputs = in, .ninputs = n};
	const RtVal *ra = interp_run_main(a, &o);
	const RtVal *rb = lowered ? interp_run_main(b, &o) : NULL;
	checks++;
	if (!ra || !rb) {
		failures++;
		printf("FAIL case %zu (%s, %s): %s run failed\n", ci, dev, mname, ra ? "lowered" : "direct");
	} else {
		const Tensor *ta[16], *tb[16];
		uint32_t na = 0, nb = 0;
		flatten(ra, ta, &na);
		flatten(rb, tb, &nb);
		for (uint32_t i = 0; i < na && i < nb; i++) {
			int64_t at = 0;
			checks++;
			if (!close_enough(tb[i], ta[i], &at)) {
				failures++;
				printf("FAIL case %zu (%s, %s): result %u differs at element %lld: "
				       "lowered %.9g, direct %.9g\n", ci, dev, mname, i, (long long)at,
				       tensor_get(tb[i], at), tensor_get(ta[i], at));
			}
		}
	}
	if (ra && rb && strstr(dev, "texture=true"))
		check_flattened(ctx, ci, dev, mname, &lo, rb, &o);
	interp_free(a);
	interp_free(b);
	for (uint32_t i = 0; i < n; i++)
		tensor_free(ts[i]);
	module_free(ref);
	module_free(low);
	ctx_free(ctx);
}

/* pb_close_to closes back to a pb_depth, never the prim's body. */
static void
test_close_to(void)
{
	Ctx *ctx = ctx_new("lower_test");
	Module *m = module_new(ctx);
	Prim *p = xcalloc(1, sizeof *p);
	p->name = sym_intern_cstr(m, "t");
	PBuild b;
	pb_start(&b, m, p, (Loc){0});
	int d0 = pb_depth(&b);
	pb_kernel(&b, "k");
	PVar *i = pb_scalar(&b, "i", (DType){ET_I32, 1});
	pb_for(&b, i, pe_i32(&b, 0), pe_i32(&b, 4), FK_SERIAL, NULL);
	pb_if(&b, pe_bool(&b, true));
	checks++;
	if (d0 != 1 || pb_depth(&b) != 4) {
		failures++;
		fprintf(stderr, "FAIL: pb_depth %d then %d, want 1 then 4\n", d0, pb_depth(&b));
	}
	pb_close_to(&b, d0 + 1);
	checks++;
	if (pb_depth(&b) != 2) {
		failures++;
		fprintf(stderr, "FAIL: pb_close_to(2) left %d open\n", pb_depth(&b));
	}
	pb_close_to(&b, 0);
	checks++;
	if (pb_depth(&b) != 1) {
		failures++;
		fprintf(stderr, "FAIL: pb_close_to(0) left %d open, want the body\n", pb_depth(&b));
	}
	free(p);
	module_free(m);
	ctx_free(ctx);
}

int
main(void)
{
	test_close_to();
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
		for (size_t d = 0; d < sizeof devices / sizeof *devices; d++)
			for (int mode = 0; mode < 3; mode++)
				run_case(c, devices[d], mode);
	printf("lower_test: %d checks, %d failures; %d flattened with images\n", checks, failures,
	       flattened);
	return failures != 0;
}
