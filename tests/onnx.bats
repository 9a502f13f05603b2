#!/usr/bin/env bats
# ir-import-onnx: small ONNX models built by tests/onnx/cases.py with
# onnx.helper, imported, run by ir-run --interp (at the graph level, and
# lowered) and compared with numpy; the module's form; every error.
# bats file_tags=onnx

setup() {
	load test_helper
	C=$BATS_TEST_DIRNAME/onnx/cases.py
	have_python onnx numpy || skip "python3-onnx is not installed"
	cd "$BATS_TEST_TMPDIR" || return 1
}

# imported CASE [--lower]: the case imports, runs and equals numpy.
imported() {
	run $PY "$C" run "$1" "$BATS_TEST_TMPDIR/$1" "$IRPIPE_BIN" "${@:2}"
	echo "$output"
	[ "$status" -eq 0 ]
}

# make CASE: the case's model.onnx (and inputs) in ./CASE/
make_case() {
	$PY "$C" make "$1" "$1"
}

# --- models that run ---------------------------------------------------------------

@test "onnx: Conv, Relu, Add, Flatten and Gemm equal numpy, also lowered" {
	imported conv_relu_add_gemm
	imported conv_relu_add_gemm --lower
}

@test "onnx: Flatten of an empty tensor keeps its size 0 (newshape's 0 would copy the input's)" {
	imported flatten_empty
	imported flatten_empty --lower
	grep -q 'newshape=\[5, -1\]' flatten_empty/m.ir
}

@test "onnx: a Conv of 0 output channels gives an empty result (no channels=0)" {
	imported conv_no_output_channels
	imported conv_no_output_channels --lower
}

@test "onnx: Conv with groups, strides, dilations and asymmetric pads" {
	imported conv_groups_strides_dilation
	imported conv_groups_strides_dilation --lower
}

@test "onnx: Conv with auto_pad SAME_UPPER, SAME_LOWER (depthwise, bias) and VALID" {
	imported conv_auto_pad_same_upper
	imported conv_auto_pad_same_lower_depthwise
	imported conv_valid_weights_as_input --lower
}

@test "onnx: Gemm with alpha, beta, transA, transB, a bias C and weights as inputs" {
	imported gemm_alpha_beta_trans
	imported gemm_inputs_alpha_no_c --lower
}

@test "onnx: Add, Sub, Mul, Div broadcast as numpy does" {
	imported broadcasting_arith
	imported broadcasting_arith --lower
}

@test "onnx: several graph outputs are a tuple" {
	imported two_outputs
	grep -q -- '-> (f32\[2,3\], f32\[2,3\])' two_outputs/m.ir
}

@test "onnx: BatchNormalization folds into the Conv before it, else multiplies and adds" {
	imported batchnorm_folded_into_conv --lower
	# folded: the weights changed, and nothing is left of the normalization
	! grep -E 'multiply|add\(' batchnorm_folded_into_conv/m.ir
	grep -q 'file="W_bn.npy"' batchnorm_folded_into_conv/m.ir
	grep -q '%n: f32\[1,4,3,3\] = nn.bias_add' batchnorm_folded_into_conv/m.ir
	imported batchnorm_not_foldable --lower
	grep -q multiply batchnorm_not_foldable/m.ir
	imported batchnorm_params_as_inputs --lower
}

@test "onnx: MaxPool, AveragePool (ceil_mode, count_include_pad, auto_pad), GlobalAveragePool" {
	imported pools --lower
	imported maxpool_same_upper
}

@test "onnx: ReduceMean and ReduceSum, axes as attribute and as input" {
	imported reduce_mean_sum --lower
	imported reduce_sum_axes_attribute
}

@test "onnx: Softmax and LogSoftmax, opset 13 and the 2-D coercion before it" {
	imported softmax_13 --lower
	imported softmax_11_coerced
}

@test "onnx: Clip (inputs, and attributes before opset 11), Sigmoid, Tanh" {
	imported clip_sigmoid_tanh --lower
	imported clip_attributes_opset9
}

@test "onnx: Erf (GELU as torch writes it), HardSigmoid (alpha, beta, ONNX's defaults) and HardSwish" {
	imported erf_hard_sigmoid_hard_swish
	imported erf_hard_sigmoid_hard_swish --lower
	grep -q '= erf(%xs)$' erf_hard_sigmoid_hard_swish/m.ir
	grep -q '= hard_sigmoid(%x) {alpha=0.1666666716337204, beta=0.5}$' erf_hard_sigmoid_hard_swish/m.ir
	grep -q '= hard_sigmoid(%x) {alpha=0.2, beta=0.5}$' erf_hard_sigmoid_hard_swish/m.ir
	grep -q '= hard_swish(%x)$' erf_hard_sigmoid_hard_swish/m.ir
}

@test "onnx: LeakyRelu, PRelu, ThresholdedRelu, Shrink, Elu, Selu, Celu, Softplus, Softsign, Sinh, Cosh, Sign, IsInf, IsNaN, Mean, GlobalMaxPool, LessOrEqual, GreaterOrEqual, Xor are compositions of the IR's operators" {
	imported activations_composed
	imported activations_composed --lower
	grep -q '= less_equal(%x, %y)$' activations_composed/m.ir
	grep -q '= logical_xor(%p, %q)$' activations_composed/m.ir
	run grep -c '= where(' activations_composed/m.ir
	[ "$output" -ge 10 ]
}

@test "onnx: opset 1's models import (Softplus, Softsign, Not)" {
	imported opset1_softplus_not
	imported opset1_softplus_not --lower
}

@test "onnx: Gather by computed indices, GatherElements, Hardmax, NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss are one-hot masks" {
	imported gathers_onehot
	imported gathers_onehot --lower
	imported hardmax_opset11
	imported hardmax_opset11 --lower
	imported losses_onehot
	imported losses_onehot --lower
	# the mask: the indices compared with 0..K-1, a where and a sum
	grep -q '= equal(' gathers_onehot/m.ir
	grep -q '= argmax(%x) {axis=\[2\], keepdims=true' gathers_onehot/m.ir
}

@test "onnx: Floor, Ceil, Round, Mod (both forms), BitShift and Pow of mixed types are compositions of the IR's operators" {
	imported rounding_mod_shift_pow
	imported rounding_mod_shift_pow --lower
	# trunc is a cast to i64 and back where the value has a fraction
	grep -q '= cast(%x) {dtype="i64"}$' rounding_mod_shift_pow/m.ir
}

@test "onnx: Trilu, CumSum (computed k and axis), EyeLike, DepthToSpace, SpaceToDepth and ReduceProd are compositions of the IR's operators" {
	imported trilu_cumsum_eyelike_blocks_prod
	imported trilu_cumsum_eyelike_blocks_prod --lower
	# ReduceProd over 3 pads to 4 with ones
	grep -q 'pad_value=1, pad_width=\[0, 0, 0, 0, 0, 1\]' trilu_cumsum_eyelike_blocks_prod/m.ir
}

@test "onnx: OneHot, ScatterElements (none, add, mul) and Tile are compositions of the IR's operators" {
	imported onehot_scatter_tile
	imported onehot_scatter_tile --lower
}

@test "onnx: Resize (nearest, linear, cubic; scales or sizes) and Upsample are weights known at import, multiplied and summed per axis" {
	imported resize_modes
	imported resize_modes --lower
	imported upsample_nearest
	imported upsample_nearest --lower
}

@test "onnx: InstanceNormalization, MeanVarianceNormalization and LRN are compositions; opset 6's Max, Min and Sum import" {
	imported instnorm_mvn_lrn
	imported instnorm_mvn_lrn --lower
	imported max_sum_opset6
	imported max_sum_opset6 --lower
}

@test "onnx: ConvTranspose (groups, strides, dilations, pads, cropping pads, output_padding, output_shape, SAME_LOWER, 1-D) is a convolution of the input with zeros between its elements" {
	imported convtranspose_forms
	imported convtranspose_forms --lower
}

@test "onnx: 1-D MaxPool and AveragePool are 2-D ones of height 1" {
	imported pools_1d
	imported pools_1d --lower
}

@test "onnx: Sin, Cos, Asin, Acos, Atan are the IR's operators, Tan sin / cos; Asinh, Acosh, Atanh compositions" {
	imported sin_cos_tan
	imported sin_cos_tan --lower
	grep -q '= sin(%x)$' sin_cos_tan/m.ir
	grep -q '= cos(%x)$' sin_cos_tan/m.ir
}

@test "onnx: LayerNormalization (opset 17) is nn.layer_norm; read Mean and InvStdDev make it mean, subtract, rsqrt and products" {
	imported layer_normalization
	imported layer_normalization --lower
	run -0 grep -c '= mean(' layer_normalization/m.ir
	assert_output 2
	grep -q '%y1: f32\[2,3,8\] = nn.layer_norm(%x, %s1, %b1) {axis=2, epsilon=9.999999974752427e-07}$' layer_normalization/m.ir
	grep -q '%m2: f32\[2,1,1\] = mean(%x) {axis=\[1, 2\], keepdims=true}$' layer_normalization/m.ir
	grep -q '%i2: f32\[2,1,1\] = rsqrt(' layer_normalization/m.ir
}

@test "onnx: torch.onnx's decomposed LayerNorm (opset 13) is one nn.layer_norm where the chain matches exactly, else stays reductions and arithmetic" {
	imported layernorm_decomposed
	imported layernorm_decomposed --lower
	run -0 grep -c 'nn.layer_norm' layernorm_decomposed/m.ir
	assert_output 2
	# Constant nodes of 2 and eps after the mean; gamma and beta
	grep -q '%a_y: f32\[2,3,8\] = nn.layer_norm(%x, %g1, %b1) {axis=2, epsilon=9.999999747378752e-06}$' layernorm_decomposed/m.ir
	# the last two axes, gamma first, no beta: zeros
	grep -q '%b_g: f32\[2,3,8\] = nn.layer_norm(%x, %g2, %beta) {axis=1, epsilon=0.0010000000474974513}$' layernorm_decomposed/m.ir
	# the variance read outside, x - mean read by a Relu, an eps of rank
	# 4 (it broadcasts the result to rank 4): as before
	run -0 grep -c '= mean(' layernorm_decomposed/m.ir
	assert_output 6
	grep -q '%e_y: f32\[1,2,3,8\] = add(' layernorm_decomposed/m.ir
	grep -q '%c_v: f32\[2,3,1\] = mean(' layernorm_decomposed/m.ir
	grep -q '%d_r: f32\[2,3,8\] = nn.relu(%d_d)$' layernorm_decomposed/m.ir
}

@test "onnx: torch's nn.LayerNorm exported at opsets 13 and 17 is one nn.layer_norm and equals torch" {
	have_python torch || skip "python3-torch is not installed"
	local op
	for op in 13 17; do
		"$PY" - "$op" <<'PY'
import sys
import numpy as np
import torch
op = int(sys.argv[1])
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(12, 37), torch.nn.LayerNorm(37), torch.nn.ReLU(),
                        torch.nn.LayerNorm([2, 37], eps=1e-3))
with torch.no_grad():
    for p in m.parameters():
        p.normal_()
x = torch.randn(3, 2, 12)
torch.onnx.export(m, x, "m%d.onnx" % op, opset_version=op, input_names=["x"])
np.save("x.npy", x.numpy())
with torch.no_grad():
    np.save("want%d.npy" % op, m(x).numpy())
PY
		ir-import-onnx -o "m$op.ir" "m$op.onnx"
		run -0 grep -c 'nn.layer_norm' "m$op.ir"
		assert_output 2
		refute grep -q '= mean(' "m$op.ir"
		grep -q 'nn.layer_norm(.*) {axis=1, epsilon=0.0010000000474974513}$' "m$op.ir"
		ir-plan-devices "m$op.ir" | ir-lower > "l$op.ir"
		ir-run --interp --input x=x.npy -o "got$op.npy" "l$op.ir"
		"$PY" -c 'import sys, numpy as np
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
assert np.allclose(got, want, rtol=1e-4, atol=1e-5), np.abs(got - want).max()' "got$op.npy" "want$op.npy"
	done
}

@test "onnx: ScatterND over values known at import is folded (swin's window mask); Dropout's mask is trues" {
	imported scatternd_known_dropout_mask
	imported scatternd_known_dropout_mask --lower
	! grep -q -i scatter scatternd_known_dropout_mask/m.ir
	import_fails scatternd_computed "error: node 0 (ScatterND, opset 13): is supported only on values known at import (the IR has no scatter operator)"
}

@test "onnx: Einsum of batched matrix products (maxvit's attention) is MatMul's, transposed where needed; other equations are refused" {
	imported einsum_batched_matmul
	imported einsum_batched_matmul --lower
	run -0 grep -c 'nn.batch_matmul' einsum_batched_matmul/m.ir
	assert_output 3
	import_fails einsum_unsupported "error: node 0 (Einsum, opset 12): equation 'ij,ij->ij' is not supported: only batched matrix products"
	import_fails einsum_rank1 "error: node 0 (Einsum, opset 12): equation 'i,i->i' is not supported: only batched matrix products"
}

@test "onnx: Identity, Dropout and Constant" {
	imported identity_constant_dropout
}

@test "onnx: MatMul of matrices, batches, broadcast batches and vectors" {
	imported matmuls --lower
}

@test "onnx: Transpose, Concat, Split, Slice (computed, and stepped on constants)" {
	imported transpose_concat_split_slice --lower
	imported split_unsqueeze_squeeze_opset11
}

@test "onnx: Slice of a computed value is one strided_slice, with steps, negative ones too" {
	imported slice_steps_computed --lower
	run -0 grep -c 'strided_slice' slice_steps_computed/m.ir
	assert_output 2
	imported slice_attributes_opset9
	# steps and ends at the ends of int64: one element each
	imported slice_huge_steps --lower
}

@test "onnx: shape arithmetic as torch.onnx writes it is folded: flatten, channel shuffle" {
	imported torch_flatten_shape_arithmetic --lower
	imported channel_shuffle --lower
	# nothing of Shape, Gather, Div, Concat is left: reshapes and a transpose
	run -0 grep -c '^  %' channel_shuffle/m.ir
	assert_output 3
	run -0 grep -c '^  %' torch_flatten_shape_arithmetic/m.ir
	assert_output 1
}

@test "onnx: Gather and Expand of computed values" {
	imported gather_expand_computed --lower
}

# --- the module --------------------------------------------------------------------

@test "onnx: the module: @cpu, @main's parameters and types, large constants in .npy files" {
	make_case conv_relu_add_gemm
	run -0 --separate-stderr ir-import-onnx conv_relu_add_gemm/model.onnx
	assert_line --index 0 'device @cpu = cpu(0)'
	assert_line 'fn @main(%x: f32[1,3,6,6]) -> f32[1,10] {'
	assert_line --partial '%W: f32[8,3,3,3] = const f32[8,3,3,3] file="W.npy"'
	assert_line --regexp '^  %B: f32\[8\] = const f32\[8\] \[[-0-9.e, ]+\]$'
	# without -o, the files go to the current folder
	[ -f W.npy ] && [ -f G.npy ] && [ ! -f B.npy ]
	# the output is canonical
	printf '%s\n' "$output" | ir-parse | diff - <(printf '%s\n' "$output")
	# and the data equal the initializers
	$PY -c '
import numpy as np, onnx
from onnx import numpy_helper as nh
m = onnx.load("conv_relu_add_gemm/model.onnx")
w = {t.name: nh.to_array(t) for t in m.graph.initializer}
assert (np.load("W.npy") == w["W"]).all() and (np.load("G.npy") == w["G"]).all()'
}

@test "onnx: -o puts the .npy files beside the module, --data-dir elsewhere" {
	make_case conv_relu_add_gemm
	mkdir out data
	run -0 ir-import-onnx -o out/m.ir conv_relu_add_gemm/model.onnx
	assert_output ''
	[ -f out/m.ir ] && [ -f out/W.npy ] && [ -f out/G.npy ]
	run -0 ir-import-onnx --data-dir=data -o out/m2.ir conv_relu_add_gemm/model.onnx
	[ -f data/W.npy ] && [ -f data/G.npy ]
	cmp out/m.ir out/m2.ir
	# the module and its folder are self-contained
	run -0 ir-run --interp --input=x=conv_relu_add_gemm/x.npy out/m.ir
}

@test "onnx: a model read from a pipe gives the same module and .npy files as from a file" {
	# a file is mapped, its weights copied out page by page; a pipe is read whole
	make_case conv_relu_add_gemm
	mkdir file pipe
	run -0 ir-import-onnx -o file/m.ir conv_relu_add_gemm/model.onnx
	run -0 ir-import-onnx -o pipe/m.ir < conv_relu_add_gemm/model.onnx
	diff -r file pipe
	[ -f file/G.npy ]
}

@test "onnx: the import holds the weights about once: its peak memory stays under 1.5 times them" {
	# issue 28, item 17: the file, protobuf-c's copy of it and the tensors
	# made three copies, and a weight MatMul transposes a fourth (4 times
	# the weights here).  Peak RSS, not time; the sanitizer's allocator
	# keeps more, so only the plain build is measured.
	# (the runtime is linked in, so its symbols are there, not its library)
	if grep -q __asan_init "$IRPIPE_BIN/ir-import-onnx"; then
		skip "the sanitizer build holds freed memory in quarantine"
	fi
	make_case matmul_chain_64mib
	# python3 itself, not $PY: a child's peak RSS counts the process it
	# was forked from, and run.sh's python3 server holds torch
	run -0 /usr/bin/python3 - "$IRPIPE_BIN/ir-import-onnx" -o m.ir matmul_chain_64mib/model.onnx <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
	local weights=$((4 * 2048 * 2048 * 4 / 1024)) # KiB
	echo "peak RSS $output KiB for $weights KiB of weights"
	# the weights once, one transposed copy at a time, and the tool itself
	((output < weights * 3 / 2 + 16384))
	[ "$(stat -c %s W3.npy)" -gt $((2048 * 2048 * 4)) ]
}

@test "onnx: --device lines replace @cpu, and a bad one is reported in it" {
	make_case two_outputs
	run -0 ir-import-onnx --device '@gpu = gpu(0) {texture=true}' --device 'device @cpu = cpu(0)' \
		two_outputs/model.onnx
	assert_line --index 0 'device @gpu = gpu(0) {texture=true}'
	assert_line --index 1 'device @cpu = cpu(0)'
	# they are read together: 'default' may name a device of another one
	run -0 ir-import-onnx --device '@cpu = cpu(0)' --device '@gpu = gpu(0)' --device 'default @gpu' \
		two_outputs/model.onnx
	assert_line --index 2 'default @gpu'
	run -1 --separate-stderr ir-import-onnx --device '@cpu = cpu(0)' --device '@gpu = gpu(0) {textur=true}' \
		two_outputs/model.onnx
	assert_output ''
	[[ "$stderr" == *"--device:2:"*"error"*"textur"* ]]
	run -1 --separate-stderr ir-import-onnx --device 'fn @f() {' two_outputs/model.onnx
	assert_output ''
	# a device may not take the function's name
	run -1 --separate-stderr ir-import-onnx --device '@main = cpu(0)' two_outputs/model.onnx
	assert_output ''
	assert_equal "$stderr" "two_outputs/model.onnx: error: a --device declaration is named @main, the name of the module's function"
}

@test "onnx: --device takes a bare device, named after its kind; a bad one says what --device takes" {
	make_case two_outputs
	run -0 ir-import-onnx --device 'gpu(0) {texture=true}' --device 'cpu(0)' --device 'gpu(1)' \
		--device 'host @cpu' two_outputs/model.onnx
	assert_line --index 0 'device @gpu = gpu(0) {texture=true}'
	assert_line --index 1 'device @cpu = cpu(0)'
	assert_line --index 2 'device @gpu1 = gpu(1)'
	assert_line --index 3 'host @cpu'
	# the module runs as given
	ir-import-onnx --device 'gpu(0) {texture=true}' -o m.ir two_outputs/model.onnx
	ir-plan-devices m.ir > /dev/null
	for bad in 'gpu' 'gpu(0) texture' '= gpu(0)'; do
		run -1 --separate-stderr ir-import-onnx --device "$bad" two_outputs/model.onnx
		assert_output ''
		[[ "${stderr_lines[0]}" == "--device:1:"*": error: "* ]]
		assert_equal "${stderr_lines[${#stderr_lines[@]} - 1]}" \
			"ir-import-onnx: note: --device takes one declaration, such as 'gpu(0) {texture=true}' (a device named @gpu), '@gpu = gpu(0) {texture=true}', 'host @cpu' or 'default @gpu'"
	done
}

@test "onnx: --stats names every input's IR name (sanitized) and lists the op types" {
	make_case dynamic_input
	run -0 --separate-stderr ir-import-onnx --stats --shape input.1=2,3 dynamic_input/model.onnx
	[[ "$stderr" == *"input 'input.1' -> %input_1: f32[2,3]"* ]]
	[[ "$stderr" == *"op types: Relu 1 yes"* ]]
	[[ "$stderr" == *"output 'y' -> %y"* ]]
	assert_line 'fn @main(%input_1: f32[2,3]) -> f32[2,3] {'
}

# --- errors: a message, exit 1, nothing on stdout, no file written ------------------

@test "onnx: an unsupported operator names the node, the op type and the opset, and lists every op type" {
	make_case unsupported_op
	echo old > m.ir
	run -1 --separate-stderr ir-import-onnx -o m.ir unsupported_op/model.onnx
	assert_output ''
	assert_equal "${stderr_lines[0]}" "unsupported_op/model.onnx: error: node 'mix' (Det, opset 13): operator Det is not supported"
	assert_equal "${stderr_lines[1]}" "unsupported_op/model.onnx: note: op types: Det 1 no, Relu 2 yes"
	[ "$(cat m.ir)" = old ]
	[ ! -f W.npy ]
	run -1 --separate-stderr ir-import-onnx --stats unsupported_op/model.onnx
	[[ "$stderr" == *"op types: Det 1 no, Relu 2 yes"* ]]
}

# import_fails CASE MESSAGE...: each case of tests/onnx/cases.py made and
# imported: exit 1, nothing on stdout, no module and no .npy written, and
# its first line of stderr starting with "CASE/model.onnx: MESSAGE"
import_fails() {
	local c want
	while [ $# -ge 2 ]; do
		c=$1 want="$1/model.onnx: $2"
		shift 2
		make_case "$c"
		run -1 --separate-stderr ir-import-onnx -o m.ir "$c/model.onnx"
		assert_output ''
		[[ "${stderr_lines[0]}" == "$want"* ]] || { echo "$c: $stderr"; false; }
		[ ! -e m.ir ]
		[ -z "$(ls ./*.npy 2>/dev/null)" ]
	done
}

@test "onnx: a dynamic dimension is an error naming the input, unless --shape fixes it" {
	make_case dynamic_input
	run -1 --separate-stderr ir-import-onnx dynamic_input/model.onnx
	assert_output ''
	assert_equal "$stderr" "dynamic_input/model.onnx: error: input 'input.1' has a dynamic dimension 0 ('N'); fix its shape with --shape input.1=D,D,..."
	run -0 ir-import-onnx -o m.ir --shape input.1=2,3 dynamic_input/model.onnx
	run -0 ir-run --interp --input=input_1=dynamic_input/input_1.npy -o y.npy m.ir
	$PY -c 'import numpy as np; x = np.load("dynamic_input/input_1.npy"); assert (np.load("y.npy") == np.maximum(x, 0)).all()'
}

@test "onnx: --shape that does not fit, or names no input, is an error" {
	make_case dynamic_input
	run -1 --separate-stderr ir-import-onnx --shape input.1=2,4 dynamic_input/model.onnx
	assert_output ''
	[[ "$stderr" == *"--shape gives input 'input.1' size 4 on axis 1, the model 3"* ]]
	run -1 --separate-stderr ir-import-onnx --shape input.1=2 dynamic_input/model.onnx
	[[ "$stderr" == *"--shape gives input 'input.1' rank 1, the model rank 2"* ]]
	run -1 --separate-stderr ir-import-onnx --shape input.1=2,3 --shape z=1 dynamic_input/model.onnx
	[[ "$stderr" == *"--shape names 'z', which is not an input of the graph"* ]]
	run -2 --separate-stderr ir-import-onnx --shape input.1=2,x dynamic_input/model.onnx
	[[ "$stderr" == *"--shape takes NAME=D,D,..."* ]]
}

# models past protobuf's 2 GB (vit_h_14, regnet_y_128gf) keep their weights
# in files beside the model, as torch.onnx and onnx.save_model write them
@test "onnx: initializers in an external data file (each at its offset) import and equal numpy; from a pipe, or short, they are refused" {
	imported external_weights
	cd external_weights
	run -1 --separate-stderr ir-import-onnx -o m2.ir < model.onnx
	[[ "$stderr" == "<stdin>: error: initializer 'W' keeps its data in external file 'weights.bin', which needs the model read from a file, not standard input"* ]]
	# a link (a download cache's layout) is followed; a FIFO is refused
	# at once, not waited on
	ir-import-onnx -o m1.ir model.onnx
	mkdir cache && mv weights.bin cache/ && ln -s cache/weights.bin weights.bin
	ir-import-onnx -o m3.ir model.onnx
	cmp m1.ir m3.ir
	rm weights.bin && mkfifo weights.bin
	run -1 --separate-stderr timeout 60 ir-import-onnx -o m2.ir model.onnx
	[[ "$stderr" == "model.onnx: error: initializer 'W' keeps its data in 'weights.bin', which is not a regular file"* ]]
	rm weights.bin && mv cache/weights.bin weights.bin
	truncate -s 12000 weights.bin
	run -1 --separate-stderr ir-import-onnx -o m2.ir model.onnx
	[[ "$stderr" == "model.onnx: error: initializer 'G' needs 11520 bytes at offset 896 of 'weights.bin', which has 12000"* ]]
	[ ! -e m2.ir ]
}

@test "onnx: a model the importer cannot take: each error names what and where" {
	# case, expected message
	local -a cases=(
		"bad_raw_data" "error: initializer 'W' has 20 bytes of raw data, its type needs 24"
		"layernorm_bad_eps" "error: node 5 (Constant, opset 13): its value has 2 bytes of raw data, its type needs 4"
		"external_data" "error: initializer 'W' keeps its data in 'w.bin', which cannot be read: No such file or directory"
		"external_outside" "error: initializer 'W' keeps its data in '../w.bin', outside the model's folder"
		"external_length" "error: initializer 'W' has 7 bytes of external data, its type needs 24"
		"external_offset" "error: initializer 'W' has external data at offset '-1', not a count of bytes"
		"reshape_computed_shape" "error: node 'r' (Reshape, opset 13): its shape must be known at import"
		"conv3d" "error: node 0 (Conv, opset 13): only 1-D and 2-D convolutions are supported (input of rank 5)"
		"undefined_input" "error: node 0 (Relu, opset 13): its input 'q' is not computed before it"
		"string_input" "error: input 'x' has element type STRING, which the IR does not have"
		"huge_constant_of_shape" "error: node 0 (ConstantOfShape, opset 13): too large to compute at import"
		"huge_initializer_dims" "error: initializer 'W' is too large"
		"maxpool_bool" "error: node 0 (MaxPool, opset 13): pooling of bool tensors is not supported"
		"global_avgpool_bool" "error: node 0 (GlobalAveragePool, opset 13): pooling of bool tensors is not supported"
		"clip_bool" "error: node 0 (Clip, opset 13): Clip of bool tensors is not supported"
		"other_domain" "error: node 1 (FusedGemm, opset 13): operator com.microsoft:FusedGemm is not supported"
	)
	import_fails "${cases[@]}"
	# (the last) another domain is named in the list of op types
	[[ "$stderr" == *"note: op types: Relu 1 yes, com.microsoft:FusedGemm 1 no"* ]]
}

@test "onnx: an opset outside 1 to 17 is an error, and so is an operator older than its mapping" {
	make_case new_opset
	run -1 --separate-stderr ir-import-onnx new_opset/model.onnx
	assert_output ''
	[[ "$stderr" == *"opset 18 is not supported (1 to 17 are)"* ]]
	make_case old_opset
	run -1 --separate-stderr ir-import-onnx old_opset/model.onnx
	assert_output ''
	[[ "$stderr" == *"error: node 0 (Relu, opset 5): operator Relu is supported from opset 6 (its older form differs)"* ]]
}

@test "onnx: opset 6's forms: broadcast=1 with and without axis, Gemm's broadcast, BatchNormalization and Dropout with is_test=1, equal numpy" {
	imported legacy_broadcast_opset6
	imported legacy_broadcast_opset6 --lower
	# broadcast=0 takes equal shapes only; training modes are refused
	make_case legacy_no_broadcast
	run -1 --separate-stderr ir-import-onnx legacy_no_broadcast/model.onnx
	assert_output ''
	[[ "$stderr" == *"shapes f32[2,3] and f32[3] differ, and broadcast is 0 (opset 6)"* ]]
	make_case legacy_bn_training
	run -1 --separate-stderr ir-import-onnx legacy_bn_training/model.onnx
	assert_output ''
	[[ "$stderr" == *"is_test=0 (training, opset 6) is not supported"* ]]
}

@test "onnx: input that is not an ONNX model is an error, never a crash" {
	printf 'device @cpu = cpu(0)\n' > m.ir
	run -1 --separate-stderr ir-import-onnx m.ir
	assert_output ''
	[[ "$stderr" == "m.ir: error: not an ONNX model"* ]]
	head -c 4096 /dev/zero | tr '\0' '\377' > ff.bin
	run -1 ir-import-onnx ff.bin
	run -1 --separate-stderr ir-import-onnx < /dev/null
	[[ "$stderr" == "<stdin>: error: the model has no graph" ]]
	run -1 --separate-stderr ir-import-onnx nosuch.onnx
	[[ "$stderr" == "ir-import-onnx: cannot open 'nosuch.onnx': "* ]]
}

@test "onnx: messages nested deeper than 64 are refused before protobuf-c recurses into them" {
	make_case deep_nesting
	run -1 --separate-stderr ir-import-onnx deep_nesting/model.onnx
	assert_output ''
	[[ "$stderr" == *"messages nest more than 64 deep"* ]]
}

@test "onnx: --help, --version and usage errors" {
	run -0 ir-import-onnx --help
	assert_line --index 0 'Usage: ir-import-onnx [OPTION]... [FILE]'
	run -0 ir-import-onnx --version
	assert_output --regexp '^ir-import-onnx \(irpipe\) [0-9]+\.'
	run -2 --separate-stderr ir-import-onnx --foo
	assert_output ''
	assert_equal "${stderr_lines[1]}" "Try 'ir-import-onnx --help'."
	run -2 ir-import-onnx a.onnx b.onnx
}

@test "onnx: Pad without a mode attribute pads with a constant, ONNX's default" {
	imported pad_default_mode
	imported pad_default_mode --lower
	imported pad_default_mode_value
}

@test "onnx: a Pad too large for the IR, and an integer Div or Mod by zero, are errors naming the node" {
	# case, expected message
	local -a cases=(
		"pad_huge" "error: node 'pd' (Pad, opset 13): pads of 4503599627370496 are more than a dimension may be (2^40)"
		"pad_result_too_large" "error: node 'pd' (Pad, opset 13): its result f32[2199023255552] has a dimension larger than the IR allows (2^40)"
		"div_by_zero" "error: node 'dv' (Div, opset 13): integer division by zero (element 1 of the divisor)"
		"mod_by_zero" "error: node 'md' (Mod, opset 13): integer modulo by zero (element 0 of the divisor)"
	)
	import_fails "${cases[@]}"
}
