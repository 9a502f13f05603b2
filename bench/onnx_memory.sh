#!/bin/sh
# bench/onnx_memory.sh (make bench): ir-import-onnx's peak memory on
# torchvision's vgg11 (random weights, seed 0, 1x3x224x224, 507 MiB of f32
# weights, the largest 392 MiB) exported by torch.onnx: peak resident set
# size (getrusage of the child) and wall time, imported from the file
# (mapped) and from a pipe (read whole), as a multiple of the model file's
# size.  With BENCH_BASELINE_BIN=DIR, the same imports through another
# build's ir-import-onnx side by side (ratio = this / baseline).
# Nothing is asserted; tests/onnx.bats bounds the peak on a smaller model.
#
# Issue 28, item 17, measured on the 2-core build machine (506 MiB file):
#   baseline, from a file     1522 MiB  3.00x   (the file read whole,
#   this build, from a file    517 MiB  1.02x    protobuf-c's copy, the
#   baseline, from a pipe     1522 MiB  3.00x    tensors)
#   this build, from a pipe   1015 MiB  2.00x   (the bytes read, the tensors)
set -eu

BIN=${IRPIPE_BIN:-build/bin}
WORK=${BENCH_DIR:-build/bench}/onnx_memory
PY=/usr/bin/python3
HERE=$(dirname "$0")
mkdir -p "$WORK"

echo
echo "== ir-import-onnx peak memory on vgg11 (1x3x224x224, random weights)"
if ! "$PY" -c 'import torch, torchvision, onnx' 2>/dev/null; then
	echo "(skipped: python3-torch, python3-torchvision or python3-onnx is missing)"
	exit 0
fi
[ -f "$WORK/vgg11.onnx" ] || "$PY" "$HERE/../tests/onnx/models.py" export vgg11 224 "$WORK" 2>/dev/null
size=$(wc -c < "$WORK/vgg11.onnx")

# peak KiB and wall seconds of one shell command line
peak() {
	"$PY" - "$1" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run(["sh", "-c", sys.argv[1]], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "%.2f" % (time.monotonic() - t))
PY
}

# row LABEL BIN CMD-TAIL: the peak of BIN/ir-import-onnx CMD-TAIL
row() {
	set -- "$1" $(peak "$2/ir-import-onnx -o $WORK/v.ir $3")
	printf '%-34s %7s MiB %6.2fx %7s s\n' "$1" "$(($2 / 1024))" \
		"$(echo "$2 $size" | awk '{ print $1 * 1024 / $2 }')" "$3"
	echo "$2" > "$WORK/last"
}

printf '%-34s %11s %7s %9s\n' "vgg11.onnx: $((size / 1048576)) MiB" "peak RSS" "x file" "wall"
for how in file pipe; do
	[ $how = file ] && tail="$WORK/vgg11.onnx" || tail="< $WORK/vgg11.onnx"
	if [ -n "${BENCH_BASELINE_BIN:-}" ]; then
		row "baseline, from a $how" "$BENCH_BASELINE_BIN" "$tail"
		base=$(cat "$WORK/last")
	fi
	row "this build, from a $how" "$BIN" "$tail"
	if [ -n "${BENCH_BASELINE_BIN:-}" ]; then
		printf '%-34s %11s\n' "  ratio this / baseline" \
			"$(echo "$(cat "$WORK/last") $base" | awk '{ printf "%.2f", $1 / $2 }')"
	fi
done
