#!/usr/bin/env bats
# ir-lower: golden outputs pin fusion decisions and the memory scopes
# chosen; options, placement and the pipeline with ir-plan-devices.

setup() {
	load test_helper
}

@test "lower: a small CNN on the CPU (conv2d+bias_add+relu fused; pool, dense, softmax alone)" {
	golden --from=ir-plan-devices ir-lower cnn_cpu
}
@test "lower: a packed residual block on a texture GPU (texture, texture:weight)" {
	golden --from=ir-plan-devices ir-lower texture_block
}
@test "lower: injective producers fuse into a reduction, which ends the group" {
	golden --from=ir-plan-devices ir-lower reduce_ends
}
@test "lower: dense and batch_matmul on a cpu (the weight transposed into panels, broadcast tiles)" {
	golden --from=ir-plan-devices ir-lower matmul_cpu
}
@test "lower: a dense of packed weight (weight_layout NC<P>n) on a cpu reads the panels with no transpose kernel" {
	golden --from=ir-plan-devices ir-lower dense_packed
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/dense_packed.ir"
	refute_output --partial 'alloc %wt'
	# one kernel per prim: no weight preparation
	[ "$(grep -c '^  kernel ' <<< "$output")" -eq "$(grep -c '^prim ' <<< "$output")" ]
}
@test "lower: gpu dense, batch_matmul and conv2d are matrix products tiled in shared memory" {
	golden --from=ir-plan-devices ir-lower gpu_tiles
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/gpu_tiles.ir"
	assert_output --partial 'alloc %as'
	assert_output --partial '@gpu:shared'
	assert_output --partial 'bind(threadIdx.y)'
	assert_line --regexp '^ +barrier$'
	# a dense whose rows do not divide into tiles (a transformer's 197
	# tokens) is the product too: the last tile's loads clamped into x,
	# its rows past 60 not stored
	sed 's/f32\[64,32\]/f32[60,32]/; s/f32\[64,96\]/f32[60,96]/' \
		"$BATS_TEST_DIRNAME/ir-lower/gpu_tiles.ir" > "$BATS_TEST_TMPDIR/odd.ir"
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/gpu_tiles.ir"
	[ "$(grep -c '^prim' <<< "$output")" = 3 ]
	[ "$(grep -c 'alloc %as' <<< "$output")" = 3 ]
	run -0 ir-lower "$BATS_TEST_TMPDIR/odd.ir"
	[ "$(grep -c 'alloc %as' <<< "$output")" = 3 ]
	assert_output --partial '%p0[min(%m7 + %r13, 59), %k11 + %kk12]'
	assert_output --partial 'if %row19 < 60 {'
	run -0 ir-lower --no-tile "$BATS_TEST_DIRNAME/ir-lower/gpu_tiles.ir"
	refute_output --partial '@gpu:shared'
}
@test "lower: a gpu 1x1 conv2d of a 1x1 image (a squeeze-and-excitation block's) splits each result's sum over work items" {
	golden --from=ir-plan-devices ir-lower gpu_gemv_conv
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/gpu_gemv_conv.ir"
	# four products take it: shares added in shared memory, the fused
	# consumers (bias, SiLU, sigmoid) stored by the item kt = 0
	[ "$(grep -c 'alloc %part.*@gpu:shared' <<< "$output")" -eq 4 ]
	[ "$(grep -c 'if %kt[0-9]* == 0' <<< "$output")" -eq 4 ]
	# (%s, 40 products, does not); --no-tile: none does
	run -0 ir-lower --no-tile "$BATS_TEST_DIRNAME/ir-lower/gpu_gemv_conv.ir"
	refute_output --partial 'alloc %part'
}
@test "lower: a buffer gpu's NCHW conv2d with an HWIO weight or sizes off the tiles is the shared-memory product" {
	golden --from=ir-plan-devices ir-lower gpu_tiles_nchw
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/gpu_tiles_nchw.ir"
	[ "$(grep -c '^prim' <<< "$output")" = 3 ]
	[ "$(grep -c 'alloc %as' <<< "$output")" = 3 ]
	[ "$(grep -c '^ *barrier$' <<< "$output")" = 8 ]
	# the HWIO weight's A tile is read along its output channels
	assert_output --partial '%p1[%ky17, %kx18, %ic16, min(%m7 + %r12, 23)]'
	assert_output --partial '%p1[%ky19, %kx20, %ic18, %m7 + %r16]'
	# the edges: k past K is zero, results past M and N are not stored
	assert_output --partial 'select(%k14 < 27, '
	assert_output --partial 'if %row34 < 24 {'
	# k in 4 slices (blockIdx.z), added up with the relu by the last work
	# group of each tile to finish (a counter per 16x16 tile, issue 23)
	assert_output --partial 'alloc %ps0: f32[4,36,49] @gpu:global {coherent=true}'
	assert_output --partial 'alloc %count1: i32[3,4] @gpu:global {zeroed=true}'
	assert_output --partial 'let %k15: i32 = (%bz2 * 9 + %kt14) * 16'
	assert_output --partial '%ps0[%bz2, %row34, %col35] = %acc13[0, 0]'
	assert_line --regexp '^ +mem_fence\(\)$'
	assert_output --partial 'let %seen36: i32 = atomic_add(%count1[%by3, %bx4], 1)'
	assert_output --partial '%last7[0] = select(%seen36 == 3, 1, 0)'
	assert_output --partial 'if %last7[0] != 0 {'
	assert_line --partial '%ps0[0, %row37, %col38] + %ps0[1, %row37, %col38] + %ps0[2, %row37, %col38] + %ps0[3, %row37, %col38]'
	assert_output --partial '%count1[%by3, %bx4] = 0'
	refute_output --partial 'kernel @fused_nn_conv2d_nn_relu_k1'
	# --split-k-kernel: the slices added up by a second kernel, an element an item
	run -0 ir-lower --split-k-kernel "$BATS_TEST_DIRNAME/ir-lower/gpu_tiles_nchw.ir"
	[ "$(grep -c '^ *barrier$' <<< "$output")" = 6 ]
	assert_output --partial 'alloc %ps0: f32[4,36,49] @gpu:global'
	refute_output --partial 'atomic_add'
	refute_output --partial 'zeroed'
	assert_output --partial 'kernel @fused_nn_conv2d_nn_relu_k1'
	assert_line --partial '%ps0[0, %i38, %i37] + %ps0[1, %i38, %i37] + %ps0[2, %i38, %i37] + %ps0[3, %i38, %i37]'
	# as ir-fold-constants leaves them: a constant weight made HWIO
	printf 'device @gpu = gpu(0)\nfn @main(%%x: f32[1,2,14,14]) -> f32[1,16,14,14] {\n  %%w = const f32[16,2,3,3] [%s]\n  %%c = nn.conv2d(%%x, %%w) {padding=[1,1,1,1]}\n  return %%c\n}\n' \
		"$(seq -s ', ' 1 288)" > "$BATS_TEST_TMPDIR/c.ir"
	ir-fold-constants "$BATS_TEST_TMPDIR/c.ir" > "$BATS_TEST_TMPDIR/f.ir"
	grep -q 'kernel_layout="HWIO"' "$BATS_TEST_TMPDIR/f.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/f.ir"
	assert_output --partial 'alloc %as'
}
@test "lower: a ragged gpu product short of work groups splits k before its 8x8 tiles shrink (vit_b_16's 197 tokens, an encoder's 1024)" {
	cat > "$BATS_TEST_TMPDIR/mlp.ir" <<'IR'
device @gpu = gpu(0)
fn @main(%x: f32[197,3072], %w: f32[768,3072]) -> f32[197,768] {
  %y = nn.dense(%x, %w)
  return %y
}
IR
	ir-plan-devices "$BATS_TEST_TMPDIR/mlp.ir" > "$BATS_TEST_TMPDIR/p.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/p.ir"
	# 2 x 12 blocks of 128x64 in 16 slices of k (12 steps of 16 each),
	# not 7 x 24 blocks of 32x32 in 2 slices; 16 slices of an 8x4 tile
	# (512 adds an item) are too many for the last group alone: a
	# second kernel adds them
	assert_output --partial 'alloc %ps0: f32[16,197,768] @gpu:global'
	refute_output --partial 'coherent'
	refute_output --partial 'atomic_add'
	[ "$(grep -c '^ *kernel @' <<< "$output")" = 2 ]
	assert_output --partial 'for %by2 in 0..2 bind(blockIdx.y) {'
	assert_output --partial 'for %bx3 in 0..12 bind(blockIdx.x) {'
	assert_output --partial 'alloc %acc11: f32[8,4] @gpu:local'
	# sizes that divide into the tiles split first too (an encoder's 1024
	# tokens): 8 x 4 blocks of 128x128 in slices, not 32x32 blocks; a
	# product splits until 256 work groups (8 slices), then takes half
	# as many while no multiprocessor (132) gets more work: 4 slices,
	# 128 groups of 32 steps each, not 256 groups (2 a multiprocessor on
	# most) of 16
	sed 's/197/1024/g; s/3072/2048/g; s/768/512/g' "$BATS_TEST_TMPDIR/mlp.ir" > "$BATS_TEST_TMPDIR/enc.ir"
	ir-plan-devices "$BATS_TEST_TMPDIR/enc.ir" > "$BATS_TEST_TMPDIR/p.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/p.ir"
	assert_output --partial 'alloc %ps0: f32[4,1024,512] @gpu:global'
	assert_output --partial 'for %by2 in 0..8 bind(blockIdx.y) {'
	assert_output --partial 'alloc %acc11: f32[8,8] @gpu:local'
	# a product's slices may be as short as 2 steps of k: the encoder's
	# out-projection (k 512, 32 steps) in slices of its 8x8 tiles (8 of
	# 4 steps fill the grid, then 4 of 8), not 4 slices of 4x4 tiles
	sed 's/197/1024/g; s/3072/512/g; s/768/512/g' "$BATS_TEST_TMPDIR/mlp.ir" > "$BATS_TEST_TMPDIR/proj.ir"
	ir-plan-devices "$BATS_TEST_TMPDIR/proj.ir" > "$BATS_TEST_TMPDIR/p.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/p.ir"
	assert_output --partial 'alloc %ps0: f32[4,1024,512] @gpu:global'
	assert_output --partial 'alloc %acc11: f32[8,8] @gpu:local'
	# the FFN's first product (128 tiles of 1024x2048) is not split: 2
	# slices would give most multiprocessors two groups of half the work
	sed 's/197/1024/g; s/3072/512/g; s/768/2048/g' "$BATS_TEST_TMPDIR/mlp.ir" > "$BATS_TEST_TMPDIR/ffn.ir"
	ir-plan-devices "$BATS_TEST_TMPDIR/ffn.ir" > "$BATS_TEST_TMPDIR/p.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/p.ir"
	refute_output --partial 'alloc %ps'
	assert_output --partial ': f32[8,8] @gpu:local'
	# the QKV product's 96 tiles of 8x8 would take 4 slices (2 would be
	# 2 groups on some multiprocessors); 8x6 tiles make one wave of 128
	# groups, unsplit
	sed 's/197/1024/g; s/3072/512/g; s/768/1536/g' "$BATS_TEST_TMPDIR/mlp.ir" > "$BATS_TEST_TMPDIR/qkv.ir"
	ir-plan-devices "$BATS_TEST_TMPDIR/qkv.ir" > "$BATS_TEST_TMPDIR/p.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/p.ir"
	refute_output --partial 'alloc %ps'
	assert_output --partial 'for %bx1 in 0..16 bind(blockIdx.x) {'
	assert_output --partial ': f32[8,6] @gpu:local'
	# half the rows: 64 groups of 8x6 are short of 3/4 of a wave, and the
	# 48 tiles of 8x8 split k (8 slices of 4 steps)
	sed 's/197/512/g; s/3072/512/g; s/768/1536/g' "$BATS_TEST_TMPDIR/mlp.ir" > "$BATS_TEST_TMPDIR/half.ir"
	ir-plan-devices "$BATS_TEST_TMPDIR/half.ir" > "$BATS_TEST_TMPDIR/p.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/p.ir"
	assert_output --partial 'alloc %ps0: f32[8,512,1536] @gpu:global'
	assert_output --partial ': f32[8,8] @gpu:local'
	# 16 slices of a 2x2 tile (64 adds) are added by the last group
	sed 's/197/64/g; s/3072/2048/g; s/768/64/g' "$BATS_TEST_TMPDIR/mlp.ir" > "$BATS_TEST_TMPDIR/small.ir"
	ir-plan-devices "$BATS_TEST_TMPDIR/small.ir" > "$BATS_TEST_TMPDIR/p.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/p.ir"
	assert_output --partial 'atomic_add'
	[ "$(grep -c '^ *kernel @' <<< "$output")" = 1 ]
}
@test "lower: a gpu dense or batch_matmul with few rows and a long k splits each result's sum over work items" {
	golden --from=ir-plan-devices ir-lower gpu_gemv
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/gpu_gemv.ir"
	# 8 results of 32 items a work group: 125 for the classifier's 1000
	assert_output --partial 'for %bx0 in 0..125 bind(blockIdx.x) {'
	assert_output --partial 'alloc %part1: f32[256] @gpu:shared'
	assert_output --partial '%acc5[0] = fma(%p0[0, %k7], %p1[%u4, %k7], %acc5[0])'
	assert_output --partial 'if %k10 < 300 {'
	[ "$(grep -c '^ *barrier$' <<< "$output")" = 10 ]
	# 8 rows or a short k keep the register tile
	sed 's/f32\[1,256\]/f32[8,256]/; s/f32\[1,1000\]/f32[8,1000]/' \
		"$BATS_TEST_DIRNAME/ir-lower/gpu_gemv.ir" > "$BATS_TEST_TMPDIR/rows.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/rows.ir"
	[ "$(grep -c 'alloc %part' <<< "$output")" = 1 ]
	# a device of smaller work groups gets them (64 of 100 allowed: a
	# power of two, for the halving); under a warp's 32, none
	sed 's/gpu(0)/gpu(0) {max_work_group_size=100}/' \
		"$BATS_TEST_DIRNAME/ir-lower/gpu_gemv.ir" > "$BATS_TEST_TMPDIR/wg.ir"
	ir-plan-devices "$BATS_TEST_TMPDIR/wg.ir" | ir-lower | ir-plan-devices | ir-flatten-texture \
		| ir-codegen-ocl > /dev/null
	run -0 ir-lower "$BATS_TEST_TMPDIR/wg.ir"
	[ "$(grep -c 'alloc %part[0-9]*: f32\[64\] @gpu:shared' <<< "$output")" = 2 ]
	sed -i 's/=100}/=16}/' "$BATS_TEST_TMPDIR/wg.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/wg.ir"
	refute_output --partial 'alloc %part'
}
@test "lower: --stats says a prim's shared-memory product once, under the prim's name, however many calls share it (issue 28, item 14)" {
	cat > "$BATS_TEST_TMPDIR/two.ir" <<'IR'
device @gpu = gpu(0) {texture=true}
fn @main(%x: f32[1,16,28,28,4], %w1: f32[16,64,3,3,4], %w2: f32[16,64,3,3,4]) -> f32[1,16,28,28,4] {
  %a = nn.conv2d(%x, %w1) {padding=[1,1,1,1], data_layout="NCHW4c", kernel_layout="OIHW4o", out_layout="NCHW4c"}
  %b = nn.conv2d(%a, %w2) {padding=[1,1,1,1], data_layout="NCHW4c", kernel_layout="OIHW4o", out_layout="NCHW4c"}
  return %b
}
IR
	ir-plan-devices "$BATS_TEST_TMPDIR/two.ir" > "$BATS_TEST_TMPDIR/p.ir"
	run -0 --separate-stderr ir-lower --stats "$BATS_TEST_TMPDIR/p.ir"
	[ "$(grep -c '^prim @' <<< "$output")" = 1 ]
	[[ "$stderr" == *"1 call of a prim shared with an identical group"* ]]
	[ "$(grep -c 'is a matrix product tiled in shared memory' <<< "$stderr")" = 1 ]
	grep -q "^ir-lower: @$(sed -n 's/^prim @\([^(]*\)(.*/\1/p' <<< "$output") is a matrix product tiled" <<< "$stderr"
}

@test "lower: a packed conv2d the shared-memory product takes keeps its images, loaded and stored in texels" {
	golden --from=ir-plan-devices ir-lower gpu_tiles_packed
	run -0 --separate-stderr ir-lower --stats "$BATS_TEST_DIRNAME/ir-lower/gpu_tiles_packed.ir"
	[[ "$stderr" == *"is a matrix product tiled in shared memory, on images where they fit"* ]]
	refute_output --partial '@gpu:global'
	assert_output --partial '@gpu:shared'
	assert_output --partial '@gpu:texture:weight'
	# every access to an image is a whole texel, so that it flattens
	run -0 ir-flatten-texture "$BATS_TEST_TMPDIR/gpu_tiles_packed.out"
	assert_output --partial 'texture2d_store('
	# 64 -> 64 channels at 56x56: blocks of 32x32 results (8 x 32 items
	# with 4x1 tiles), not 64x16, as many work groups
	printf 'device @gpu = gpu(0) {texture=true}\nfn @main(%%x: f32[1,16,56,56,4], %%w: f32[16,64,3,3,4]) -> f32[1,16,56,56,4] {\n  %%c = nn.conv2d(%%x, %%w) {padding=[1,1,1,1], data_layout="NCHW4c", kernel_layout="OIHW4o", out_layout="NCHW4c"}\n  return %%c\n}\n' > "$BATS_TEST_TMPDIR/c64.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/c64.ir"
	assert_output --regexp 'in 0\.\.8 bind\(threadIdx\.y\).*'
	assert_output --partial 'in 0..32 bind(threadIdx.x)'
	assert_output --partial 'in 0..98 bind(blockIdx.x)'
	# --no-tile keeps the texel schedule, on images
	run -0 ir-lower --no-tile "$BATS_TEST_DIRNAME/ir-lower/gpu_tiles_packed.ir"
	assert_output --partial '@gpu:texture'
	refute_output --partial '@gpu:shared'
}
@test "lower: a packed conv2d on a cpu pads its input, then tiles 4 output texels with 16-lane multiply-adds" {
	golden --from=ir-plan-devices ir-lower packed_cpu
}
@test "lower: a packed cpu conv2d's fused consumers run on several channel blocks' texels as one vector (issue 23)" {
	golden --from=ir-plan-devices ir-lower packed_wide
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/packed_wide.ir"
	# 1x1 conv: SiLU on a column's 4 texels in 16 lanes, the bias gathered
	# from 4 blocks, each texel stored on its own (the shifted last tile
	# of 10 texels storing only its own)
	sed -n '/^prim @fused_nn_conv2d_add_sigmoid_multiply(/,/^}/p' <<< "$output" > "$BATS_TEST_TMPDIR/silu.ir"
	grep -Eq '%wv[0-9]+\[12:4\] = %p2\[0, %o[0-9]+ \+ 3, 0, 0, 0:4\]' "$BATS_TEST_TMPDIR/silu.ir"
	grep -Eq 'let %v[0-9]+: f32x16 = sigmoid\(%v[0-9]+\)' "$BATS_TEST_TMPDIR/silu.ir"
	grep -Eq 'if %o[0-9]+ \+ 3 >= %o[0-9]+ \{' "$BATS_TEST_TMPDIR/silu.ir"
	grep -Eq '%out\[0, %o[0-9]+ \+ 3, %i[0-9]+, %ox[0-9]+ \+ %u[0-9]+, 0:4\] = %res[0-9]+\[12:4\]' "$BATS_TEST_TMPDIR/silu.ir"
	[ "$(grep -c '= sigmoid(' "$BATS_TEST_TMPDIR/silu.ir")" = 1 ]
	# depthwise of 10 blocks: 2 a tile, in 8 lanes, the residual gathered too
	assert_output --regexp '%wv[0-9]+\[4:4\] = %p3\[0, %c[0-9]+ \+ 1, %i[0-9]+, %i[0-9]+, 0:4\]'
	assert_output --regexp 'let %v[0-9]+: f32x8 = %v[0-9]+ \+ %v[0-9]+'
	# depthwise of 4 blocks: relu6 and the scalar in 16 lanes
	assert_output --regexp 'let %v[0-9]+: f32x16 = %v[0-9]+ \* broadcast<f32x16>\(%p2\[0\]\)'
	# an operand of rank 4 keeps a texel at a time
	sed -n '/^prim @fused_nn_conv2d_subtract(/,/^}/p' <<< "$output" > "$BATS_TEST_TMPDIR/sub.ir"
	[ "$(grep -c 'alloc %res' "$BATS_TEST_TMPDIR/sub.ir")" = 0 ]
	[ "$(grep -Ec 'let %v[0-9]+: f32x4 = %s[0-9]+ - %p2' "$BATS_TEST_TMPDIR/sub.ir")" = 4 ]
}
@test "lower: a cpu conv2d whose width no 4 to 8 columns divide takes shifted tiles, the last one storing only its own columns (issue 23)" {
	golden --from=ir-plan-devices ir-lower conv_cpu
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/conv_cpu.ir"
	# 13 columns: 2 tiles of 7; 55: 7 tiles of 8, the last from column 47
	assert_output --regexp 'let %ox[0-9]+: i32 = min\(%ox[0-9]+, 6\)'
	assert_output --regexp 'let %ox[0-9]+: i32 = min\(%ox[0-9]+, 47\)'
	assert_output --regexp 'alloc %acc[0-9]+: f32\[7,8\] @cpu:local'
	assert_output --regexp 'if %ox[0-9]+ \+ %u[0-9]+ >= %ox[0-9]+ \{'
	# NCHW into NCHW4c: 4 weight texels gathered into 16 lanes, stored a texel at a time
	assert_output --regexp '%wg[0-9]+\[12:4\] = %p1\[%o[0-9]+ \+ 3, %r[0-9]+, %r[0-9]+, %r[0-9]+, 0:4\]'
	assert_output --regexp '%out\[%i[0-9]+, %o[0-9]+ \+ 3, %i[0-9]+, %ox[0-9]+ \+ %u[0-9]+, 0:4\] = '
	# 40 channels: 3 tiles of 16, the last from channel 24 storing from 32
	assert_output --regexp 'let %oc[0-9]+: i32 = min\(%oc[0-9]+, 24\)'
	assert_output --regexp 'if %oc[0-9]+ \+ %u[0-9]+ >= %oc[0-9]+ \{'
	# packed (NCHW4c) at 13 columns: 2 tiles of 7 too, the second shifted
	sed -n '/^prim @nn_conv2d_6/,/^}/p' <<< "$output" > "$BATS_TEST_TMPDIR/packed.ir"
	grep -Eq 'let %ox[0-9]+: i32 = min\(%ox[0-9]+, 6\)' "$BATS_TEST_TMPDIR/packed.ir"
	grep -Eq 'alloc %acc[0-9]+: f32\[7,16\]' "$BATS_TEST_TMPDIR/packed.ir"
	[ "$(grep -Ec 'if %ox[0-9]+ \+ %u[0-9]+ >= %ox[0-9]+ \{' "$BATS_TEST_TMPDIR/packed.ir")" = 4 ]
	# packed, 40 channels: the last tile of 4 texels shifted down to texel 6
	sed -n '/^prim @nn_conv2d_7/,/^}/p' <<< "$output" > "$BATS_TEST_TMPDIR/packed40.ir"
	grep -Eq 'let %o[0-9]+: i32 = min\(%o[0-9]+, 6\)' "$BATS_TEST_TMPDIR/packed40.ir"
	grep -Eq 'if %o[0-9]+ \+ 3 >= %o[0-9]+ \{' "$BATS_TEST_TMPDIR/packed40.ir"
}
@test "lower: grouped and depthwise conv2d on a cpu: a row of outputs per item, the input window read once into registers (issue 23)" {
	golden --from=ir-plan-devices ir-lower depthwise_cpu
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/depthwise_cpu.ir"
	# every conv: a window per item, no element-per-item bounds test
	[ "$(grep -c '^prim' <<< "$output")" = 5 ]
	[ "$(grep -c 'alloc %win' <<< "$output")" = 5 ]
	# NCHW: 5 columns of scalars; stride 2 reads a window of 13 for 5x5
	assert_output --partial 'alloc %win5: f32[13] @cpu:local'
	assert_output --partial '%acc4[%u12] = fma(%win5[%u12 * 2 + %u10], %w11, %acc4[%u12])'
	# packed: texels of 2 and 4 channel blocks side by side in 8 and 16 lanes
	assert_output --partial 'alloc %win2: f32[9,8] @cpu:local'
	assert_output --partial 'alloc %win2: f32[12,16] @cpu:local'
	assert_output --partial '%win2[%u7, 12:4] = select(%in9, %p0[0, 3, %y6, %cx8, 0:4]'
	assert_output --partial '%acc1[%u12, 0:16] = fma(%win2[%u12 + %u10, 0:16], %w11, %acc1[%u12, 0:16])'
	# a row in the padding is skipped whole
	assert_output --partial 'if %y8 >= 0 && %y8 < 9 {'
	# fused consumers take the row as a vector (2 of the 10 columns here)
	assert_output --partial 'let %v18: f32x2 = %s17 + broadcast<f32x2>(%p2[%i3])'
	assert_output --partial '%out[0, %i3, %i2, %ox4:2] = %v19'
	# output channels per group a multiple of 4 keep the channel-vector tile
	sed 's/%w2: f32\[12,1,5,5\]/%w2: f32[24,1,5,5]/; s/f32\[1,12,5,5\]/f32[1,24,5,5]/' \
		"$BATS_TEST_DIRNAME/ir-lower/depthwise_cpu.ir" > "$BATS_TEST_TMPDIR/m4.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/m4.ir"
	[ "$(grep -c 'alloc %win' <<< "$output")" = 4 ]
	run -0 ir-lower --no-tile "$BATS_TEST_DIRNAME/ir-lower/depthwise_cpu.ir"
	refute_output --partial 'alloc %win'
}
@test "lower: max and average pools on a cpu: a row of outputs per item, each tap's columns one vector (issue 23)" {
	golden --from=ir-plan-devices ir-lower pool_cpu
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/pool_cpu.ir"
	# stride 1: each tap a vector straight from the input, inside the row
	assert_output --regexp '%acc[0-9]+\[0:8\] = max\(%acc[0-9]+\[0:8\], %p0\[0, %i[0-9]+, %y[0-9]+, %x[0-9]+ \+ 2:8\]\)'
	assert_output --regexp 'let %in[0-9]+: bool = %x[0-9]+ >= 0 && %x[0-9]+ <= 3'
	# stride 2: the row read in vectors, the taps gathered from it
	assert_output --regexp '%row[0-9]+\[8:8\] = %p0\[%i[0-9]+, %i[0-9]+, %y[0-9]+, %x[0-9]+ \+ 8:8\]'
	assert_output --regexp '%tap[0-9]+\[7\] = %row[0-9]+\[15\]'
	assert_output --regexp '%acc[0-9]+\[0:8\] = %acc[0-9]+\[0:8\] \+ %tap[0-9]+\[0:8\]'
	# the row's ends: clamped, the padding selected to -inf
	assert_output --regexp 'select\(%cx[0-9]+ >= 0 && %cx[0-9]+ < 13, %p0\[0, %i[0-9]+, %y[0-9]+, min\(max\(%cx[0-9]+, 0\), 12\)\], -inf\)'
	# a shifted last tile stores only its own columns; an unshifted one a vector
	assert_output --regexp 'let %ox[0-9]+: i32 = min\(%ox[0-9]+, 2\)'
	assert_output --regexp 'if %ox[0-9]+ \+ 7 >= %ox[0-9]+ \{'
	assert_output --regexp '%out\[0, %i[0-9]+, %i[0-9]+, 0:8\] = %acc[0-9]+\[0:8\]'
	# seven pools tiled, the concatenation's too (its operands read in
	# vectors); the packed one an element per item
	[ "$(grep -c '^prim' <<< "$output")" = 8 ]
	[ "$(grep -c '^      alloc %tap\|let %in[0-9]*: bool\|%out\[0, %i[0-9]*, %i[0-9]*, 0:8\]' <<< "$output")" = 7 ]
	sed -n '/^prim @fused_concatenate_nn_max_pool2d/,/^}/p' <<< "$output" > "$BATS_TEST_TMPDIR/cat.ir"
	grep -Eq '%acc[0-9]+\[0:4\] = %p1\[0, %i[0-9]+ - 3, %y[0-9]+, %x[0-9]+ \+ 4:4\]' "$BATS_TEST_TMPDIR/cat.ir"
	sed -n '/^prim @nn_max_pool2d_4/,/^}/p' <<< "$output" | grep -q '%x[0-9]* >= 0 && %x[0-9]* < 7'
	run -0 ir-lower --no-tile "$BATS_TEST_DIRNAME/ir-lower/pool_cpu.ir"
	refute_output --partial 'alloc %row'
}
@test "lower: a concatenation along packed channel blocks reads each output texel whole from its operand; along the last axis element by element (issue 23)" {
	golden --from=ir-plan-devices ir-lower concat_packed
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/concat_packed.ir"
	assert_output --regexp '%acc[0-9]+\[0:4\] = %p1\[0, %i[0-9]+ - 3, %i[0-9]+, %i[0-9]+, 0:4\]'
	assert_output --regexp 'let %v[0-9]+: f32x4 = select\(%v[0-9]+ < broadcast<f32x4>\(0.0\)'
	refute_output --partial 'alloc %texel'
	assert_output --regexp '%acc[0-9]+\[0\] = %p1\[0, %i[0-9]+, %i[0-9]+, %i[0-9]+ - 5\]'
}
@test "lower: depthwise conv2d on a texture gpu: texels of up to 4 columns per item from images, NCHW rows of scalars (issue 23)" {
	golden --from=ir-plan-devices ir-lower depthwise_gpu
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/depthwise_gpu.ir"
	assert_output --partial '%p0: f32[1,3,8,8,4] @gpu:texture, %p1: f32[3,1,3,3,4] @gpu:texture:weight'
	assert_output --partial 'alloc %win11: f32[6,4] @gpu:local'
	assert_output --partial 'alloc %win6: f32[9] @gpu:local'
	assert_line --regexp 'bind\(threadIdx.y\)'
}
@test "lower: fusion never crosses a change of placement" { golden --from=ir-plan-devices ir-lower placement; }
@test "lower: split has two result buffers, concatenate takes a tuple's fields" {
	golden --from=ir-plan-devices ir-lower tuples
}
@test "lower: a split into one section is a call of a one-result prim, wrapped in a tuple" {
	golden --from=ir-plan-devices ir-lower split_one
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/split_one.ir"
	assert_line '  %s_0: f32[2,3] = call_lowered @split(%x)'
	assert_line '  %s: (f32[2,3],) = (%s_0,)'
}

@test "lower: comparisons, logic and where fuse as broadcasting operators" {
	golden --from=ir-plan-devices ir-lower logic
}

@test "lower: argmax and argmin fuse with their producers as reductions" {
	golden --from=ir-plan-devices ir-lower argmax
}

@test "lower: max and min fuse with their producers as sum does" {
	golden --from=ir-plan-devices ir-lower reduce_max_min
}

@test "lower: strided_slice and nn.pad fuse as injective operators" {
	golden --from=ir-plan-devices ir-lower slice_pad
}

@test "lower: --no-fuse makes one prim per operator" {
	run -0 sh -c "ir-lower --no-fuse '$BATS_TEST_DIRNAME/ir-lower/cnn_cpu.ir' | grep -c '^prim '"
	assert_output 7
	run -0 sh -c "ir-lower '$BATS_TEST_DIRNAME/ir-lower/cnn_cpu.ir' | grep -c '^prim '"
	assert_output 4
}

@test "lower: reshapes, squeezes and expand_dims alone over a buffer stay operators, views (no prim); not of an image, not under --no-fuse (issue 23, item 3)" {
	cat > "$BATS_TEST_TMPDIR/v.ir" <<'IR'
device @gpu = gpu(0) {texture=true}
fn @main(%x: f32[4,16], %y: f32[1,2,2,2,4]) -> (f32[4,16], f32[1,32], f32[1,2,2,2,4], f32[1,2,2,2,4], f32[4]) {
  %a = sum(%x) {axis=[1], keepdims=true}
  %v = reshape(%a) {newshape=[4]}
  %e = expand_dims(%v) {axis=1}
  %f = add(%x, %e)
  %s = squeeze(%e) {axis=[1]}
  %r = exp(%y)
  %g = reshape(%r) {newshape=[1, 32]}
  %k = negative(%r)
  %h = reshape(%g) {newshape=[1, 2, 2, 2, 4]}
  %t = (%f, %g, %h, %k, %s)
  return %t
}
IR
	run -0 --separate-stderr sh -c "ir-plan-devices '$BATS_TEST_TMPDIR/v.ir' | ir-lower --stats"
	assert_output --partial '%v: f32[4] on @gpu = reshape(%a) {newshape=[4]}'
	assert_output --partial '%e: f32[4,1] on @gpu = expand_dims(%v) {axis=1}'
	assert_output --partial '%s: f32[4] on @gpu = squeeze(%e) {axis=[1]}'
	# a view of an image's texels would read them elsewhere: a kernel
	assert_output --partial '%g: f32[1,32] on @gpu = call_lowered @reshape(%r)'
	assert_output --partial '%h: f32[1,2,2,2,4] on @gpu = call_lowered @reshape_1(%g)'
	[ "${stderr%%$'\n'*}" = "ir-lower: 3 reshapes left as views of their operands' buffers (no kernel)" ]
	run -0 sh -c "ir-plan-devices '$BATS_TEST_TMPDIR/v.ir' | ir-lower --no-fuse"
	assert_output --partial '%v: f32[4] on @gpu = call_lowered @reshape(%a)'
}

@test "lower: --no-texture keeps every buffer in global memory" {
	run -0 ir-lower --no-texture "$BATS_TEST_DIRNAME/ir-lower/texture_block.ir"
	refute_output --partial '@gpu:texture'
	assert_output --partial '@gpu:global'
}

@test "lower: dense and conv2d get register tiles; --no-tile computes one element per item" {
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/cnn_cpu.ir"
	assert_output --partial 'alloc %wt0: f32[3,3,3,4] @cpu:global'
	assert_output --partial 'unrolled {'
	assert_output --regexp 'fma\(%a[0-9]+, %p1\[%n[0-9]+ \+ %u[0-9]+, %k[0-9]+ \* 4:4\]'
	run -0 ir-lower --no-tile "$BATS_TEST_DIRNAME/ir-lower/cnn_cpu.ir"
	refute_output --partial 'unrolled'
	refute_output --partial 'alloc %wt'
	assert_output --partial '%acc1[0] = %acc1[0] + %p0[0, %r2] * %p1[%i0, %r2]'
}

@test "lower: cpu dense of 8 rows or more broadcasts x over columns of the weight transposed into panels" {
	cat > "$BATS_TEST_TMPDIR/d.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[16,20], %w: f32[64,20]) -> f32[16,64] {
  %d = nn.dense(%x, %w)
  return %d
}
IR
	run -0 ir-lower "$BATS_TEST_TMPDIR/d.ir"
	assert_output --partial 'alloc %wt0: f32[2,20,32] @cpu:global'
	assert_output --regexp 'let %w[0-9]+: f32x16 = %wt0\[%i[0-9]+, %k[0-9]+, 16:16\]'
	assert_output --regexp 'let %a[0-9]+: f32x16 = broadcast<f32x16>\(%p0\[%m[0-9]+ \+ 7, %k[0-9]+\]\)'
	refute_output --regexp '%acc[0-9]+\[[^]]*, 1\] \+'
}

@test "lower: a packed result is computed a texel at a time, in 4 lanes" {
	run -0 ir-lower --no-tile "$BATS_TEST_DIRNAME/ir-lower/texture_block.ir"
	assert_output --regexp '%out\[0, %i[0-9]+, %i[0-9]+, %gx[0-9]+, 0:4\] = '
	refute_output --regexp '%out\[[^]]*%i[0-9]+\] ='
	# tiled: 4 weight texels per tap, each input texel's channels by lane()
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/texture_block.ir"
	assert_output --regexp '%out\[0, %i[0-9]+, %i[0-9]+, %gx[0-9]+, 0:4\] = '
	assert_output --regexp 'let %w[0-9]+: f32x4 = %p1\[%i[0-9]+, %r[0-9]+ \* 4 \+ 3, %r[0-9]+, %r[0-9]+, 0:4\]'
	assert_output --regexp 'fma\(broadcast<f32x4>\(lane\(%t[0-9]+, 3\)\), %w[0-9]+, '
}

@test "lower: a long sum on a gpu is reduced across a work group, through shared memory, in slices" {
	printf 'device @g = gpu(0) {max_work_group_size=64}\nfn @main(%%x: f32[3,20000]) -> f32[3] {\n  %%0 = exp(%%x)\n  %%1 = mean(%%0) {axis=[1]}\n  return %%1\n}\n' > "$BATS_TEST_TMPDIR/r.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/r.ir"
	# 3 results make 3 work groups: each result's 2500 vectors of 8 in 9
	# slices of 278, a work group each
	assert_output --partial 'alloc %ps0: f32[9,3,1] @g:global'
	assert_output --partial 'for %bz1 in 0..9 bind(blockIdx.y) {'
	assert_output --partial 'for %bx2 in 0..3 bind(blockIdx.x) {'
	assert_output --partial 'alloc %part3: f32[64] @g:shared'
	assert_output --partial 'for %tx4 in 0..64 bind(threadIdx.x) {'
	assert_output --partial 'let %f7: i32 = %bz1 * 278 + (%r6 * 64 + %tx4)'
	assert_output --partial 'let %v8: f32x8 = exp(%p0[%bx2, %f7 * 8:8])'
	assert_output --partial '%part3[%tx4] = lane(%v9, 0) + lane(%v9, 1) + lane(%v9, 2) + lane(%v9, 3) + lane(%v9, 4) + lane(%v9, 5) + lane(%v9, 6) + lane(%v9, 7)'
	assert_output --partial '%part3[%tx4] = %part3[%tx4] + %part3[%tx4 + 32]'
	[ "$(grep -c '^ *barrier$' <<< "$output")" = 6 ]
	assert_output --partial '%ps0[%bz1, %bx2, 0] = %part3[%tx4]'
	# the second kernel adds up the slices, and divides
	assert_output --partial '%acc13[0] = %acc13[0] + %ps0[%s14, %gid12, 0]'
	assert_output --partial '%out[%gid12] = %acc13[0] / 20000.0'
	# a tenth as long: one work group per result, no second kernel
	sed 's/20000/2000/g' "$BATS_TEST_TMPDIR/r.ir" > "$BATS_TEST_TMPDIR/s.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/s.ir"
	assert_output --partial 'for %bx0 in 0..3 bind(blockIdx.x) {'
	refute_output --partial '%ps'
	run -0 ir-lower --no-tile "$BATS_TEST_TMPDIR/r.ir"
	refute_output --partial 'barrier'
}

@test "lower: gpu pools and reductions over several work items per result, buffers (odd sizes, windows, slices)" {
	golden --from=ir-plan-devices ir-lower reduce_gpu
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/reduce_gpu.ir"
	# 2x13 results of 63: 16 items each, 16 results per work group
	assert_output --partial 'let %t3: i32 = %tx2 % 16'
	assert_output --partial 'let %u4: i32 = %bx0 * 16 + %tx2 / 16'
	assert_output --partial 'if %t3 == 0 && %u4 < 26 {'
	# 2 channels of 320x256: vectors of 8, 10 slices, added up after
	assert_output --partial 'alloc %ps0: f32[10,2,1] @gpu:global'
	assert_output --partial '%acc5[0:8] = %acc5[0:8] + %p0[0, %bx2, %i9, %i8 * 8:8]'
	# the windows: their count, the padding's too; max over a 13x17 window
	assert_output --partial 'if %y'
	assert_output --regexp 'let %n[0-9]+: i32 = %n[0-9]+ \* %n[0-9]+'
	assert_output --regexp '%acc[0-9]+\[0\] = max\(%acc[0-9]+\[0\], %p0\['
	# softmax: the row's max and sum each combined, read by all after a barrier
	assert_output --regexp '%part[0-9]+\[%tx[0-9]+\] = max\(%part[0-9]+\[%tx[0-9]+\], %part[0-9]+\[%tx[0-9]+ \+ 16\]\)'
	assert_output --regexp 'let %m[0-9]+: f32 = %part[0-9]+\[%w[0-9]+\]'
	assert_output --regexp '%out\[%i[0-9]+, %i[0-9]+, %e[0-9]+\] = exp\(%p0\[%i[0-9]+, %i[0-9]+, %e[0-9]+\] - %m[0-9]+\) / %s[0-9]+'
	# the mean along the outer axis keeps an item per result
	assert_output --regexp 'prim @mean\(%p0: f32\[300,7\] @gpu:global, %out: f32\[7\] @gpu:global\) \{
  kernel @mean_k0 \{
    for %bx0 in 0..1 bind\(blockIdx.x\) \{
      for %tx1 in 0..7 bind\(threadIdx.x\) \{'
}

@test "lower: packed pools on a texture gpu add texels across work items and write them whole" {
	golden --from=ir-plan-devices ir-lower reduce_texture
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/reduce_texture.ir"
	assert_output --partial 'alloc %part1: f32[256,4] @gpu:shared'
	assert_output --partial '%part1[%tx2, 0:4] = %part1[%tx2, 0:4] + %part1[%tx2 + 32, 0:4]'
	assert_output --partial '%out[%i6, %i5, 0, 0, 0:4] = %part1[%tx2, 0:4] / broadcast<f32x4>(221.0)'
	[ "$(grep -o '@gpu:texture' <<< "$output" | wc -l)" = 4 ]
}

@test "lower: cpu reductions add rows in vectors along the last axis, and few results in slices" {
	golden --from=ir-plan-devices ir-lower reduce_cpu
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/reduce_cpu.ir"
	assert_output --partial 'let %v7: f32x8 = sigmoid(%p0[%i2, %i1, %q5, %j6 * 8:8])'
	assert_output --partial 'for %j8 in 16..17 {'
	assert_output --partial 'alloc %ps0: f32[12,6,1] @cpu:global'
	assert_output --partial 'for %s2 in 0..12 parallel {'
	assert_output --partial '%acc1[0:8] = %acc1[0:8] + cast<i64x8>(%p0[%u0, %j3 * 8:8])'
	# packed: 4 texels along a row gathered into 16 lanes, added up at the end; 7
	# columns keep a texel a step
	assert_output --regexp '%run[0-9]+\[12:4\] = %p0\[0, %u[0-9]+, %i[0-9]+, %i[0-9]+ \* 4 \+ 3, 0:4\]'
	assert_output --regexp '%acc[0-9]+\[0:16\] = %acc[0-9]+\[0:16\] \+ %run[0-9]+\[0:16\]'
	assert_output --regexp 'let %t[0-9]+: f32x4 = %acc[0-9]+\[0:4\] \+ %acc[0-9]+\[4:4\] \+ %acc[0-9]+\[8:4\] \+ %acc[0-9]+\[12:4\]'
	assert_output --regexp 'if %q[0-9]+ < 784 \{'
	sed -n '/^prim @nn_global_avg_pool2d_2(/,/^}/p' <<< "$output" > "$BATS_TEST_TMPDIR/p7.ir"
	grep -Eq '%acc[0-9]+\[0:4\] = %acc[0-9]+\[0:4\] \+ %p0\[0, %i[0-9]+, %r[0-9]+, %r[0-9]+, 0:4\]' "$BATS_TEST_TMPDIR/p7.ir"
	# --no-tile: an element per item, as before
	run -0 ir-lower --no-tile "$BATS_TEST_DIRNAME/ir-lower/reduce_cpu.ir"
	refute_output --partial 'f32x8'
	refute_output --partial '%ps'
}

@test "lower: images are written in whole texels: gathered when not a vector, else kept a buffer" {
	run -0 --separate-stderr ir-lower --stats "$BATS_TEST_DIRNAME/ir-lower/texel_writes.ir"
	assert_output --partial 'prim @layout_transform(%p0: f32[1,8,6,6] @gpu:global, %out: f32[1,2,6,6,4] @gpu:texture)'
	assert_output --regexp 'alloc %texel[0-9]+: f32\[4\] @gpu:local'
	assert_output --regexp '%out\[0, %i[0-9]+, %i[0-9]+, %gx[0-9]+, 0:4\] = %texel[0-9]+\[0:4\]'
	assert_output --partial 'prim @nn_softmax(%p0: f32[1,2,6,6,4] @gpu:texture, %out: f32[1,2,6,6,4] @gpu:global)'
	[[ "$stderr" == *"result %s of @nn_softmax is computed an element at a time, and an image is written a texel at a time: kept in global memory"* ]]
	ir-lower "$BATS_TEST_DIRNAME/ir-lower/texel_writes.ir" | ir-plan-devices > "$BATS_TEST_TMPDIR/planned.ir"
	run -0 grep -c device_copy "$BATS_TEST_TMPDIR/planned.ir"
	assert_output 1
	run -0 cat "$BATS_TEST_TMPDIR/planned.ir"
	assert_output --partial '%s_to_texture: f32[1,2,6,6,4] on @gpu:texture = device_copy(%s, @gpu:global -> @gpu:texture)'
}

@test "lower: a kernel writing an image has 2-d work groups of up to 16x16" {
	run -0 ir-lower --no-tile "$BATS_TEST_DIRNAME/ir-lower/texture_block.ir"
	assert_output --partial 'for %ty2 in 0..16 bind(threadIdx.y) {'
	assert_output --partial 'for %tx3 in 0..8 bind(threadIdx.x) {'
	run -0 ir-lower --no-tile --no-texture "$BATS_TEST_DIRNAME/ir-lower/texture_block.ir"
	refute_output --partial 'threadIdx.y'
	printf 'device @g = gpu(0) {texture=true, max_work_group_size=64}\nfn @main(%%x: f32[1,3,5,40,4]) -> f32[1,3,5,40,4] {\n  %%0 = exp(%%x)\n  return %%0\n}\n' > "$BATS_TEST_TMPDIR/img.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/img.ir"
	assert_output --partial 'for %by0 in 0..4 bind(blockIdx.y) {'
	assert_output --partial 'for %bx1 in 0..3 bind(blockIdx.x) {'
	assert_output --partial 'for %ty2 in 0..4 bind(threadIdx.y) {'
	assert_output --partial 'for %tx3 in 0..16 bind(threadIdx.x) {'
	assert_output --partial 'if %gx4 < 40 && %gy5 < 15 {'
}

@test "lower: an image beyond image2d_max falls back to a buffer, and --stats says so" {
	sed 's/{texture=true}/{texture=true, image2d_max=[16,16]}/' \
		"$BATS_TEST_DIRNAME/ir-lower/texture_block.ir" > "$BATS_TEST_TMPDIR/small.ir"
	run -0 --separate-stderr ir-lower --stats "$BATS_TEST_TMPDIR/small.ir"
	# the weight would be 2 high and 8*3*3 = 72 wide as texture:weight
	assert_output --partial '%p1: f32[2,8,3,3,4] @gpu:global'
	# activations are 1*2*8 = 16 high and 8 wide: they fit
	assert_output --partial '%p0: f32[1,2,8,8,4] @gpu:texture'
	[[ "$stderr" == *"operand %w1 of @fused_nn_conv2d_nn_relu: an image of 72x2 texels exceeds image2d_max [16, 16] of @gpu: kept in global memory"* ]]
	[[ "$stderr" == *"2 kept in global memory for image2d_max"* ]]
}

@test "lower: diamonds (x * sigmoid(x), a hard-swish spelled out, x * x) close inside a conv2d's group; one with a use outside does not" {
	golden --from=ir-plan-devices ir-lower diamonds
	run -0 sh -c "ir-plan-devices '$BATS_TEST_DIRNAME/ir-lower/diamonds.ir' | ir-lower"
	# the conv's value, let-bound once per texel, read by the three members that need it
	assert_output --partial 'let %v41: f32x4 = sigmoid(%v40)'
	assert_output --partial 'let %v42: f32x4 = %v40 * %v41'
	[ "$(grep -c '^  %.* = call_lowered' <<< "$output")" -eq 6 ]
}

@test "lower: the squeeze-and-excitation scale x * s (s per image and channel) is the prologue of the conv2d that consumes it on cpu, gpu and texture gpu; another use, a full-shaped s or an s shared by the images keep the multiply" {
	golden --from=ir-plan-devices ir-lower se_scale
	local t=$BATS_TEST_TMPDIR dev
	# the gpu and texture gpu forms, goldens too
	for dev in gpu tex; do
		retarget $dev "$BATS_TEST_DIRNAME/ir-lower/se_scale.ir" | ir-plan-devices | ir-lower > "$t/se_scale.$dev.out"
		[ -z "${UPDATE_GOLDEN:-}" ] || cp "$t/se_scale.$dev.out" "$BATS_TEST_DIRNAME/ir-lower/se_scale.$dev.out"
		diff -u "$BATS_TEST_DIRNAME/ir-lower/se_scale.$dev.out" "$t/se_scale.$dev.out"
	done
	run -0 --separate-stderr ir-lower --stats "$t/se_scale.in1.ir"
	[[ "$stderr" == *"ir-lower: 6 scale multiplies (x * s, s per image and channel) fused into the conv2d that consumes them, as its input's prologue"* ]]
	# the prims' names show the multiply; x and s are their first operands
	[ "$(grep -c '^prim @fused_multiply_nn_conv2d' <<< "$output")" -eq 6 ]
	assert_output --partial '= call_lowered @fused_multiply_nn_conv2d_nn_bias_add(%x, %s, %wp, %b)'
	assert_output --partial '= call_lowered @fused_multiply_nn_conv2d(%x2, %s2, %v2)'
	# the three that stay: a multiply of their own, then the convolution
	assert_output --partial '%n1: f32[2,6,5,7] on @cpu = call_lowered @multiply(%x, %s)'
	assert_output --partial '%n2: f32[2,6,5,7] on @cpu = call_lowered @multiply_1(%x, %z)'
	assert_output --partial '%n3: f32[2,6,5,7] on @cpu = call_lowered @multiply_2(%x, %s1)'
	[ "$(grep -c '= call_lowered @nn_conv2d(%n[123], %v3)' <<< "$output")" -eq 3 ]
	# cpu tiles that broadcast x over weight vectors scale the weights
	# once per input channel, s read at the image's and channel's index
	assert_output --regexp 'let %w[0-9]+: f32x16 = %wt[0-9]+\[%r[0-9]+, 0, 0, %oc[0-9]+:16\] \* broadcast<f32x16>\(%p1\[%i[0-9]+, %r[0-9]+, 0, 0\]\)'
	assert_output --regexp 'let %w[0-9]+: f32x16 = %wg[0-9]+\[3, 0:16\] \* broadcast<f32x16>\(%p1\[%i[0-9]+, %r[0-9]+, 0, 0, 3\]\)'
	# the tile of vectors along x multiplies a row of x by s
	assert_output --regexp 'let %x[0-9]+: f32x16 = %p0\[%i[0-9]+, %r[0-9]+, %i[0-9]+, 0:16\] \* broadcast<f32x16>\(%p1\[%i[0-9]+, %r[0-9]+, 0, 0\]\)'
	# a gpu's product scales x as it loads its tile; a texture gpu's
	# reads x's texel and s's, of the same image and channel block
	grep -Eq '%bs[0-9]+\[.*select\(.*%p0\[%im[0-9]+, %k[0-9]+, %oy[0-9]+, %ox[0-9]+\] \* %p1\[%im[0-9]+, %k[0-9]+, 0, 0\]' "$t/se_scale.gpu.out"
	grep -Eq '%p0\[%im[0-9]+, %ic[0-9]+, %oy[0-9]+, %ox[0-9]+, 0:4\] \* %p1\[%im[0-9]+, %ic[0-9]+, 0, 0, 0:4\]' "$t/se_scale.tex.out"
	grep -q '^prim @fused_multiply_nn_conv2d_4(%p0: f32\[2,2,8,8,4\] @cpu:texture, %p1: f32\[2,2,1,1,4\] @cpu:texture, ' "$t/se_scale.tex.out"
	run -0 sh -c "ir-flatten-texture '$t/se_scale.tex.out' | grep -c 'texture2d_load(%p1, '"
	# --no-fuse: every multiply a prim of its own
	run -0 ir-lower --no-fuse "$t/se_scale.in1.ir"
	refute_output --partial 'fused_multiply'
}

@test "lower: --stats counts operators, prims and fusions" {
	run -0 --separate-stderr ir-lower --stats "$BATS_TEST_DIRNAME/ir-lower/cnn_cpu.ir"
	[ "$stderr" = "ir-lower: 1 reshape left as view of its operand's buffer (no kernel)
ir-lower: 7 operators in 4 prims (2 fused into a producer, 0 calls of a prim shared with an identical group); 0 buffers in texture memory, 0 kept in global memory for image2d_max" ]
}

@test "lower: a value used twice fuses where its uses close a diamond inside the group, else it ends the group" {
	cat > "$BATS_TEST_TMPDIR/twice.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[4]) -> (f32[4], f32[4]) {
  %a = exp(%x)
  %b = nn.relu(%a)
  %c = add(%a, %b)
  %d = tanh(%c)
  %e = sigmoid(%d)
  %f = multiply(%d, %e)
  %g = negative(%d)
  %t = (%f, %g)
  return %t
}
IR
	run -0 ir-lower "$BATS_TEST_TMPDIR/twice.ir"
	# a = exp(x) is read by relu and add: computed once, in one kernel
	assert_output --partial 'prim @fused_exp_nn_relu_add_tanh('
	[ "$(grep -c 'exp(' <<< "$output")" -eq 1 ]
	# d has a use outside the diamond d * sigmoid(d): it is a buffer
	assert_output --partial 'prim @fused_sigmoid_multiply('
	assert_output --partial 'prim @negative('
	# without the diamond rule: exp, then relu and add apart
	run -0 ir-lower --no-fuse "$BATS_TEST_TMPDIR/twice.ir"
	assert_output --partial 'prim @exp('
}

@test "lower: the scopes ir-lower chose are adopted by the second ir-plan-devices" {
	run -0 sh -c "ir-plan-devices '$BATS_TEST_DIRNAME/ir-lower/texture_block.ir' | ir-lower | ir-plan-devices"
	assert_output --partial '%r1: f32[1,2,8,8,4] on @gpu:texture = call_lowered @fused_nn_conv2d_nn_relu(%x, %w1)'
	# two texture kernels in a row need no copy between them
	refute_output --partial 'device_copy(%r1'
}

@test "lower: prim names are unique in the module" {
	cat > "$BATS_TEST_TMPDIR/two.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[4]) -> f32[2,2] {
  %a = exp(%x)
  %b = reshape(%a) {newshape=[2,2]}
  %c = exp(%b)
  return %c
}
IR
	run -0 ir-lower --no-fuse "$BATS_TEST_TMPDIR/two.ir"
	assert_output --partial 'prim @exp('
	assert_output --partial 'prim @exp_1('
}

@test "lower: identical groups share one prim; names stay dense" {
	cat > "$BATS_TEST_TMPDIR/same.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[4], %y: f32[2,2]) -> (f32[4], f32[2,2]) {
  %a = exp(%x)
  %b = exp(%a)
  %c = exp(%y)
  %t = (%b, %c)
  return %t
}
IR
	run -0 --separate-stderr ir-lower --no-fuse --stats "$BATS_TEST_TMPDIR/same.ir"
	[ "$(grep -c '^prim' <<< "$output")" = 2 ]
	assert_output --partial 'prim @exp(%p0: f32[4]'
	assert_output --partial 'prim @exp_1(%p0: f32[2,2]'
	assert_output --partial '%a: f32[4] = call_lowered @exp(%x)'
	assert_output --partial '%b: f32[4] = call_lowered @exp(%a)'
	assert_output --partial '%c: f32[2,2] = call_lowered @exp_1(%y)'
	[[ "$stderr" == *"in 2 prims (0 fused into a producer, 1 call of a prim shared with an identical group)"* ]]
}

@test "lower: output is deterministic" {
	a=$(ir-lower "$BATS_TEST_DIRNAME/ir-lower/cnn_cpu.ir" | cksum)
	b=$(ir-lower "$BATS_TEST_DIRNAME/ir-lower/cnn_cpu.ir" | cksum)
	[ "$a" = "$b" ]
}

@test "lower: a tensor beyond i32 indices is an error at its binding, nothing on stdout" {
	cat > "$BATS_TEST_TMPDIR/big.ir" <<'IR'
device @g = gpu(0)
fn @main(%x: f32[65536,65536]) -> f32[65536,65536] {
  %0 = exp(%x)
  return %0
}
IR
	run -1 --separate-stderr ir-lower "$BATS_TEST_TMPDIR/big.ir"
	[ -z "$output" ]
	[[ "$stderr" == *"big.ir:3:3: error: cannot lower %0: its result has 4294967296 elements, more than the 2147483647"* ]]
}

@test "lower: an integer beyond i32 in the code (a dilation of 2^32) is one error at its binding" {
	local o
	printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[1,1,4,4], %%w: f32[1,1,1,1]) {\n  %%0 = nn.conv2d(%%x, %%w) {dilation=[4294967296, 4294967296]}\n  return %%0\n}\n' > "$BATS_TEST_TMPDIR/d.ir"
	for o in --no-tile ''; do
		run -1 --separate-stderr ir-lower $o "$BATS_TEST_TMPDIR/d.ir"
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 3 ]
		[[ "${stderr_lines[0]}" == *"d.ir:3:3: error: cannot lower %0: its code needs the integer 4294967296, out of the range of i32" ]]
	done
}

@test "lower: a module without a device is one error at the first operator" {
	printf 'fn @main(%%x: f32[4]) {\n  %%0 = negative(%%x)\n  %%1 = exp(%%0)\n  return %%1\n}\n' > "$BATS_TEST_TMPDIR/n.ir"
	run -1 --separate-stderr ir-lower --no-fuse "$BATS_TEST_TMPDIR/n.ir"
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	[[ "${stderr_lines[0]}" == *"n.ir:2:3: error: no device is declared, so %0 cannot be lowered" ]]
}

@test "lower: an integer average adds up in 64 bits, as the graph level does (no wrapped sum)" {
	for dev in 'cpu(0)' 'gpu(0)'; do
		cat > "$BATS_TEST_TMPDIR/m.ir" <<-EOF2
		device @d = $dev
		fn @main() -> (u8[1], i32[], i8[1,1,1,1], u8[1,1,1,1], u8[]) {
		  %0 = const u8[4] [200, 200, 200, 200]
		  %1 = mean(%0) {keepdims=true}
		  %2 = const i32[3] [2000000000, 2000000000, -1]
		  %3 = mean(%2)
		  %4 = const i8[1,1,2,2] [-100, -100, -100, -99]
		  %5 = nn.global_avg_pool2d(%4)
		  %6 = const u8[1,1,2,2] [250, 250, 250, 250]
		  %7 = nn.avg_pool2d(%6) {pool_size=[2,2]}
		  %8 = sum(%0)
		  %t = (%1, %3, %5, %7, %8)
		  return %t
		}
		EOF2
		run -0 ir-run --interp "$BATS_TEST_TMPDIR/m.ir"
		local want=$output
		assert_line -n 0 '0: u8[1] [200]'
		assert_line -n 1 '1: i32[] [1333333333]'
		assert_line -n 2 '2: i8[1,1,1,1] [-99]'
		assert_line -n 3 '3: u8[1,1,1,1] [250]'
		assert_line -n 4 '4: u8[] [32]'
		ir-plan-devices "$BATS_TEST_TMPDIR/m.ir" | ir-lower > "$BATS_TEST_TMPDIR/l.ir"
		run -0 ir-run --interp "$BATS_TEST_TMPDIR/l.ir"
		assert_output "$want"
	done
}

# issue 27: attention's softmax rows (vit_b_16: 12 x 197 x 197) in vectors
@test "lower: cpu softmax of f32 rows of 16 or more runs in vectors (16 lanes from 64, else 8), the tail one at a time; shorter rows, f16 and --no-tile keep an element at a time" {
	cat > "$BATS_TEST_TMPDIR/m.ir" <<-'EOF2'
	device @cpu = cpu(0)
	fn @main(%x: f32[2,3,197], %z: f32[4,19], %s: f32[3,10], %h: f16[2,32]) -> (f32[2,3,197], f32[4,19], f32[3,10], f16[2,32]) {
	  %a = nn.softmax(%x)
	  %c = nn.softmax(%z)
	  %d = nn.softmax(%s)
	  %e = nn.softmax(%h)
	  %t = (%a, %c, %d, %e)
	  return %t
	}
	EOF2
	ir-plan-devices "$BATS_TEST_TMPDIR/m.ir" > "$BATS_TEST_TMPDIR/p.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/p.ir"
	# 197: 12 vectors of 16 and a tail of 5; the maximum, then exp stored and summed, then divided
	assert_output --regexp '%acc[0-9]+\[0:16\] = max\(%acc[0-9]+\[0:16\], %p0\[%i[0-9]+, %i[0-9]+, %j[0-9]+ \* 16:16\]\)'
	assert_output --regexp 'for %j[0-9]+ in 192\.\.197 \{'
	assert_output --regexp 'let %e[0-9]+: f32x16 = exp\(%p0\[%i[0-9]+, %i[0-9]+, %j[0-9]+ \* 16:16\] - broadcast<f32x16>\(%m[0-9]+\)\)'
	assert_output --regexp '%out\[%i[0-9]+, %i[0-9]+, %j[0-9]+ \* 16:16\] = %out\[%i[0-9]+, %i[0-9]+, %j[0-9]+ \* 16:16\] / broadcast<f32x16>\(%s[0-9]+\)'
	# 19: 2 vectors of 8 and a tail of 3
	assert_output --regexp 'let %e[0-9]+: f32x8 = exp\(%p0\[%u[0-9]+, %j[0-9]+ \* 8:8\]'
	assert_output --regexp 'for %j[0-9]+ in 16\.\.19 \{'
	# 10 wide and f16: exp(x - max) / sum an element at a time, as before
	[ "$(grep -c 'exp(%p0\[%i[0-9]*, %r[0-9]*\] - %m[0-9]*) / %s[0-9]*' <<< "$output")" -eq 2 ]
	run -0 ir-lower --no-tile "$BATS_TEST_TMPDIR/p.ir"
	refute_output --partial 'f32x'
}

# issue 27: nn.layer_norm is one kernel of rows (lower_norm.c), where
# torch.onnx's decomposition was four (vit_b_16: 100 launches a run)
@test "lower: gpu layer_norm is one kernel per operator, rows of 32 or more spread over work items (mean and variance combined in shared memory, each item's share read once), shorter rows an item each" {
	golden --from=ir-plan-devices ir-lower layer_norm
	run -0 ir-lower "$BATS_TEST_DIRNAME/ir-lower/layer_norm.ir"
	[ "$(grep -c '^prim @nn_layer_norm' <<< "$output")" -eq 3 ]
	[ "$(grep -c '^  kernel @nn_layer_norm' <<< "$output")" -eq 3 ]
	# rows of 77: 32 items each, 8 rows per work group (6 rows: the rest idle)
	assert_output --partial 'let %u4: i32 = %bx0 * 8 + %tx2 / 32'
	assert_output --partial 'if %u4 < 6 {'
	assert_output --regexp 'let %mean[0-9]+: f32 = %part1\[%w5\] / 77\.0'
	assert_output --regexp 'let %sd[0-9]+: f32 = sqrt\(%part1\[%w5\] / 77\.0 \+ 0\.00001\)'
	# each item's 3 elements read once, kept for the variance and the result
	assert_output --partial 'alloc %xs8: f32[3] @gpu:local'
	assert_output --regexp '%xs8\[%r10\] = %x[0-9]+'
	assert_output --regexp 'let %d[0-9]+: f32 = %xs8\[%r[0-9]+\] - %mean13'
	assert_output --regexp '%out\[%i7, %i6, %e[0-9]+\] = \(%xs8\[%r[0-9]+\] - %mean13\) / %sd18 \* %p1\[%e[0-9]+\] \+ %p2\[%e[0-9]+\]'
	# x is read from global memory by the first pass alone
	[ "$(grep -c '= %p0\[%i7, %i6, ' <<< "$output")" -eq 1 ]
	# rows of 30 over two axes: an item per row, epsilon 0.001
	assert_output --regexp 'sqrt\(%acc[0-9]+\[0\] / 30\.0 \+ 0\.001\)'
	# rows of 120 over two axes (axis=1): gamma [3,40] at the row's two indices
	assert_output --regexp '\* %p1\[%i[0-9]+, %i[0-9]+\] \+ %p2\[%i[0-9]+, %i[0-9]+\]'
	# on a texture gpu a packed operand is read from its image; the result
	# stays a buffer, written an element at a time
	cat > "$BATS_TEST_TMPDIR/t.ir" <<-'EOF2'
	device @gpu = gpu(0) {texture=true}
	fn @main(%x: f32[1,2,6,6,4], %g: f32[2,6,6,4]) -> f32[1,2,6,6,4] {
	  %e = exp(%x)
	  %a = nn.layer_norm(%e, %g, %g) {axis=1}
	  return %a
	}
	EOF2
	run -0 --separate-stderr ir-lower --stats "$BATS_TEST_TMPDIR/t.ir"
	assert_output --partial 'prim @nn_layer_norm(%p0: f32[1,2,6,6,4] @gpu:texture, %p1: f32[2,6,6,4] @gpu:global, %out: f32[1,2,6,6,4] @gpu:global)'
	[[ "$stderr" == *"result %a of @nn_layer_norm is computed an element at a time, and an image is written a texel at a time: kept in global memory"* ]]
}

@test "lower: cpu layer_norm of f32 rows of 16 or more runs in vectors (16 lanes from 64, else 8), the tail one at a time; shorter rows, f16, rows over several axes and --no-tile keep an element at a time" {
	cat > "$BATS_TEST_TMPDIR/m.ir" <<-'EOF2'
	device @cpu = cpu(0)
	fn @main(%x: f32[2,3,197], %g: f32[197], %b: f32[197], %z: f32[4,19], %gz: f32[19], %bz: f32[19], %s: f32[3,10], %gs: f32[10], %h: f16[2,32], %gh: f16[32], %y: f32[2,4,8], %gy: f32[4,8]) -> (f32[2,3,197], f32[4,19], f32[3,10], f16[2,32], f32[2,4,8]) {
	  %a = nn.layer_norm(%x, %g, %b)
	  %c = nn.layer_norm(%z, %gz, %bz) {epsilon=0.5}
	  %d = nn.layer_norm(%s, %gs, %gs)
	  %e = nn.layer_norm(%h, %gh, %gh)
	  %f = nn.layer_norm(%y, %gy, %gy) {axis=1}
	  %t = (%a, %c, %d, %e, %f)
	  return %t
	}
	EOF2
	ir-plan-devices "$BATS_TEST_TMPDIR/m.ir" > "$BATS_TEST_TMPDIR/p.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/p.ir"
	[ "$(grep -c '^  kernel @nn_layer_norm' <<< "$output")" -eq 5 ]
	# 197: 12 vectors of 16 and a tail of 5; the sum, then the squares of x - mean
	assert_output --regexp '%acc[0-9]+\[0:16\] = %acc[0-9]+\[0:16\] \+ %p0\[%i[0-9]+, %i[0-9]+, %j[0-9]+ \* 16:16\]'
	assert_output --regexp 'for %j[0-9]+ in 192\.\.197 \{'
	assert_output --regexp 'let %d[0-9]+: f32x16 = %p0\[%i[0-9]+, %i[0-9]+, %j[0-9]+ \* 16:16\] - broadcast<f32x16>\(%mean[0-9]+\)'
	assert_output --regexp '%out\[%i[0-9]+, %i[0-9]+, %j[0-9]+ \* 16:16\] = \(%p0\[%i[0-9]+, %i[0-9]+, %j[0-9]+ \* 16:16\] - broadcast<f32x16>\(%mean[0-9]+\)\) / broadcast<f32x16>\(%sd[0-9]+\) \* %p1\[%j[0-9]+ \* 16:16\] \+ %p2\[%j[0-9]+ \* 16:16\]'
	# 19: 2 vectors of 8 and a tail of 3, epsilon 0.5
	assert_output --regexp '%out\[%u[0-9]+, %j[0-9]+ \* 8:8\] = '
	assert_output --regexp 'for %j[0-9]+ in 16\.\.19 \{'
	assert_output --partial '+ 0.5)'
	# f16: computed in f32, the result cast back
	assert_output --regexp 'cast<f16>\(\(cast<f32>\(%p0\[%i[0-9]+, %r[0-9]+\]\) - %mean[0-9]+\)'
	# 10 wide, f16 and over two axes: element at a time
	[ "$(grep -c 'let %mean[0-9]*: f32 = %acc[0-9]*\[0\] / ' <<< "$output")" -eq 3 ]
	run -0 ir-lower --no-tile "$BATS_TEST_TMPDIR/p.ir"
	refute_output --partial 'f32x'
}

# issue 27: a transformer's shuffles on a gpu read and stored through by
# the products (index_prologue, index_epilogue)
@test "lower: on a gpu, attention's transposes, reshapes and slices are read through by the products and stored through (no shuffle kernels)" {
	golden --from=ir-plan-devices ir-lower attention_gpu
	run -0 --separate-stderr ir-lower --stats "$BATS_TEST_DIRNAME/ir-lower/attention_gpu.ir"
	[[ "$stderr" == *"ir-lower: 12 index-only operators read through by products (operand prologues)"* ]]
	[[ "$stderr" == *"ir-lower: 4 transposes and reshapes stored through by products (epilogues)"* ]]
	[[ "$stderr" == *"24 operators in 5 prims"* ]]
	# every prim but softmax is a product (K's tile walks k, contiguous in QKV)
	[ "$(grep -c '^prim @' <<< "$output")" -eq 5 ]
	[ "$(grep '^prim @' <<< "$output" | grep -vc 'nn_dense\|nn_batch_matmul')" -eq 1 ]
	grep -q '^prim @fused_transpose_nn_dense_add(%p0: f32\[2,32,64\]' <<< "$output"
	grep -q '^prim @fused_nn_dense_add_reshape_transpose_add(' <<< "$output"
}
@test "lower: the shuffles stay kernels of their own on a cpu, under --no-fuse, and where a chain has another use or is a view" {
	local f=$BATS_TEST_DIRNAME/ir-lower/attention_gpu.ir
	# a cpu's tiles load and store vectors of buffers: today's grouping
	retarget cpu "$f" > "$BATS_TEST_TMPDIR/cpu.ir"
	run -0 --separate-stderr ir-lower --stats "$BATS_TEST_TMPDIR/cpu.ir"
	[[ "$stderr" != *prologue* && "$stderr" != *epilogue* ]]
	grep -q '^prim @transpose(' <<< "$output"
	grep -q '^prim @fused_strided_slice_reshape_transpose_divide(' <<< "$output"
	grep -q '^prim @fused_reshape_transpose_add(' <<< "$output"
	run -0 --separate-stderr ir-lower --no-fuse --stats "$f"
	[[ "$stderr" != *prologue* && "$stderr" != *epilogue* ]]
	grep -q '^prim @transpose(' <<< "$output"
	# %t is used twice, %r is a view already, %u's chain has a
	# multiply by a full tensor: each stays as it was
	cat > "$BATS_TEST_TMPDIR/other.ir" <<'IR'
device @gpu = gpu(0)
fn @main(%x: f32[2,8,16], %w: f32[4,16], %y: f32[16,16], %z: f32[16,16]) -> (f32[8,2,16], f32[8,2,4], f32[16,4], f32[16,4]) {
  %t = transpose(%x) {axes=[1, 0, 2]}
  %d = nn.dense(%t, %w) {units=4}
  %r = reshape(%y) {newshape=[16, 16]}
  %e = nn.dense(%r, %w) {units=4}
  %u = transpose(%z) {axes=[1, 0]}
  %m = multiply(%u, %z)
  %g = nn.dense(%m, %w) {units=4}
  %o = (%t, %d, %e, %g)
  return %o
}
IR
	run -0 --separate-stderr ir-lower --stats "$BATS_TEST_TMPDIR/other.ir"
	[[ "$stderr" != *prologue* ]]
	grep -q '^prim @transpose(' <<< "$output"
	grep -q '^prim @fused_transpose_multiply(' <<< "$output"
	grep -q '^  %r: f32\[16,16\] = reshape(%y)' <<< "$output"
	# a product's result used twice, or a strided_slice after it: no epilogue
	cat > "$BATS_TEST_TMPDIR/out.ir" <<'IR'
device @gpu = gpu(0)
fn @main(%x: f32[16,16], %w: f32[16,16]) -> (f32[16,16], f32[16,16], f32[16,8]) {
  %d = nn.dense(%x, %w)
  %t = transpose(%d) {axes=[1, 0]}
  %e = nn.dense(%x, %w)
  %s = strided_slice(%e) {axes=[1], begin=[0], end=[8], strides=[1]}
  %o = (%d, %t, %s)
  return %o
}
IR
	run -0 --separate-stderr ir-lower --stats "$BATS_TEST_TMPDIR/out.ir"
	[[ "$stderr" != *epilogue* ]]
	grep -q '^prim @transpose(' <<< "$output"
	grep -q '^prim @strided_slice(' <<< "$output"
}

# issue 27: a layer_norm after a gpu dense is the product's second kernel
# (norm_epilogue, lower_norm_product)
@test "lower: on a gpu, a layer_norm after a dense and its adds, reshapes and transposes normalizes the product's rows in its second kernel; a cpu, --no-tile, --no-fuse, few rows, a row over two axes, a moved last axis or another use keep it apart" {
	local d=$BATS_TEST_TMPDIR
	cat > "$d/m.ir" <<'IR'
device @gpu = gpu(0)
fn @main(%x: f32[32,48] on @gpu, %w: f32[64,48] on @gpu, %b: f32[64] on @gpu, %r: f32[4,8,64] on @gpu, %g: f32[64] on @gpu, %be: f32[64] on @gpu) -> f32[4,8,64] on @gpu {
  %d = nn.dense(%x, %w)
  %a = add(%d, %b)
  %s = reshape(%a) {newshape=[8,4,64]}
  %t = transpose(%s) {axes=[1,0,2]}
  %u = add(%t, %r)
  %n = nn.layer_norm(%u, %g, %be) {axis=2, epsilon=1e-5}
  return %n
}
IR
	ir-plan-devices "$d/m.ir" > "$d/p.ir"
	run -0 ir-lower --stats "$d/p.ir"
	assert_output --partial 'prim @fused_nn_dense_add_reshape_transpose_add_nn_layer_norm('
	assert_output --partial 'alloc %ps0: f32[1,32,64] @gpu:global'
	assert_output --partial 'kernel @fused_nn_dense_add_reshape_transpose_add_nn_layer_norm_k1 {'
	assert_output --partial 'ir-lower: 1 layer_norm normalizing the rows of the product before (norm epilogues)'
	[ "$(grep -c '^ *kernel @' <<< "$output")" = 2 ]
	# the first kernel stores the product's sums, the second reads them,
	# never an unnormalized row
	grep -q '^ *%ps0\[0, %row[0-9]*, %col[0-9]*\] = ' <<< "$output"
	grep -q '^ *let %s[0-9]*: f32 = %ps0\[0, ' <<< "$output"
	# kept apart: a layer_norm of its own prim after the product's
	apart() {
		run -0 ir-lower "$@"
		assert_output --partial 'prim @nn_layer_norm('
		refute_output --partial '_nn_layer_norm('
	}
	sed 's/= gpu(0)/= cpu(0)/' "$d/m.ir" | ir-plan-devices > "$d/cpu.ir"
	apart "$d/cpu.ir"
	apart --no-tile "$d/p.ir"
	run -0 ir-lower --no-fuse "$d/p.ir"
	assert_output --partial 'prim @nn_layer_norm('
	# 8 rows: fewer than the shared-memory tile's 16 (the product is
	# lower_tiled's register tile)
	sed 's/f32\[32,48\]/f32[8,48]/; s/newshape=\[8,4,64\]/newshape=[2,4,64]/; s/f32\[4,8,64\]/f32[4,2,64]/g' \
		"$d/m.ir" | ir-plan-devices > "$d/few.ir"
	apart "$d/few.ir"
	# normalized over the last two axes
	sed 's/{axis=2, epsilon=1e-5}/{axis=1, epsilon=1e-5}/; s/%g: f32\[64\]/%g: f32[8,64]/; s/%be: f32\[64\]/%be: f32[8,64]/' \
		"$d/m.ir" | ir-plan-devices > "$d/two.ir"
	apart "$d/two.ir"
	# a transpose moves the product's columns off the last axis (a row
	# to normalize is then a column of the product)
	cat > "$d/moved.ir" <<'IR'
device @gpu = gpu(0)
fn @main(%x: f32[64,48] on @gpu, %w: f32[64,48] on @gpu, %g: f32[64] on @gpu, %be: f32[64] on @gpu) -> f32[64,64] on @gpu {
  %d = nn.dense(%x, %w)
  %t = transpose(%d) {axes=[1,0]}
  %n = nn.layer_norm(%t, %g, %be) {axis=1, epsilon=1e-5}
  return %n
}
IR
	ir-plan-devices "$d/moved.ir" > "$d/p2.ir"
	apart "$d/p2.ir"
	sed 's/axes=\[1,0\]/axes=[0,1]/' "$d/moved.ir" | ir-plan-devices > "$d/kept.ir"
	run -0 ir-lower "$d/kept.ir"
	assert_output --partial 'prim @fused_nn_dense_transpose_nn_layer_norm('
	# the row is also the result
	sed 's/-> f32\[4,8,64\] on @gpu {/-> (f32[4,8,64], f32[4,8,64]) on @gpu {/; s/  return %n/  %o = (%n, %u)\n  return %o/' \
		"$d/m.ir" | ir-plan-devices > "$d/twice.ir"
	apart "$d/twice.ir"
}
