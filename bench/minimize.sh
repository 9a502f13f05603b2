#!/bin/sh
# bench/minimize.sh: ir-plan-devices --minimize-copies (issue 26) beside
# ir-parse and plain planning on the same inputs (bench/gen.py's chains
# and random DAGs), and beside another build's --minimize-copies when
# BENCH_BASELINE_BIN is given: CPU seconds (user + sys, the median of
# BENCH_RUNS runs, the tools taking turns in each round), so that a
# machine shared with other work still gives comparable numbers; the
# load average beside each row says how shared it was.  The bytes copied
# by both plans come from --stats.  Run by bench/run.sh; alone:
#   BENCH_SIZES=1000000 sh bench/minimize.sh
set -eu

BIN=${IRPIPE_BIN:-build/bin}
WORK=${BENCH_DIR:-build/bench}
SIZES=${BENCH_SIZES:-"10000 100000 1000000"}
RUNS=${BENCH_RUNS:-3}
BASE=${BENCH_BASELINE_BIN:-}
mkdir -p "$WORK"

# cpu FILE COMMAND...: appends the command's user + sys seconds to FILE
cpu() {
	f=$1
	shift
	/usr/bin/time -f '%U %S' -o "$WORK/cpu.t" "$@" > /dev/null
	awk '{ printf "%.3f\n", $1 + $2 }' "$WORK/cpu.t" >> "$f"
}

median() {
	sort -g "$1" | awk -v r="$RUNS" 'NR == int((r + 1) / 2)'
}

echo "== ir-plan-devices --minimize-copies vs ir-parse and plain planning (CPU s, median of $RUNS; bytes copied)"
printf '%6s %9s %8s %8s %8s %9s' shape bindings "parse" "plan" "min" "min/parse"
[ -z "$BASE" ] || printf ' %8s %8s' "base min" "min/base"
printf ' %12s %12s %6s\n' "plan bytes" "min bytes" load
for shape in chain dag; do
	for n in $SIZES; do
		in=$WORK/$shape$n.ir
		[ -s "$in" ] || python3 bench/gen.py "$shape" "$n" > "$in"
		load=$(cut -d' ' -f1 /proc/loadavg)
		: > "$WORK/c.parse"; : > "$WORK/c.plan"; : > "$WORK/c.min"; : > "$WORK/c.base"
		i=0
		while [ $i -lt "$RUNS" ]; do
			cpu "$WORK/c.parse" "$BIN/ir-parse" "$in"
			cpu "$WORK/c.plan" "$BIN/ir-plan-devices" "$in"
			cpu "$WORK/c.min" "$BIN/ir-plan-devices" --minimize-copies "$in"
			[ -z "$BASE" ] || cpu "$WORK/c.base" "$BASE/ir-plan-devices" --minimize-copies "$in"
			i=$((i + 1))
		done
		pt=$(median "$WORK/c.parse") ut=$(median "$WORK/c.plan") mt=$(median "$WORK/c.min")
		ub=$("$BIN/ir-plan-devices" --stats "$in" 2>&1 > /dev/null | sed -n 's/^bytes copied: //p')
		mb=$("$BIN/ir-plan-devices" --minimize-copies --stats "$in" 2>&1 > /dev/null |
			sed -n 's/^bytes copied: //p')
		awk -v s="$shape" -v n="$n" -v pt="$pt" -v ut="$ut" -v mt="$mt" 'BEGIN {
			printf "%6s %9d %8.2f %8.2f %8.2f %8.2fx", s, n, pt, ut, mt, (pt > 0 ? mt / pt : 0) }'
		if [ -n "$BASE" ]; then
			bt=$(median "$WORK/c.base")
			awk -v bt="$bt" -v mt="$mt" 'BEGIN { printf " %8.2f %7.2fx", bt, (bt > 0 ? mt / bt : 0) }'
		fi
		printf ' %12d %12d %6s\n' "$ub" "$mb" "$load"
	done
done
echo "target (issue 26): --minimize-copies at most 2x the CPU time of parsing, bytes never above plain planning's"
