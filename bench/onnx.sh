#!/bin/sh
# bench/onnx.sh (make bench): torchvision's resnet18 (random weights, seed
# 0) at 1x3x224x224 exported by torch.onnx, then
#   1. ir-import-onnx, and the whole pipeline after it (ir-plan-devices |
#      ir-lower | ir-plan-devices | ir-flatten-texture | ir-codegen-ocl), on
#      a cpu and on a texture gpu: wall time, median of RUNS;
#   2. inference: ir-run on POCL (--repeat, its median) beside torch on the
#      same machine and input (median of as many runs), and how far the
#      result is from torch's.
# Nothing is asserted.  Needs python3-torch and python3-torchvision.
set -eu

BIN=${IRPIPE_BIN:-build/bin}
WORK=${BENCH_DIR:-build/bench}/onnx
RUNS=${BENCH_RUNS:-3}
REPS=${BENCH_INFER_RUNS:-10}
PY=/usr/bin/python3
HERE=$(dirname "$0")
M=$HERE/../tests/onnx/models.py
mkdir -p "$WORK"

echo "== resnet18 1x3x224x224 from ONNX: import, compile, inference on POCL vs torch"
if ! "$PY" -c 'import torch, torchvision, onnx' 2>/dev/null; then
	echo "(skipped: python3-torch, python3-torchvision or python3-onnx is missing)"
	exit 0
fi
"$PY" "$M" export resnet18 224 "$WORK" 2>/dev/null

# median wall seconds of RUNS runs of a shell command line
med() {
	i=0
	: > "$WORK/times"
	while [ $i -lt "$RUNS" ]; do
		t0=$(date +%s%N)
		sh -c "$1" > /dev/null
		t1=$(date +%s%N)
		echo "$(( (t1 - t0) / 1000 ))" >> "$WORK/times"
		i=$((i + 1))
	done
	sort -n "$WORK/times" | awk -v r="$RUNS" 'NR == int((r + 1) / 2) { printf "%.3f", $1 / 1e6 }'
}

imp="$BIN/ir-import-onnx -o $WORK/r.ir --data-dir $WORK $WORK/resnet18.onnx"
t_imp=$(med "$imp")
sed -E 's/@cpu = cpu\(0\)( \{[^}]*\})?/@gpu = gpu(0) {texture=true}/; s/@cpu\b/@gpu/g' \
	"$WORK/r.ir" > "$WORK/rt.ir"
rest="$BIN/ir-lower | $BIN/ir-plan-devices | $BIN/ir-flatten-texture | $BIN/ir-codegen-ocl"
t_cpu=$(med "$BIN/ir-plan-devices $WORK/r.ir | $rest > $WORK/r.ocl.ir")
t_tex=$(med "$BIN/ir-plan-devices $WORK/rt.ir | $rest > $WORK/rt.ocl.ir")
printf '%-44s %8s s\n' "ir-import-onnx (46 MB of weights)" "$t_imp"
printf '%-44s %8s s\n' "pipeline to OpenCL, cpu device" "$t_cpu"
printf '%-44s %8s s\n' "pipeline to OpenCL, texture gpu device" "$t_tex"
printf '%-44s %8s s\n' "import + compile (cpu)" "$(echo "$t_imp $t_cpu" | awk '{ printf "%.3f", $1 + $2 }')"

infer() {  # module label
	"$BIN/ir-run" --repeat="$REPS" --data-dir "$WORK" --input x="$WORK/x.npy" \
		-o "$WORK/out.npy" "$1" 2> "$WORK/run.err" > /dev/null || { cat "$WORK/run.err"; return 0; }
	ms=$(sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' "$WORK/run.err")
	printf '%-44s %8s ms  (%s)\n' "ir-run on POCL, $2" "$ms" \
		"$("$PY" "$M" same "$WORK/out.npy" "$WORK/y.npy" 1e-3 1e-4 | sed 's/, [0-9]* of.*//')"
	echo "$ms" > "$WORK/ms.$2"
}
infer "$WORK/r.ocl.ir" cpu
infer "$WORK/rt.ocl.ir" "texture gpu"
t_torch=$("$PY" "$M" torch-time resnet18 224 "$REPS")
printf '%-44s %8s ms  (%s threads)\n' "torch, same machine" "$t_torch" "$(nproc)"
[ ! -s "$WORK/ms.cpu" ] || printf '%-44s %8s\n' "ratio ir-run (cpu) / torch" \
	"$(echo "$(cat "$WORK/ms.cpu") $t_torch" | awk '{ printf "%.2f", $1 / $2 }')"
