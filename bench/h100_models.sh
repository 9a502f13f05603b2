#!/bin/sh
# bench/h100_models.sh: whole models on an NVIDIA H100, irpipe's ir-run
# against torch (issue 22).  Nothing is asserted but that the new tools'
# results equal the baseline's.
#
#   BASE_REV=<commit> sh bench/h100_models.sh prep DIR
#       here (/usr/bin/python3 with torch, torchvision, onnx), from the
#       repository root: DIR gets this checkout's sources (git archive
#       HEAD; BASE_REV's too, the baseline), the generated parser and the
#       OpenCL headers (bench/h100_common.sh, shared with h100_tex.sh),
#       these scripts in DIR/bench, and for each of MODELS (default
#       resnet18 mobilenet_v2 squeezenet1_1 efficientnet_b0; also
#       encoder-bB-GELU-MASK, torch.nn.TransformerEncoder: h100_models.py)
#       torchvision's
#       model with random weights (seed 0) at 1x3x224x224, exported to ONNX
#       and imported by ir-import-onnx for `device @gpu = gpu(0)`, with its
#       small constants, a manifest of the large ones (drawn at random on
#       the device: the weights would not travel) and, for torch on a
#       device without torchvision, the model as a torch.fx GraphModule and
#       as TorchScript with zeroed weights (bench/h100_models.py).  About
#       5 MB; DIR must stay under the device's 64 MiB.
#   sh DIR/bench/h100_models.sh run DIR
#       on the device, from the repository root (python3 with torch and
#       numpy; torchvision not needed): builds the tools from DIR (and the
#       baseline's) in SRC_DIR (/tmp/h100_models_src; JOBS=16), then per
#       model: the constants drawn (seed 0), compiled by ir-alter-layout |
#       ir-fold-constants | ir-plan-devices | ir-lower | ir-plan-devices |
#       ir-flatten-texture | ir-codegen-ocl (NCHW buffers, h100_tex.sh's
#       nchw) by the new tools and by the baseline's, each run by its own
#       ir-run --device=@gpu=PLATFORM --profile --repeat REPEAT: the
#       kernels' ms per run (the profile's kernel rows / runs), launches per
#       run, the host's enqueue and wait per run (new tools only), and
#       the median of another REPEAT runs without --profile; the two results compared (1e-3 of the largest
#       magnitude); torch fp32, TF32 off (TORCH_CUDNN_BENCHMARK=1 for
#       cudnn.benchmark): median of TORCH_RUNS (REPEAT) of model(x) with
#       torch.cuda.synchronize, of the same with x uploaded and the result
#       read back, and of a CUDA graph's replay.  torch's weights are drawn
#       afresh (same per-tensor mean and std), not irpipe's.  Ends with one
#       table.  Logs and profiles in OUT (BENCH_DIR, /tmp/h100_models).
#       PLATFORM (NVIDIA), REPEAT (30), MODELS (prep's): on POCL here,
#       PLATFORM=Portable REPEAT=2 MODELS=squeezenet1_1 JOBS=2 (torch then
#       times the CPU and says so).
set -u
cmd=${1:-} P=${2:-}
[ -n "$P" ] || { echo "usage: h100_models.sh prep|run DIR" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/h100_common.sh"

if [ "$cmd" = prep ]; then
	set -e
	BIN=${IRPIPE_BIN:-$PWD/build/bin}
	PY=/usr/bin/python3
	rm -rf "$P"
	mkdir -p "$P/models" "$P/bench"
	h100_prep_sources "$P"
	cp "$HERE/h100_models.sh" "$HERE/h100_models.py" "$HERE/h100_common.sh" "$P/bench/"
	cp "$HERE/../tests/onnx/models.py" "$P/bench/suite_models.py"
	for m in ${MODELS:-resnet18 mobilenet_v2 squeezenet1_1 efficientnet_b0}; do
		"$PY" "$HERE/h100_models.py" export $m "$P/models/$m" 2> /dev/null
		h100_import "$BIN" "$P/models/$m" $m
	done
	du -sh "$P"
	[ "$(du -sm "$P" | cut -f1)" -lt 55 ] || { echo "h100_models.sh: $P is over 55 MB" >&2; exit 1; }
	exit 0
fi
[ "$cmd" = run ] || { echo "usage: h100_models.sh prep|run DIR" >&2; exit 2; }

P=$(cd "$P" && pwd)
PY=${PY:-python3}
S=${SRC_DIR:-/tmp/h100_models_src}
W=${BENCH_DIR:-/tmp/h100_models}
OUT=${OUT:-$W}
PLATFORM=${PLATFORM:-NVIDIA}
REPEAT=${REPEAT:-30}
TORCH_RUNS=${TORCH_RUNS:-$REPEAT}
MODELS=${MODELS:-$(ls "$P/models")}
HPY="$PY $HERE/h100_models.py"
mkdir -p "$W" "$S" "$OUT"
date -u +'date: %Y-%m-%d %H:%M UTC'
! command -v nvidia-smi > /dev/null || nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
h100_build "$P" "$S" "$OUT" || exit 1
[ -n "$H100_BASE" ] || echo "(no baseline: prep had no BASE_REV)"
DEV="--device=@gpu=$PLATFORM"
: > "$W/table"
for m in $MODELS; do
	D=$W/$m
	rm -rf "$D"
	mkdir -p "$D"
	cp "$P/models/$m"/* "$D/"
	h100_regen "$D"
	# an encoder's padding mask is a second input
	inputs="--input x=$D/x.npy"
	[ ! -f "$D/pm.npy" ] || inputs="$inputs --input pm=$D/pm.npy"
	row="$m"
	for v in new base; do
		case $v in
		new) T=$S/build/bin ;;
		base) T=$S.base/build/bin; [ -n "$H100_BASE" ] || { row="$row - - - - -"; continue; } ;;
		esac
		if ! "$T/ir-alter-layout" "$D/m.ir" | "$T/ir-fold-constants" --data-dir="$D" | "$T/ir-plan-devices" \
			| "$T/ir-lower" | "$T/ir-plan-devices" | "$T/ir-flatten-texture" | "$T/ir-codegen-ocl" > "$D/$v.ocl.ir" ||
			! "$T/ir-run" "$DEV" --profile --repeat "$REPEAT" --data-dir "$D" $inputs -o "$D/$v.npy" \
				"$D/$v.ocl.ir" 2> "$OUT/$m.$v.prof" > /dev/null; then
			echo "MODEL $m $v: failed"
			tail -5 "$OUT/$m.$v.prof" 2> /dev/null
			row="$row - - - - -"
			continue
		fi
		# the run's median without --profile's events
		"$T/ir-run" "$DEV" --repeat "$REPEAT" --data-dir "$D" $inputs -o "$D/$v.plain.npy" \
			"$D/$v.ocl.ir" 2> "$OUT/$m.$v.plain" > /dev/null
		r=$($HPY profile "$OUT/$m.$v.prof" "$OUT/$m.$v.plain")
		echo "MODEL $m $v $r"
		row="$row $(echo "$r" | sed 's/[a-z_]*=//g')"
	done
	same=-
	[ -f "$D/new.npy" ] && [ -f "$D/base.npy" ] && same=$($HPY same "$D/new.npy" "$D/base.npy" 1e-3 | awk '{ print $2 ":" $1 }')
	echo "MODEL $m new vs base: max|new - base| / max|base| $same"
	t=$($HPY torch $m "$D" "$TORCH_RUNS" 2> "$OUT/$m.torch.err") || tail -3 "$OUT/$m.torch.err"
	echo "TORCH $m ${t:-failed}"
	get() { g=$(echo "$t" | tr ' ' '\n' | sed -n "s/^$1=//p"); echo "${g:--}"; }
	echo "$row $(get eager_ms) $(get updown_ms) $(get graph_ms) $same $(get device) $(get source)" >> "$W/table"
done

echo
echo "== whole models, 1x3x224x224 fp32: ir-run --device=@gpu=$PLATFORM --profile --repeat $REPEAT (new tools, and base: the baseline's)"
echo "   against torch (TF32 off; median of $TORCH_RUNS), ms per inference"
echo "   kern: kernels' time per run (--profile); launch: kernels per run; run: ir-run's median of a whole run"
echo "   (input written, kernels, result read back); enq/wait: the host's enqueue and wait per run;"
echo "   eager: model(x) + synchronize; eager+io: with x uploaded and the result read back; graph: CUDA graph replay"
printf '%-16s %8s %6s %8s %7s %7s %8s %8s %10s %8s %9s %9s %9s %9s  %s\n' model kern launch "new run" enq wait \
	"base run" "base kern" "torch eag" "eager+io" "graph" new/kern new/eag+io new/graph "new=base? (rel. diff), torch on"
awk '
function r(a, b) { return (a + 0 > 0 && b + 0 > 0) ? sprintf("%.2fx", a / b) : "-" }
function f(a) { return a == "-" ? a : sprintf("%.3f", a) }
{
	# model, new: kern launch run enq wait, base: kern launch run enq wait, eager updown graph same device source
	io = ($13 != "-") ? $13 : $12
	printf "%-16s %8s %6s %8s %7s %7s %8s %8s %10s %8s %9s %9s %9s %9s  %s\n", $1, f($2), $3, f($4), f($5), f($6),
		f($9), f($7), f($12), f($13), f($14), r($4, $2), r($4, io), r($4, $14), $15 ", " $16 " (" $17 ")"
}' "$W/table"
echo "(new/eag+io: against torch eager with upload and read back; on a machine without CUDA, against torch eager on the CPU)"
