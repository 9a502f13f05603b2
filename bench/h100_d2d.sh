#!/bin/sh
# bench/h100_d2d.sh prep|run DIR: copies between two GPUs of one OpenCL
# platform (issue 26), on a device machine with two (the device tool's
# nvidia-h100-x2), by the NVIDIA platform:
#   1. bandwidth: a 256 MiB tensor made on @g0 (relu), copied to @g1 and
#      used there (relu), by a copy command between the two devices (one
#      context for the platform: --peer-copies) and through host memory
#      (the default; a read on @g0, a write on @g1); GB/s of each copy
#      row of --profile, and the median run of each;
#      and, with BASE_REV set at prep, the baseline's copy through host
#      memory beside it (before pinned staging memory and pieces);
#   2. a small convolutional model split across the two GPUs (conv+relu on
#      @g0, on @g1, on @g0 again: two copies each way), run both ways
#      and by the interpreter: the three results must be equal;
#   3. overlap: two independent branches of convolutions, one on each
#      GPU, the second's input and result copied through the host: each
#      device's busy time and how much of it overlapped (--profile's
#      line), against the run's wall.
# `prep DIR` here (sources, generated parser, OpenCL headers: see
# bench/h100_common.sh), then on the device `sh DIR/bench/h100_d2d.sh run
# DIR`.  Nothing is asserted but the equality.
set -u
cmd=${1:-} P=${2:-}
[ -n "$P" ] || { echo "usage: h100_d2d.sh prep|run DIR" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/h100_common.sh"

if [ "$cmd" = prep ]; then
	set -e
	rm -rf "$P"
	mkdir -p "$P/bench"
	h100_prep_sources "$P"
	cp "$HERE/h100_d2d.sh" "$HERE/h100_common.sh" "$P/bench/"
	exit 0
fi
[ "$cmd" = run ] || { echo "usage: h100_d2d.sh prep|run DIR" >&2; exit 2; }

P=$(cd "$P" && pwd)
PY=${PY:-python3}
S=${SRC_DIR:-/tmp/h100_d2d_src}
W=${BENCH_DIR:-/tmp/h100_d2d}
OUT=${OUT:-$W}
NV=${NV:-NVIDIA}
REPEAT=${REPEAT:-20}
mkdir -p "$W" "$S" "$OUT"
date -u +'date: %Y-%m-%d %H:%M UTC'
! command -v nvidia-smi > /dev/null || nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
h100_build "$P" "$S" "$OUT" || exit 1
B=$S/build/bin
DEV="--device=@g0=$NV:0 --device=@g1=$NV:1"
compile() { "$B/ir-plan-devices" "$1" | "$B/ir-lower" | "$B/ir-plan-devices" | "$B/ir-flatten-texture" | "$B/ir-codegen-ocl" > "$2"; }

# 1. bandwidth
N=67108864
cat > "$W/bw.ir" <<EOF
device @g0 = gpu(0)
device @g1 = gpu(1)
fn @main(%x: f32[$N] on @g0) -> f32[$N] on @g1 {
  %a: f32[$N] on @g0 = nn.relu(%x)
  %b = device_copy(%a, @g0 -> @g1)
  %c: f32[$N] on @g1 = nn.relu(%b)
  return %c
}
EOF
compile "$W/bw.ir" "$W/bw.ocl.ir"
"$PY" -c "import numpy as np; np.save('$W/x.npy', np.random.default_rng(1).standard_normal($N, dtype=np.float32))"
echo "== a 256 MiB tensor from @g0 to @g1 ($REPEAT runs): copy rows of --profile"
printf '%-28s %10s  %s\n' "copies" "run ms" "copy rows: total_ms calls GB/s name"
for v in d2d host; do
	f=--peer-copies
	[ $v = host ] && f=--host-copies
	"$B/ir-run" $DEV $f --profile --repeat "$REPEAT" --input x="$W/x.npy" -o "$W/bw.$v.npy" \
		"$W/bw.ocl.ir" 2> "$OUT/bw.$v.prof" > /dev/null || { tail -5 "$OUT/bw.$v.prof"; continue; }
	med=$(sed -n 's/.*runs, median \([0-9.]*\) ms.*/\1/p' "$OUT/bw.$v.prof")
	printf '%-28s %10s  %s\n' "$([ $v = d2d ] && echo "copy command (one context)" || echo "through host (--host-copies)")" \
		"$med" "$(awk '/ copy / && $2 ~ /%/ { printf "%s %s %s %s %s; ", $1, $3, $6, $9, $10 " " $11 }' "$OUT/bw.$v.prof")"
done
if [ -n "$H100_BASE" ]; then
	"$S.base/build/bin/ir-run" $DEV --host-copies --profile --repeat "$REPEAT" --input x="$W/x.npy" \
		-o "$W/bw.base.npy" "$W/bw.ocl.ir" 2> "$OUT/bw.base.prof" > /dev/null &&
	printf '%-28s %10s  %s\n' "through host, baseline" \
		"$(sed -n 's/.*runs, median \([0-9.]*\) ms.*/\1/p' "$OUT/bw.base.prof")" \
		"$(awk '/ copy / && $2 ~ /%/ { printf "%s %s %s %s %s; ", $1, $3, $6, $9, $10 " " $11 }' "$OUT/bw.base.prof")"
	cmp -s "$W/bw.base.npy" "$W/bw.host.npy" && echo "baseline: the same bytes" || echo "baseline: DIFFER"
fi
cmp -s "$W/bw.d2d.npy" "$W/bw.host.npy" && echo "results: the same bytes" || echo "results: DIFFER"

# 2. a model split across the two GPUs
echo "== conv+relu on @g0, @g1, @g0 (1x32x56x56): --peer-copies, --host-copies and the interpreter"
cat > "$W/split.ir" <<'EOF'
device @g0 = gpu(0)
device @g1 = gpu(1)
fn @main(%x: f32[1,32,56,56] on @g0, %w1: f32[32,32,3,3] on @g0, %w2: f32[32,32,3,3] on @g1, %w3: f32[32,32,3,3] on @g0) -> f32[1,32,56,56] on @g0 {
  %c1: f32[1,32,56,56] on @g0 = nn.conv2d(%x, %w1) {padding=[1,1,1,1]}
  %r1: f32[1,32,56,56] on @g0 = nn.relu(%c1)
  %t1 = device_copy(%r1, @g0 -> @g1)
  %c2: f32[1,32,56,56] on @g1 = nn.conv2d(%t1, %w2) {padding=[1,1,1,1]}
  %r2: f32[1,32,56,56] on @g1 = nn.relu(%c2)
  %t2 = device_copy(%r2, @g1 -> @g0)
  %c3: f32[1,32,56,56] on @g0 = nn.conv2d(%t2, %w3) {padding=[1,1,1,1]}
  %r3: f32[1,32,56,56] on @g0 = nn.relu(%c3)
  return %r3
}
EOF
compile "$W/split.ir" "$W/split.ocl.ir"
"$PY" - "$W" <<'PY'
import sys
import numpy as np
r = np.random.default_rng(2)
np.save(sys.argv[1] + "/sx.npy", r.standard_normal((1, 32, 56, 56), dtype=np.float32))
for w in ("w1", "w2", "w3"):
    np.save(sys.argv[1] + "/s%s.npy" % w, (r.standard_normal((32, 32, 3, 3)) / 17).astype(np.float32))
PY
IN="--input x=$W/sx.npy --input w1=$W/sw1.npy --input w2=$W/sw2.npy --input w3=$W/sw3.npy"
"$B/ir-run" $DEV --peer-copies --profile --repeat "$REPEAT" $IN -o "$W/s.d2d.npy" "$W/split.ocl.ir" 2> "$OUT/split.d2d.prof" > /dev/null
"$B/ir-run" $DEV --host-copies --repeat "$REPEAT" $IN -o "$W/s.host.npy" "$W/split.ocl.ir" 2> "$OUT/split.host.prof" > /dev/null
"$B/ir-run" --interp $IN -o "$W/s.ref.npy" "$W/split.ocl.ir"
echo "median run: d2d $(sed -n 's/.*runs, median \([0-9.]*\) ms.*/\1/p' "$OUT/split.d2d.prof") ms, through host $(sed -n 's/.*runs, median \([0-9.]*\) ms.*/\1/p' "$OUT/split.host.prof") ms"
grep -E ' copy |busy' "$OUT/split.d2d.prof"
"$PY" - "$W" <<'PY'
import sys
import numpy as np
W = sys.argv[1]
a, b, c = (np.load(W + "/s.%s.npy" % v) for v in ("d2d", "host", "ref"))
print("d2d vs host: %s; d2d vs interpreter: max |diff| %.3g (max |ref| %.3g)"
      % ("the same bytes" if a.tobytes() == b.tobytes() else "DIFFER",
         float(np.abs(a - c).max()), float(np.abs(c).max())))
PY

# 3. overlap: a branch on each GPU
echo "== two branches of 6 conv+relu (1x64x112x112), one on each GPU: busy and overlapped (--host-copies)"
{
	echo "device @g0 = gpu(0)"
	echo "device @g1 = gpu(1)"
	echo "fn @main(%x: f32[1,64,112,112] on @g0, %w: f32[64,64,3,3] on @g0, %v: f32[64,64,3,3] on @g1) -> f32[1,64,112,112] on @g0 {"
	echo "  %y = device_copy(%x, @g0 -> @g1)"
	a=%x b=%y
	for i in 1 2 3 4 5 6; do
		echo "  %a$i: f32[1,64,112,112] on @g0 = nn.conv2d($a, %w) {padding=[1,1,1,1]}"
		echo "  %ar$i: f32[1,64,112,112] on @g0 = nn.relu(%a$i)"
		echo "  %b$i: f32[1,64,112,112] on @g1 = nn.conv2d($b, %v) {padding=[1,1,1,1]}"
		echo "  %br$i: f32[1,64,112,112] on @g1 = nn.relu(%b$i)"
		a=%ar$i b=%br$i
	done
	echo "  %z = device_copy($b, @g1 -> @g0)"
	echo "  %s: f32[1,64,112,112] on @g0 = add($a, %z)"
	echo "  return %s"
	echo "}"
} > "$W/two.ir"
compile "$W/two.ir" "$W/two.ocl.ir"
"$PY" - "$W" <<'PY'
import sys
import numpy as np
r = np.random.default_rng(3)
np.save(sys.argv[1] + "/tx.npy", r.standard_normal((1, 64, 112, 112), dtype=np.float32))
for w in ("tw", "tv"):
    np.save(sys.argv[1] + "/%s.npy" % w, (r.standard_normal((64, 64, 3, 3)) / 24).astype(np.float32))
PY
IN="--input x=$W/tx.npy --input w=$W/tw.npy --input v=$W/tv.npy"
for b in "$B" ${H100_BASE:+"$S.base/build/bin"}; do
	"$b/ir-run" $DEV --host-copies --profile --repeat "$REPEAT" $IN -o "$W/t.$([ "$b" = "$B" ] && echo new || echo base).npy" \
		"$W/two.ocl.ir" 2> "$OUT/two.prof" > /dev/null
	echo "$([ "$b" = "$B" ] && echo new || echo baseline): median run $(sed -n 's/.*runs, median \([0-9.]*\) ms.*/\1/p' "$OUT/two.prof") ms"
	grep -E 'busy|host per run' "$OUT/two.prof"
done
# (the interpreter takes minutes on these convolutions: new against the
# baseline's bytes instead; the split model above is checked against it)
[ -z "$H100_BASE" ] || { cmp -s "$W/t.new.npy" "$W/t.base.npy" && echo "two branches: the same bytes as the baseline" || echo "two branches: DIFFER from the baseline"; }
