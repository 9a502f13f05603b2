#!/bin/sh
# bench/h100_pools.sh: the reductions of whole models (global_avg_pool2d,
# pools, sum, mean, softmax) on an NVIDIA H100 or on POCL, each prim's
# kernel time per call, the new tools against a baseline in one run
# (issue 23).  Nothing is asserted but that the two results are equal.
#
#   BASE_REV=<commit> MODELS="efficientnet_b0 mobilenet_v2" sh bench/h100_pools.sh prep DIR
#       here: as bench/h100_models.sh prep (the sources, the baseline's,
#       the models exported and imported), and this script in DIR/bench.
#   sh DIR/bench/h100_pools.sh run DIR
#       on the device, from the repository root: builds both (JOBS=16),
#       then per model compiles with each (ir-alter-layout |
#       ir-fold-constants | ir-plan-devices | ir-lower | ir-plan-devices |
#       ir-flatten-texture | ir-codegen-ocl, NCHW buffers, as
#       h100_models.sh) and runs ir-run --device=@gpu=PLATFORM --profile
#       --repeat REPEAT; prints per reduction prim its calls per run and
#       the microseconds per call (its kernels' event times, the slices'
#       second kernel included) of base and new, then the kernels' total
#       per run.  PLATFORM (NVIDIA; Portable for POCL), REPEAT (30),
#       OUT (BENCH_DIR, /tmp/h100_pools): the profiles.
set -u
cmd=${1:-} P=${2:-}
[ -n "$P" ] || { echo "usage: h100_pools.sh prep|run DIR" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/h100_common.sh"

if [ "$cmd" = prep ]; then
	sh "$HERE/h100_models.sh" prep "$P" || exit 1
	cp "$HERE/h100_pools.sh" "$P/bench/"
	exit 0
fi
[ "$cmd" = run ] || { echo "usage: h100_pools.sh prep|run DIR" >&2; exit 2; }

P=$(cd "$P" && pwd)
PY=${PY:-python3}
S=${SRC_DIR:-/tmp/h100_pools_src}
W=${BENCH_DIR:-/tmp/h100_pools}
OUT=${OUT:-$W}
PLATFORM=${PLATFORM:-NVIDIA}
REPEAT=${REPEAT:-30}
MODELS=${MODELS:-$(ls "$P/models")}
mkdir -p "$W" "$S" "$OUT"
date -u +'date: %Y-%m-%d %H:%M UTC'
! command -v nvidia-smi > /dev/null || nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
h100_build "$P" "$S" "$OUT" || exit 1
[ -n "$H100_BASE" ] || { echo "h100_pools.sh: prep had no BASE_REV" >&2; exit 1; }
for m in $MODELS; do
	D=$W/$m
	rm -rf "$D"
	mkdir -p "$D"
	cp "$P/models/$m"/* "$D/"
	h100_regen "$D"
	for v in base new; do
		T=$S/build/bin
		[ $v = base ] && T=$S.base/build/bin
		"$T/ir-alter-layout" "$D/m.ir" | "$T/ir-fold-constants" --data-dir="$D" | "$T/ir-plan-devices" \
			| "$T/ir-lower" | "$T/ir-plan-devices" | "$T/ir-flatten-texture" | "$T/ir-codegen-ocl" > "$D/$v.ocl.ir" &&
		"$T/ir-run" --device=@gpu=$PLATFORM --profile --repeat "$REPEAT" --data-dir "$D" --input x="$D/x.npy" \
			-o "$D/$v.npy" "$D/$v.ocl.ir" 2> "$OUT/$m.$v.prof" > /dev/null ||
			{ echo "$m $v: failed"; tail -5 "$OUT/$m.$v.prof"; continue 2; }
	done
	echo
	echo "== $m: reduction prims, us per call (kernel event times, every kernel of the prim), $PLATFORM"
	awk '
	FNR == 1 { v = (FILENAME ~ /\.base\.prof$/) ? "base" : "new" }
	/profile of [0-9]+ run/ { runs[v] = $4 }
	$NF ~ /^@/ && $3 ~ /^[0-9]+$/ {
		p = $NF; sub(/_k[0-9]+$/, "", p)
		t[v, p] += $1; all[v] += $1
		if ($NF ~ /_k0$/) n[v, p] = $3
		if (p ~ /global_avg_pool2d|avg_pool2d|max_pool2d|_mean|_sum|softmax/ && !(p in seen)) { seen[p] = 1; order[++np] = p }
	}
	END {
		printf "%-52s %6s %10s %10s %7s\n", "prim", "calls", "base us", "new us", "base/new"
		for (i = 1; i <= np; i++) {
			p = order[i]
			b = n["base", p] ? 1000 * t["base", p] / n["base", p] : 0
			w = n["new", p] ? 1000 * t["new", p] / n["new", p] : 0
			printf "%-52s %6d %10.2f %10.2f %7s\n", p, n["new", p] / runs["new"], b, w, (w > 0 ? sprintf("%.1fx", b / w) : "-")
		}
		printf "kernels per run: base %.3f ms, new %.3f ms\n", all["base"] / runs["base"], all["new"] / runs["new"]
	}' "$OUT/$m.base.prof" "$OUT/$m.new.prof"
	"$PY" "$HERE/h100_models.py" same "$D/new.npy" "$D/base.npy" 1e-3 | sed "s/^/$m new vs base: /"
done
