#!/bin/sh
# bench/models_tex.sh (make bench): textures against buffers on whole
# models.  torchvision's resnet18 and mobilenet_v2 (random weights, seed
# 0) at 1x3xSIZExSIZE (BENCH_TEX_SIZE, default 224), exported by torch.onnx
# and imported by ir-import-onnx, are compiled by
#   ir-alter-layout | ir-fold-constants | ir-plan-devices | ir-lower |
#   ir-plan-devices | ir-flatten-texture | ir-codegen-ocl
# for three devices:
#   nchw   gpu(0), a buffer-only gpu: NCHW, in buffers
#   buf4c  gpu(0) {texture=true} lowered --no-texture: NCHW4c in buffers
#   tex    gpu(0) {texture=true}: NCHW4c in images (activations and
#          weights, the shared-memory matrix products included)
# and run by `ir-run --profile --repeat REPS` on OpenCL (POCL here;
# BENCH_OCL_DEVICE=@gpu=NAME for another device).  Printed per model and
# variant: the kernels' time per run (the profile's kernel total / REPS),
# the median wall time of a run (uploads of the constants included), the
# texture variant's ratios to the buffer ones, and each result's largest
# difference from torch relative to torch's largest magnitude.  Then, for
# buf4c and tex, that median beside the same run with
# --no-keep-constants (every run reads and uploads the weights again, as
# ir-run did before it kept them on the device).  Nothing is asserted.  Needs python3-torch, python3-torchvision and python3-onnx.
set -eu

BIN=${IRPIPE_BIN:-build/bin}
WORK=${BENCH_DIR:-build/bench}/models_tex
SIZE=${BENCH_TEX_SIZE:-224}
REPS=${BENCH_TEX_RUNS:-2}
PY=/usr/bin/python3
HERE=$(dirname "$0")
DEV=${BENCH_OCL_DEVICE:+--device=$BENCH_OCL_DEVICE}
mkdir -p "$WORK"

echo "== textures vs buffers, whole models ${SIZE}x${SIZE} on OpenCL${BENCH_OCL_DEVICE:+ ($BENCH_OCL_DEVICE)}: kernel ms per run (ir-run --profile, $REPS runs)"
if ! "$PY" -c 'import torch, torchvision, onnx' 2>/dev/null; then
	echo "(skipped: python3-torch, python3-torchvision or python3-onnx is missing)"
	exit 0
fi
printf "%-13s %-6s %10s %10s %10s %13s %13s\n" model variant kernel_ms run_ms err_vs_torch "tex/this run" "tex/this kern"
for m in resnet18 mobilenet_v2; do
	D=$WORK/$m
	mkdir -p "$D"
	"$PY" "$HERE/../tests/onnx/models.py" export $m "$SIZE" "$D" 2>/dev/null
	"$BIN/ir-import-onnx" --device='@gpu = gpu(0)' -o "$D/m.ir" --data-dir "$D" "$D/$m.onnx"
	for v in nchw buf4c tex; do
		case $v in
		nchw) dev='gpu(0)' l= ;;
		buf4c) dev='gpu(0) {texture=true}' l=--no-texture ;;
		tex) dev='gpu(0) {texture=true}' l= ;;
		esac
		sed "s/^device @gpu = .*/device @gpu = $dev/" "$D/m.ir" > "$D/$v.src.ir"
		"$BIN/ir-alter-layout" "$D/$v.src.ir" | "$BIN/ir-fold-constants" --data-dir="$D" \
			| "$BIN/ir-plan-devices" | "$BIN/ir-lower" $l | "$BIN/ir-plan-devices" \
			| "$BIN/ir-flatten-texture" | "$BIN/ir-codegen-ocl" > "$D/$v.ocl.ir"
		"$BIN/ir-run" $DEV --profile --repeat "$REPS" --data-dir "$D" --input x="$D/x.npy" \
			-o "$D/$v.npy" "$D/$v.ocl.ir" 2> "$D/$v.prof" > /dev/null
		k=$(sed -n 's/.*(kernels \([0-9.]*\),.*/\1/p' "$D/$v.prof")
		w=$(sed -n 's/.*runs, median \([0-9.]*\) ms.*/\1/p' "$D/$v.prof")
		e=$("$PY" -c "import numpy as np; a, b = np.load('$D/$v.npy').astype(float), np.load('$D/y.npy').astype(float)
print('%.1e' % (np.abs(a - b).max() / np.abs(b).max()))")
		echo "$v $(awk -v k="${k:-0}" -v r="$REPS" 'BEGIN { printf "%.3f", k / r }') ${w:--} $e" >> "$D/rows"
		[ $v = nchw ] && continue
		"$BIN/ir-run" $DEV --no-keep-constants --repeat "$REPS" --data-dir "$D" --input x="$D/x.npy" \
			-o "$D/$v.fresh.npy" "$D/$v.ocl.ir" 2> "$D/$v.fresh" > /dev/null
		f=$(sed -n 's/.*runs, median \([0-9.]*\) ms.*/\1/p' "$D/$v.fresh")
		echo "$m $v ${w:-0} ${f:-0}" >> "$WORK/keep"
	done
	kt=$(awk '$1 == "tex" { print $2 }' "$D/rows")
	wt=$(awk '$1 == "tex" { print $3 }' "$D/rows")
	while read v k w e; do
		awk -v m=$m -v v=$v -v k=$k -v w=$w -v e=$e -v kt=$kt -v wt=$wt 'BEGIN {
			printf "%-13s %-6s %10.3f %10s %10s %12.2fx %12.2fx\n", m, v, k, w, e, (w > 0 ? wt / w : 0), (k > 0 ? kt / k : 0) }'
	done < "$D/rows"
	rm -f "$D/rows"
done
echo "== constants kept on the device for every run (the default) vs read and uploaded in every run (--no-keep-constants): median ms of a whole run"
printf "%-13s %-6s %10s %14s %12s\n" model variant kept_ms every_run_ms kept/every
awk '{ printf "%-13s %-6s %10.3f %14.3f %11.2fx\n", $1, $2, $3, $4, ($4 > 0 ? $3 / $4 : 0) }' "$WORK/keep"
rm -f "$WORK/keep"
