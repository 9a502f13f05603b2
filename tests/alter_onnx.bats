#!/usr/bin/env bats
# ir-alter-layout on models as ir-import-onnx brings them in: torchvision's
# resnet18, mobilenet_v2 and squeezenet1_0 (its fire modules concatenate
# over the channels; random weights, a 32x32 input), exported by
# torch.onnx, imported for a texture GPU, altered, their constants folded,
# lowered and flattened, equal torch's result on the interpreter, with
# every convolution packed, its weight and activations in images, and no
# weight preparation left.

setup() {
	load test_helper
	have_python torch torchvision onnx numpy ||
		skip "python3-torch, python3-torchvision and python3-onnx are needed"
	command -v ir-import-onnx > /dev/null || skip "ir-import-onnx is not built"
}

# exported NAME DIR: torchvision's NAME exported to DIR/m.onnx, its input
# DIR/x.npy and torch's output DIR/torch.npy
exported() {
	"$PY" - "$1" "$2" <<'PY'
import os, sys, numpy as np, torch, torchvision
torch.manual_seed(0)
m = getattr(torchvision.models, sys.argv[1])(weights=None).eval()
x = torch.rand(1, 3, 32, 32)
os.chdir(sys.argv[2])
torch.onnx.export(m, x, "m.onnx", opset_version=13, input_names=["x"], output_names=["y"])
np.save("x.npy", x.numpy())
with torch.no_grad():
    np.save("torch.npy", m(x).numpy())
PY
}

# imported NAME: exports torchvision's NAME (once a make check: torch's
# export is the same for every build), imports it for a texture GPU
imported() {
	cd "$BATS_TEST_TMPDIR"
	made_once "alter_onnx-$1" "$BATS_TEST_TMPDIR" exported "$1"
	ir-import-onnx --device='@gpu = gpu(0) {texture=true}' -o m.ir m.onnx
}

# lowered [noshared]: the pipeline from m.ir, then the checks (noshared: no
# convolution is large enough for the shared-memory product)
lowered() {
	run -0 --separate-stderr ir-alter-layout --stats m.ir
	printf '%s\n' "$output" > a.ir
	# every operator it looked at was packed
	[[ "$stderr" == *" 0 kept;"* ]]
	ir-fold-constants --data-dir=. a.ir | ir-plan-devices | ir-lower | ir-plan-devices \
		| ir-flatten-texture > low.ir
	grep '^prim @[^(]*conv2d' low.ir > convs
	[ "$(wc -l < convs)" -ge 15 ]
	# no weight is prepared at inference: the packed weights are constants
	! grep -q '^prim @layout_transform' low.ir
	# every convolution, the shared-memory matrix products too, reads its
	# weight from an image and writes its result to one; all but the first
	# (3 input channels, left unpacked) read their data from an image
	n=$(wc -l < convs)
	[ "$(grep '%p1: f32\[[0-9,]*\] @gpu:texture:weight,' convs | grep -c '%out: [^)]*@gpu:texture)')" -eq "$n" ]
	[ "$(grep -c '(%p0: f32\[[0-9,]*\] @gpu:texture,' convs)" -eq $((n - 1)) ]
	[ "${1:-}" = noshared ] || grep -q '@gpu:shared' low.ir
	ir-run --interp --input x=x.npy -o out.npy low.ir
	"$PY" -c 'import numpy as np, sys; a, b = np.load("out.npy"), np.load("torch.npy")
err, scale = np.abs(a - b).max(), max(1e-6, np.abs(b).max())
print("max error", err, "scale", scale)
sys.exit(0 if a.shape == b.shape and err <= 1e-4 * scale else 1)'
}

@test "alter_onnx: torchvision resnet18, imported, altered, folded and lowered, equals torch" {
	imported resnet18
	lowered
}

@test "alter_onnx: torchvision mobilenet_v2, imported, altered, folded and lowered, equals torch" {
	imported mobilenet_v2
	lowered
}

@test "alter_onnx: torchvision squeezenet1_0, imported, altered, folded and lowered, equals torch; its concatenates stay packed" {
	imported squeezenet1_0
	# at 32x32, its feature maps (13x13 to 1x1) are too small to tile
	lowered noshared
	[ "$(grep -c 'concatenate on @gpu: packed: NCHW4c' <<< "$stderr")" -eq 8 ]
	grep -q '^prim @[^(]*concatenate[^(]*(%p0: f32\[[0-9,]*\] @gpu:texture,' low.ir
}
