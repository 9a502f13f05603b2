#!/bin/sh
# make bench, section "ir-run on OpenCL" (POCL here): the device memory a
# model takes with a memory plan (ir-plan-memory: pools as sub-buffers,
# images shared) beside the same model without one (every value its own
# buffer, freed after its last use: lib/ocl/rt_live.c), both from
# --profile's memory lines; and
# the time per run enqueued asynchronously (the default) beside --sync
# (every command finished before the next), medians of --repeat.  Nothing
# is asserted.
set -eu

BIN=${IRPIPE_BIN:-build/bin}
WORK=${BENCH_DIR:-build/bench}
PY=/usr/bin/python3
H=tests/ir-run-ocl/npyio.py
mkdir -p "$WORK"
if ! "$PY" -c 'import numpy' 2> /dev/null; then
	echo "(python3-numpy missing: no ir-run section)"
	exit 0
fi

# pools FILE: FILE with pools any device may use, aligned for sub-buffers
# on any device (POCL's CL_DEVICE_MEM_BASE_ADDR_ALIGN is 128 bytes)
pools() {
	awk '/^fn / && !p { print "pool @arena {size=1073741824, alignment=128}"
		print "pool @consts {size=1073741824, kind=\"constant\", alignment=128}"; p = 1 } { print }' "$1"
}
# the bytes of --profile's memory lines: pools as far as used, planned
# images, and the peak of everything else
bytes() {
	awk '/^ir-run: memory on/ { for (i = 2; i <= NF; i++) {
		if ($i == "used;") s += $(i - 1)
		if ($i == "images" && $(i - 1) == "planned") s += $(i + 1)
		if ($i == "peak") s += $(i + 1) } } END { print s + 0 }'
}
median_ms() {
	sed -n 's/^ir-run: [0-9]* runs, median \([0-9.]*\) ms.*/\1/p'
}

echo
echo "== ir-run on OpenCL: device memory planned vs unplanned; time per run async vs --sync"
printf '%-16s %12s %12s %8s %10s %10s %8s\n' model "unplanned B" "planned B" ratio \
	"async ms" "sync ms" ratio
for m in net:50 net:200 texture; do
	case $m in
	net:*) python3 bench/gen.py net "${m#net:}" > "$WORK/rt.ir" ;;
	texture) cp demo/texture.ir "$WORK/rt.ir" ;;
	esac
	pools "$WORK/rt.ir" > "$WORK/rt.pools.ir"
	"$BIN/ir-plan-devices" "$WORK/rt.pools.ir" | "$BIN/ir-lower" | "$BIN/ir-plan-devices" \
		| "$BIN/ir-flatten-texture" > "$WORK/rt.flat.ir"
	"$BIN/ir-codegen-ocl" "$WORK/rt.flat.ir" > "$WORK/rt.u.ir"
	"$BIN/ir-plan-memory" "$WORK/rt.flat.ir" | "$BIN/ir-codegen-ocl" > "$WORK/rt.p.ir"
	args=$("$PY" "$H" inputs "$WORK/rt.u.ir" "$WORK")
	# shellcheck disable=SC2086
	u=$("$BIN/ir-run" --profile --repeat 20 $args -o "$WORK/rt.out.npy" "$WORK/rt.u.ir" 2>&1)
	# shellcheck disable=SC2086
	p=$("$BIN/ir-run" --profile $args -o "$WORK/rt.out.npy" "$WORK/rt.p.ir" 2>&1 | bytes)
	# shellcheck disable=SC2086
	s=$("$BIN/ir-run" --sync --repeat 20 $args -o "$WORK/rt.out.npy" "$WORK/rt.u.ir" 2>&1 | median_ms)
	a=$(echo "$u" | median_ms)
	u=$(echo "$u" | bytes)
	awk -v m="$m" -v u="$u" -v p="$p" -v a="$a" -v s="$s" 'BEGIN {
		printf "%-16s %12d %12d %7.3fx %10.3f %10.3f %7.2fx\n", m, u, p, (u > 0 ? p / u : 0), a, s,
		       (s > 0 ? a / s : 0) }'
done
echo "(net:N: N operators of residual blocks on 1x8x8x8, one device; texture: demo/texture.ir;"
echo " one device each, so async gains only the host's overlap with the queue)"
