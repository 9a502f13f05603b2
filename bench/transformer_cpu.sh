#!/bin/sh
# bench/transformer_cpu.sh: transformers on the cpu, one thread: ir-run on
# POCL beside torch (issue 27, transformer encoders).
#
# vit_b_16 (torchvision, random weights, tests/onnx/models.py export at
# 224, opset 13) and torch.nn.TransformerEncoder (models.py encoder:
# d_model 512, 8 heads, feed-forward 2048, 4 layers, sequence 128, batch 1
# and 8; erf GELU with a padding mask, tanh GELU without; opset 17), each
# compiled by the fast pipeline (ir-alter-layout | ir-fold-constants |
# ir-plan-devices | ir-lower | ir-plan-devices | ir-flatten-texture |
# ir-codegen-ocl).  Then ROUNDS rounds (BENCH_TF_ROUNDS, default 3),
# interleaved: ir-run --repeat REPS (BENCH_TF_REPS, default 3) on POCL
# with POCL_MAX_PTHREAD_COUNT=1, and torch (Debian's python3-torch,
# torch.set_num_threads(1)) over REPS inferences after a warm-up.  Printed:
# the median over the rounds of the CPU time per inference (the process's,
# every thread: ir-run --repeat's cpu figure, Python's process_time), which
# a loaded machine moves much less than wall time, and torch/ir-run (above
# 1: ir-run is faster); the load average before and after; ir-run's result
# against torch's.  With BENCH_BASELINE_BIN=DIR another build's tools
# compile and run each model too, in the same rounds (a column beside
# ir-run's and their ratio).  Nothing is asserted.  Debian's torch 1.13 is built
# with BLAS_INFO=generic (no MKL, no OpenBLAS): its matrix products run
# at about 6 GFLOP/s on one thread here, so it is a weak baseline.
set -eu

BIN=${IRPIPE_BIN:-build/bin}
BASE=${BENCH_BASELINE_BIN:-}
WORK=${BENCH_DIR:-build/bench}/transformer_cpu
ROUNDS=${BENCH_TF_ROUNDS:-3}
REPS=${BENCH_TF_REPS:-3}
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/../tests/onnx/models.py
mkdir -p "$WORK"

echo "== transformers on the cpu, 1 thread: ir-run (POCL) beside torch, CPU ms per inference, median of $ROUNDS interleaved rounds of $REPS"
if ! "$PY" -c 'import torch, torchvision, onnx' 2>/dev/null; then
	echo "(skipped: python3-torch, python3-torchvision or python3-onnx is missing)"
	exit 0
fi

# NAME: how models.py exports it and times it in torch
CASES="vit_b_16 encoder-b1-erf-mask encoder-b8-erf-mask encoder-b1-tanh-nomask encoder-b8-tanh-nomask"
spec() { # name -> "D SEQ LAYERS BATCH GELU MASK" for encoders
	echo "$1" | sed -n 's/^encoder-b\([0-9]*\)-\([a-z]*\)-\([a-z]*\)$/512 128 4 \1 \2 \3/p'
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f", v[int((NR + 1) / 2)]; else printf "-" }'; }

for c in $CASES; do
	D=$WORK/$c
	mkdir -p "$D"
	if [ "$c" = vit_b_16 ]; then
		[ -s "$D/vit_b_16.onnx" ] || "$PY" "$M" export vit_b_16 224 "$D" 13 2> "$D/export.err"
		onnx=$D/vit_b_16.onnx
	else
		[ -s "$D/encoder.onnx" ] || "$PY" "$M" encoder $(spec $c) "$D" 17 2> "$D/export.err"
		onnx=$D/encoder.onnx
	fi
	for T in "$BIN" $BASE; do
		v=new
		[ "$T" = "$BIN" ] || v=base
		"$T/ir-import-onnx" -o "$D/$v.m.ir" --data-dir "$D" "$onnx"
		"$T/ir-alter-layout" "$D/$v.m.ir" | "$T/ir-fold-constants" --data-dir="$D" \
			| "$T/ir-plan-devices" | "$T/ir-lower" | "$T/ir-plan-devices" \
			| "$T/ir-flatten-texture" | "$T/ir-codegen-ocl" > "$D/$v.ocl.ir"
	done
done

irrun() { # tools dir case version
	pm=
	[ ! -f "$2/pm.npy" ] || pm="--input pm=$2/pm.npy"
	POCL_MAX_PTHREAD_COUNT=1 "$1/ir-run" --repeat="$REPS" --data-dir "$2" --input x="$2/x.npy" $pm \
		-o "$2/$3.npy" "$2/$3.ocl.ir" 2> "$2/$3.err" > /dev/null
	sed -n 's/.*, cpu \([0-9.]*\) ms a run.*/\1/p' "$2/$3.err" >> "$2/$3.$$"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
	for c in $CASES; do
		D=$WORK/$c
		irrun "$BIN" "$D" new
		[ -z "$BASE" ] || irrun "$BASE" "$D" base
		if [ "$c" = vit_b_16 ]; then
			"$PY" "$M" torch-times vit_b_16 224 "$REPS" 1 | cut -d' ' -f2 >> "$D/torch.$$"
		else
			"$PY" "$M" encoder-times $(spec $c) "$REPS" 1 | cut -d' ' -f2 >> "$D/torch.$$"
		fi
	done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-24s %10s %10s %12s %10s %9s  %s\n' case "ir-run ms" "torch ms" "torch/ir-run" "base ms" "base/new" \
	"ir-run against torch"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b; else printf "-" }'; }
for c in $CASES; do
	D=$WORK/$c
	i=$(median < "$D/new.$$") t=$(median < "$D/torch.$$") b=-
	[ -z "$BASE" ] || b=$(median < "$D/base.$$")
	rm -f "$D/new.$$" "$D/base.$$" "$D/torch.$$"
	s=$("$PY" "$M" same "$D/new.npy" "$D/y.npy" 1e-3 1e-4 | sed 's/, [0-9]* of.*//')
	printf '%-24s %10s %10s %12s %10s %9s  %s\n' "$c" "$i" "$t" "$(ratio "$t" "$i")" "$b" \
		"$(ratio "$b" "$i")" "$s"
done
