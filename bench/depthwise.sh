#!/bin/sh
# bench/depthwise.sh (make bench, from bench/run.sh): depthwise conv2d on
# the cpu, one thread (issue 23).
#
# The depthwise layers of torchvision's mobilenet_v2 and efficientnet_b0
# at 224x224 (channels, input size, stride, kernel; each followed by its
# bias and ReLU6 clip, as ir-lower fuses them there), one module per
# layout (NCHW with OIHW weights; NCHW4c with OIHW4o), every layer a
# separate call.  Each module is lowered twice: as ir-lower does now
# (lib/lower/lower_tile_dw.c: a row of outputs per work item, the input
# window in registers) and with --no-tile, which for a depthwise conv is
# the element-per-item schedule it ran before.  Printed per layout: CPU
# ms per run of the whole module, user + sys of `ir-run --repeat=R`
# minus that of --repeat=1, over R - 1 runs (R = BENCH_DW_REPEAT,
# default 20), the median of BENCH_DW_ROUNDS interleaved rounds (default
# 3), which the machine's load moves little (kernel times from
# `ir-run --profile` are wall clock, which a loaded machine's
# preemptions moved 100-fold here).  POCL_MAX_PTHREAD_COUNT=1.  Nothing is asserted.
#
# Measured here (2 shared cores, load 7-8): the whole models through
# bench/models_cpu.sh's pipeline, CPU ms per inference (user + sys of
# ir-run --repeat=25 minus --repeat=1, over 24; median of 3 rounds),
# before = main at fb05bc0, after = with the tiles:
#   mobilenet_v2        NCHW 28.3 -> 15.8   NCHW4c 30.0 -> 11.7
#   efficientnet_b0     NCHW 50.4 -> 30.4   NCHW4c 47.5 -> 21.7
#   shufflenet_v2_x1_0  NCHW 27.5 -> 25.4   NCHW4c 21.3 -> 17.1
# (shufflenet's time is in its 1x1 convs and channel shuffles); and this
# script: NCHW 25.3 -> 9.5 ms (2.7x), NCHW4c 26.3 -> 3.2 ms (8.3x).
set -eu

BIN=${IRPIPE_BIN:-build/bin}
WORK=${BENCH_DIR:-build/bench}/depthwise
R=${BENCH_DW_REPEAT:-20}
ROUNDS=${BENCH_DW_ROUNDS:-3}
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")" && pwd)
H=$HERE/../tests/ir-run-ocl/npyio.py
mkdir -p "$WORK"

echo "== depthwise conv2d layers of mobilenet_v2 and efficientnet_b0 on the cpu, 1 thread: tiled vs --no-tile (element per item)"
if ! "$PY" -c 'import numpy' 2>/dev/null; then
	echo "(skipped: python3-numpy is missing)"
	exit 0
fi

# name channels size stride kernel
LAYERS="mb1 32 112 1 3
mb2 96 112 2 3
mb3 144 56 1 3
mb4 144 56 2 3
mb5 192 28 1 3
mb6 192 28 2 3
mb7 384 14 1 3
mb8 576 14 1 3
mb9 576 14 2 3
mb10 960 7 1 3
ef1 144 56 2 5
ef2 240 28 1 5
ef3 240 28 2 3
ef4 480 14 1 3
ef5 480 14 1 5
ef6 672 14 2 5
ef7 1152 7 1 5
ef8 1152 7 1 3"

# module LAYOUT: every layer as a function, called from @main
module() {
	echo "$LAYERS" | awk -v l="$1" '
	{
		n[NR] = $1; c[NR] = $2; h[NR] = $3; s[NR] = $4; k[NR] = $5
		o[NR] = int(($3 + 2 * int($5 / 2) - $5) / $4) + 1
	}
	function act(i, hh) { return l == "NCHW" ? sprintf("f32[1,%d,%d,%d]", c[i], hh, hh) \
		: sprintf("f32[1,%d,%d,%d,4]", c[i] / 4, hh, hh) }
	function wt(i) { return l == "NCHW" ? sprintf("f32[%d,1,%d,%d]", c[i], k[i], k[i]) \
		: sprintf("f32[%d,1,%d,%d,4]", c[i] / 4, k[i], k[i]) }
	function bt(i) { return l == "NCHW" ? sprintf("f32[%d]", c[i]) : sprintf("f32[1,%d,1,1,4]", c[i] / 4) }
	END {
		print "device @cpu = cpu(0)"
		for (i = 1; i <= NR; i++) {
			p = int(k[i] / 2)
			printf "fn @%s(%%x: %s, %%w: %s, %%b: %s) -> %s {\n", n[i], act(i, h[i]), wt(i), bt(i), act(i, o[i])
			printf "  %%c = nn.conv2d(%%x, %%w) {groups=%d, strides=[%d, %d], padding=[%d, %d, %d, %d]%s}\n",
			       c[i], s[i], s[i], p, p, p, p,
			       l == "NCHW" ? "" : ", data_layout=\"NCHW4c\", kernel_layout=\"OIHW4o\""
			printf "  %%a = %s\n", l == "NCHW" ? "nn.bias_add(%c, %b)" : "add(%c, %b)"
			printf "  %%y = clip(%%a) {a_min=0.0, a_max=6.0}\n  return %%y\n}\n"
		}
		printf "fn @main("
		for (i = 1; i <= NR; i++)
			printf "%s%%x%d: %s, %%w%d: %s, %%b%d: %s", (i > 1 ? ", " : ""), i, act(i, h[i]), i, wt(i), i, bt(i)
		printf ") -> f32[1] {\n"
		for (i = 1; i <= NR; i++)
			printf "  %%y%d = @%s(%%x%d, %%w%d, %%b%d)\n", i, n[i], i, i, i
		# every result is used: a sum of their first elements
		for (i = 1; i <= NR; i++)
			printf "  %%f%d = reshape(%%y%d) {newshape=[-1]}\n  %%e%d = strided_slice(%%f%d) {begin=[0], end=[1]}\n", i, i, i, i
		for (i = 2; i <= NR; i++)
			printf "  %%e%d = add(%%e%d, %%e%d)\n", NR + i, (i == 2 ? 1 : NR + i - 1), i
		printf "  return %%e%d\n}\n", 2 * NR
	}'
}

# cpu_ms FILE: CPU ms per run (see the header)
cpu_ms() {
	for n in "$R" 1; do
		/usr/bin/time -o "$WORK/time.$n" -f '%U %S' env POCL_MAX_PTHREAD_COUNT=1 "$BIN/ir-run" \
			--repeat="$n" $ARGS -o "$WORK/o.npy" "$1" > /dev/null 2>&1
	done
	cat "$WORK/time.$R" "$WORK/time.1" | tr '\n' ' ' |
		awk -v r="$R" '{ printf "%.2f\n", (($1 + $2) - ($3 + $4)) * 1000 / (r - 1) }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for l in NCHW NCHW4c; do
	module "$l" > "$WORK/$l.ir"
	ARGS=$("$PY" "$H" inputs "$WORK/$l.ir" "$WORK")
	for v in tile no-tile; do
		opt=
		[ $v = tile ] || opt=--no-tile
		"$BIN/ir-plan-devices" "$WORK/$l.ir" | "$BIN/ir-lower" $opt | "$BIN/ir-plan-devices" \
			| "$BIN/ir-flatten-texture" | "$BIN/ir-codegen-ocl" > "$WORK/$l.$v.ocl.ir"
		# the warm-up: POCL compiles every kernel at its first launch
		POCL_MAX_PTHREAD_COUNT=1 "$BIN/ir-run" $ARGS -o "$WORK/$v.npy" "$WORK/$l.$v.ocl.ir" > /dev/null
	done
	"$PY" "$H" same "$WORK/tile.npy" "$WORK/no-tile.npy" || echo "$l: the results differ"
	: > "$WORK/tile.t"
	: > "$WORK/no-tile.t"
	i=0
	while [ $i -lt "$ROUNDS" ]; do
		cpu_ms "$WORK/$l.no-tile.ocl.ir" >> "$WORK/no-tile.t"
		cpu_ms "$WORK/$l.tile.ocl.ir" >> "$WORK/tile.t"
		i=$((i + 1))
	done
	t=$(median < "$WORK/tile.t")
	n=$(median < "$WORK/no-tile.t")
	awk -v l="$l" -v t="$t" -v n="$n" 'BEGIN {
		printf "%-7s all 18 layers, CPU ms per run: element per item %8.2f  tiled %8.2f  %6.2fx\n",
		       l, n, t, (t > 0 ? n / t : 0) }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
