#!/bin/sh
# bench/models_cpu.sh (make bench): whole torchvision models on the cpu,
# one thread, beside what users would run instead (issue 23).
#
# Each model (BENCH_CPU_MODELS; default the six of issue 23: resnet18,
# mobilenet_v2, squeezenet1_1, efficientnet_b0, densenet121, googlenet)
# with random weights (torch.manual_seed(0)) at 1x3xSIZExSIZE
# (BENCH_CPU_SIZE, default 224) is exported by torch.onnx, imported by
# ir-import-onnx and compiled by the fast pipeline, once per layout of
# BENCH_CPU_LAYOUTS (default "auto none": auto packs cpus, none keeps NCHW,
# the figures of ir-alter-layout(1)'s rule):
#   ir-alter-layout --layout=L | ir-fold-constants | ir-plan-devices |
#   ir-lower | ir-plan-devices | ir-flatten-texture | ir-codegen-ocl
# Then, in ROUNDS rounds (BENCH_CPU_ROUNDS, default 5), interleaved: ir-run
# on POCL with POCL_MAX_PTHREAD_COUNT=1 (the host thread is not pinned:
# torch and ONNX Runtime are not either), torch (Debian's python3-torch,
# torch.set_num_threads(1)) and ONNX Runtime's CPU provider
# (onnxruntime-node from the npm registry, intraOpNumThreads 1), each the
# median of REPS inferences (BENCH_CPU_REPS, default 3) after a warm-up
# run; printed is the median over the rounds, in ms, and the ratios
# torch/ir-run and ORT/ir-run (above 1: ir-run is faster).  The load
# average before and after is printed: rerun if it moved.  A second table
# gives the CPU time per inference (the process's, every thread: ir-run
# --repeat's cpu figure, Python's process_time, Node's cpuUsage), which a
# loaded machine moves much less than the wall time.  ir-run's first
# result is compared with torch's.  Nothing is asserted.
#
# ONNX Runtime: `npm install --ignore-scripts onnxruntime-node` into
# $WORK/ort once (the CPU provider is bundled; the install script only
# fetches GPU parts); without npm or the registry its column says "-".
set -eu

BIN=${IRPIPE_BIN:-build/bin}
WORK=${BENCH_DIR:-build/bench}/models_cpu
SIZE=${BENCH_CPU_SIZE:-224}
ROUNDS=${BENCH_CPU_ROUNDS:-5}
REPS=${BENCH_CPU_REPS:-3}
MODELS=${BENCH_CPU_MODELS:-resnet18 mobilenet_v2 squeezenet1_1 efficientnet_b0 densenet121 googlenet}
LAYOUTS=${BENCH_CPU_LAYOUTS:-auto none}
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/../tests/onnx/models.py
mkdir -p "$WORK"

echo "== whole models on the cpu, 1 thread, ${SIZE}x${SIZE}: ir-run (POCL) beside torch and ONNX Runtime, median of $ROUNDS interleaved rounds of $REPS"
if ! "$PY" -c 'import torch, torchvision, onnx' 2>/dev/null; then
	echo "(skipped: python3-torch, python3-torchvision or python3-onnx is missing)"
	exit 0
fi

ort=
if [ -f "$WORK/ort/node_modules/onnxruntime-node/package.json" ] ||
	{ command -v npm >/dev/null 2>&1 &&
		npm install --prefix "$WORK/ort" --ignore-scripts --no-audit --no-fund \
			onnxruntime-node > "$WORK/npm.log" 2>&1; }; then
	ort=$WORK/ort/node_modules
else
	echo "(ONNX Runtime: npm or the npm registry is not available; see $WORK/npm.log)"
fi

# median of numbers on standard input
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", v[int((NR + 1) / 2)]; else printf "-" }'; }

irrun() { # dir layout
	POCL_MAX_PTHREAD_COUNT=1 "$BIN/ir-run" --repeat="$REPS" --data-dir "$1" --input x="$1/x.npy" \
		-o "$1/$2.npy" "$1/$2.ocl.ir" 2> "$1/$2.err" > /dev/null &&
		sed -n 's/.*runs, median \([0-9.]*\) ms.*, cpu \([0-9.]*\) ms a run/\1 \2/p' "$1/$2.err"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for m in $MODELS; do
	D=$WORK/$m
	mkdir -p "$D"
	[ -s "$D/$m.onnx" ] || "$PY" "$M" export "$m" "$SIZE" "$D" 2> "$D/export.err" ||
		{ echo "$m: export failed ($D/export.err)"; continue; }
	"$BIN/ir-import-onnx" -o "$D/m.ir" --data-dir "$D" "$D/$m.onnx" 2> "$D/import.err" ||
		{ echo "$m: $(head -1 "$D/import.err")"; continue; }
	for l in $LAYOUTS; do
		"$BIN/ir-alter-layout" --layout="$l" "$D/m.ir" | "$BIN/ir-fold-constants" --data-dir="$D" \
			| "$BIN/ir-plan-devices" | "$BIN/ir-lower" | "$BIN/ir-plan-devices" \
			| "$BIN/ir-flatten-texture" | "$BIN/ir-codegen-ocl" > "$D/$l.ocl.ir"
		# the warm-up: POCL compiles every kernel at its first launch
		POCL_MAX_PTHREAD_COUNT=1 "$BIN/ir-run" --data-dir "$D" --input x="$D/x.npy" \
			-o "$D/$l.npy" "$D/$l.ocl.ir" > /dev/null
		"$PY" "$M" same "$D/$l.npy" "$D/y.npy" 1e-3 1e-4 > "$D/$l.same" 2>&1 || true
	done
	: > "$D/rounds"
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		for l in $LAYOUTS; do
			echo "$l $(irrun "$D" "$l")" >> "$D/rounds"
		done
		echo "torch $("$PY" "$M" torch-times "$m" "$SIZE" "$REPS" 1)" >> "$D/rounds"
		[ -z "$ort" ] || echo "ort $(NODE_PATH=$ort node "$HERE/ort_time.js" "$D/$m.onnx" "$SIZE" "$REPS")" >> "$D/rounds"
		r=$((r + 1))
	done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"

# table COLUMN TITLE: the medians over the rounds of column 2 (wall) or 3
# (cpu) of each model's rounds, and the ratios
table() {
	echo "$2"
	printf '%-16s' model
	for l in $LAYOUTS; do printf ' %12s' "ir-run $l"; done
	printf ' %9s %9s' torch ORT
	for l in $LAYOUTS; do printf ' %11s %11s' "torch/$l" "ORT/$l"; done
	[ "$1" = 3 ] || printf '  %s' "ir-run vs torch (largest difference)"
	echo
	for m in $MODELS; do
		D=$WORK/$m
		[ -s "$D/rounds" ] || continue
		t=$(awk -v c="$1" '$1 == "torch" { print $c }' "$D/rounds" | median)
		o=$(awk -v c="$1" '$1 == "ort" { print $c }' "$D/rounds" | median)
		printf '%-16s' "$m"
		for l in $LAYOUTS; do
			printf ' %12s' "$(awk -v l="$l" -v c="$1" '$1 == l { print $c }' "$D/rounds" | median)"
		done
		printf ' %9s %9s' "$t" "$o"
		for l in $LAYOUTS; do
			i=$(awk -v l="$l" -v c="$1" '$1 == l { print $c }' "$D/rounds" | median)
			awk -v i="$i" -v t="$t" -v o="$o" 'BEGIN {
				printf " %10sx %10sx", (i > 0 && t != "-" ? sprintf("%.2f", t / i) : "-"),
					(i > 0 && o != "-" ? sprintf("%.2f", o / i) : "-") }'
		done
		[ "$1" = 3 ] || printf '  %s' "$(sed 's/, [0-9]* of.*//' "$D/$(echo "$LAYOUTS" | cut -d' ' -f1).same")"
		echo
	done
}
table 2 "wall ms per inference (median of the rounds' medians)"
table 3 "CPU ms per inference (every thread of the process)"
echo "(ratios above 1: ir-run is faster; issue 23's goals: at least 1.0x torch and 0.8x ONNX Runtime)"
