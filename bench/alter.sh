#!/bin/sh
# bench/alter.sh (part of make bench, from bench/run.sh): ir-alter-layout.
#
#   1. the tool's speed on resnet18- and mobilenet_v2-like graphs repeated to
#      about 10k-100k operators, beside ir-parse on the same input;
#   2. the same models, weights in constant files, run on OpenCL (POCL
#      here; any device with BENCH_OCL_DEVICE=@gpu=NAME) after
#      ir-fold-constants: the NCHW model as written (buffers),
#      the ir-alter-layout'ed model lowered --no-texture (NCHW4c in
#      buffers) and lowered with textures (NCHW4c in images); ms per run
#      (ir-run --repeat's median) and the ratio to the NCHW model.
#      BENCH_ALTER_SIZE (default 112) is the input's height and width,
#      BENCH_ALTER_DIV (default 1) divides the channel counts.
set -eu

BIN=${IRPIPE_BIN:-build/bin}
WORK=${BENCH_DIR:-build/bench}/alter
RUNS=${BENCH_RUNS:-3}
SIZE=${BENCH_ALTER_SIZE:-112}
DIV=${BENCH_ALTER_DIV:-1}
PY=${PYTHON:-/usr/bin/python3}
mkdir -p "$WORK"

# seconds (median of RUNS) of a command
secs() {
	i=0
	: > "$WORK/times"
	while [ $i -lt "$RUNS" ]; do
		t0=$(date +%s%N)
		"$@" > /dev/null
		t1=$(date +%s%N)
		echo "$(( (t1 - t0) / 1000 ))" >> "$WORK/times"
		i=$((i + 1))
	done
	sort -n "$WORK/times" | awk -v r="$RUNS" 'NR == int((r + 1) / 2) { printf "%.4f\n", $1 / 1e6 }'
}

echo "== ir-alter-layout vs ir-parse on the same input (median of $RUNS)"
printf '%-22s %9s %9s %9s %8s\n' model bindings "parse s" "alter s" ratio
for m in resnet18 mobilenet_v2; do
	for div in 1 10; do
		# a model's body repeated: $div copies of it in one function would
		# change nothing for the pass, so vary the number of models instead
		$PY tests/alter/models.py $m --size 32 --div 8 > "$WORK/$m.ir"
		n=$(awk -v k=$((div * 10)) '/^  %/ { b++ } END { print b * k }' "$WORK/$m.ir")
		$PY - "$WORK/$m.ir" $((div * 10)) > "$WORK/$m.x$div.ir" <<'PYEOF'
import re, sys
text = open(sys.argv[1]).read()
k = int(sys.argv[2])
head, body = text.split("fn @main", 1)
out = [head]
for i in range(k):
    b = re.sub(r"%(\w+)", lambda mm: "%%%s_%d" % (mm.group(1), i), "fn @main" + body)
    out.append(b.replace("fn @main(", "fn @f%d(" % i, 1))
sys.stdout.write("".join(out))
PYEOF
		tp=$(secs "$BIN/ir-parse" "$WORK/$m.x$div.ir")
		ta=$(secs "$BIN/ir-alter-layout" "$WORK/$m.x$div.ir")
		awk -v l="$m x$((div * 10))" -v n="$n" -v p="$tp" -v a="$ta" 'BEGIN {
			printf "%-22s %9d %9.3f %9.3f %7.2fx\n", l, n, p, a, (p > 0 ? a / p : 0) }'
	done
done

echo
echo "== textures vs buffers on OpenCL: ${SIZE}x${SIZE} input, channels / $DIV (ms, median of $RUNS runs)"
DEV=${BENCH_OCL_DEVICE:+--device=$BENCH_OCL_DEVICE}
printf '%-14s %14s %16s %9s %18s %9s\n' model "NCHW buffers" "NCHW4c buffers" ratio "NCHW4c textures" ratio
for m in resnet18 mobilenet_v2; do
	# weights are constant files, folded into their packed layouts once
	# (ir-fold-constants), so no weight is prepared per run
	D=$WORK/$m
	mkdir -p "$D"
	$PY tests/alter/models.py $m --size "$SIZE" --div "$DIV" --const-dir "$D" > "$D/model.ir"
	args=$($PY -c "import sys; sys.path.insert(0, 'tests/alter'); import check
print(' '.join(check.inputs('$BIN', '$D/model.ir', '$D')))")
	ms=""
	for v in nchw buf tex; do
		case $v in
		nchw) a=--layout=none l= ;;
		buf) a= l=--no-texture ;;
		tex) a= l= ;;
		esac
		"$BIN/ir-alter-layout" $a "$D/model.ir" | "$BIN/ir-fold-constants" --data-dir="$D" \
			| "$BIN/ir-plan-devices" | "$BIN/ir-lower" $l | "$BIN/ir-plan-devices" \
			| "$BIN/ir-flatten-texture" | "$BIN/ir-codegen-ocl" > "$D/$v.ir"
		t=$("$BIN/ir-run" $DEV $args --data-dir="$D" --repeat="$RUNS" -o "$D/$v.npy" "$D/$v.ir" 2>&1 |
			sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
		ms="$ms ${t:--}"
	done
	set -- $ms
	awk -v m="$m" -v a="$1" -v b="$2" -v c="$3" 'BEGIN {
		printf "%-14s %14s %16s %8.2fx %18s %8.2fx\n", m, a, b, (a > 0 ? b / a : 0), c, (a > 0 ? c / a : 0) }'
done
