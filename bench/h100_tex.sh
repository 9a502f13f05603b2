#!/bin/sh
# bench/h100_tex.sh: textures against buffers on an NVIDIA H100 (its
# OpenCL platform "NVIDIA CUDA"): the packed conv2d tile and whole models.
# Results go to bench/h100.md by hand; nothing is asserted.
#
#   sh bench/h100_tex.sh prep DIR   here (python3-torch, torchvision, onnx):
#       DIR gets this checkout's sources (git archive HEAD) with the
#       generated parser and the OpenCL headers, so that the device
#       machine (no re2c, bison or torch there) builds the tools with its
#       own gcc; the conv tiles' modules (1x64 and 8x256 channels, 56x56,
#       3x3, packed), compiled also by BASE_BIN's ir-lower when set (the
#       baseline: the product before images); and torchvision's resnet18
#       and mobilenet_v2 at 1x3x224x224, imported by ir-import-onnx, with
#       their small constants and a manifest (shape, mean, std) of the
#       large ones, which the device regenerates at random (46 MB of
#       resnet18 weights would not travel).
#       With BASE_REV=<commit>, that commit's sources too (the baseline).
#   sh bench/h100_tex.sh run DIR    on the device, from the repository
#       root: builds (and the baseline's tools, when prep had BASE_REV),
#       then the PARTS named (default "tiles models check"):
#       1. each conv tile compiled for a gpu (buffers), a texture gpu
#          (images) and a texture gpu --no-tile (a texel per work item):
#          kernel time through bench/ocl_bench.c (median of RUNS), the
#          result from ir-run against float64 (bench/h100_ref.py);
#       2. each model compiled by ir-alter-layout | ir-fold-constants |
#          ir-plan-devices | ir-lower | ir-plan-devices |
#          ir-flatten-texture | ir-codegen-ocl for gpu(0) (NCHW buffers),
#          a texture gpu --no-texture (NCHW4c buffers) and a texture gpu
#          (NCHW4c images), and gpu(0) by the baseline's tools (base),
#          those of VARIANTS (default all): the kernels' time per run from `ir-run
#          --profile --repeat REP`, the run's median wall time (and
#          with --no-keep-constants: every run uploads the weights), and the
#          result against the NCHW one (same weights);
#       3. every tests/ir-lower and tests/ir-run module as gpu(N) and
#          texture gpu, ir-run --check on NVIDIA.
set -u
cmd=${1:-} P=${2:-}
[ -n "$P" ] || { echo "usage: h100_tex.sh prep|run DIR" >&2; exit 2; }
PY=${PY:-python3}
. "$(dirname "$0")/h100_common.sh"

if [ "$cmd" = prep ]; then
	set -e
	BIN=${IRPIPE_BIN:-$PWD/build/bin}
	PY=/usr/bin/python3
	rm -rf "$P"
	mkdir -p "$P/tile" "$P/models"
	h100_prep_sources "$P"
	for nc in "1 64" "8 256"; do
		set -- $nc
		name=conv${1}x${2}p c4=$(($2 / 4))
		body=$(printf 'fn @main(%%x: f32[%s,%s,56,56,4], %%w: f32[%s,%s,3,3,4]) -> f32[%s,%s,56,56,4] {\n  %%c = nn.conv2d(%%x, %%w) {padding=[1,1,1,1], data_layout="NCHW4c", kernel_layout="OIHW4o", out_layout="NCHW4c"}\n  return %%c\n}\n' $1 $c4 $c4 $2 $1 $c4)
		printf 'device @gpu = gpu(0)\n%s\n' "$body" > "$P/tile/$name.buf.ir"
		printf 'device @gpu = gpu(0) {texture=true, image2d_max=[32768,32768]}\n%s\n' "$body" > "$P/tile/$name.tex.ir"
		if [ -n "${BASE_BIN:-}" ]; then
			"$BIN/ir-plan-devices" "$P/tile/$name.buf.ir" | "$BASE_BIN/ir-lower" | "$BIN/ir-plan-devices" \
				| "$BIN/ir-flatten-texture" | "$BIN/ir-codegen-ocl" > "$P/tile/$name.oldbuf.ocl.ir"
		fi
		echo "$name $1 $c4 $2 $(awk -v n=$1 -v c=$2 'BEGIN { printf "%.4f", 2 * n * c * c * 9 * 56 * 56 / 1e9 }')" >> "$P/tile/cases"
	done
	for m in resnet18 mobilenet_v2; do
		D=$P/models/$m
		mkdir -p "$D/onnx"
		"$PY" tests/onnx/models.py export $m 224 "$D/onnx" 2>/dev/null
		cp "$D/onnx/x.npy" "$D/"
		h100_import "$BIN" "$D" $m
	done
	du -sh "$P"
	exit 0
fi
[ "$cmd" = run ] || { echo "usage: h100_tex.sh prep|run DIR" >&2; exit 2; }

P=$(cd "$P" && pwd)
S=${SRC_DIR:-/tmp/h100_tex_src}
W=${BENCH_DIR:-/tmp/h100_tex}
RUNS=${RUNS:-30}
REP=${REP:-20}
PARTS=${PARTS:-tiles models check}
VARIANTS=${VARIANTS:-nchw buf4c tex}
OUT=${OUT:-$W}
mkdir -p "$W" "$S" "$OUT"
date -u +'date: %Y-%m-%d %H:%M UTC'
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
h100_build "$P" "$S" "$OUT" build/bench/bin/ocl_bench || exit 1
cd "$S" || exit 1
[ -z "$H100_BASE" ] || case " $VARIANTS " in *" base "*) ;; *) VARIANTS="$VARIANTS base" ;; esac
export PATH=$S/build/bin:$PATH
NV="--device=@gpu=NVIDIA"
comp() { ir-plan-devices "$1" | ir-lower ${3:-} | ir-plan-devices | ir-flatten-texture | ir-codegen-ocl > "$2"; }

case " $PARTS " in *" tiles "*)
echo "== conv tiles (kernel min/median/max of $RUNS, ms then GFLOP/s)"
while read name n c4 c gf; do
	"$PY" -c "import numpy as np; r = np.random.default_rng(1)
np.save('$W/x.npy', r.standard_normal(($n,$c4,56,56,4), dtype=np.float32))
np.save('$W/w.npy', r.standard_normal(($c4,$c,3,3,4), dtype=np.float32))"
	comp "$P/tile/$name.buf.ir" "$W/$name.buf.ocl.ir"
	comp "$P/tile/$name.tex.ir" "$W/$name.tex.ocl.ir"
	comp "$P/tile/$name.tex.ir" "$W/$name.texnotile.ocl.ir" --no-tile
	vs="buf tex texnotile"
	if [ -f "$P/tile/$name.oldbuf.ocl.ir" ]; then
		cp "$P/tile/$name.oldbuf.ocl.ir" "$W/"
		vs="oldbuf $vs"
	fi
	for v in $vs; do
		kt=$(OCL_BENCH_PLATFORM=NVIDIA build/bench/bin/ocl_bench "$W/$name.$v.ocl.ir" nn_conv2d "$RUNS" "$gf" 2> /dev/null)
		ir-run $NV --input x="$W/x.npy" --input w="$W/w.npy" -o "$W/$name.$v.npy" "$W/$name.$v.ocl.ir"
		echo "TILE $name $v | $kt | $("$PY" bench/h100_ref.py "$W/x.npy" "$W/w.npy" "$W/$name.$v.npy")"
	done
done < "$P/tile/cases"
;; esac

case " $PARTS " in *" models "*)
echo "== models (ir-run --profile --repeat $REP: kernel time per run)"
for m in resnet18 mobilenet_v2; do
	D=$W/$m
	mkdir -p "$D"
	cp "$P/models/$m"/* "$D/"
	h100_regen "$D"
	for v in $VARIANTS; do
		T=
		case $v in
		nchw) dev='gpu(0)' l= ;;
		base) dev='gpu(0)' l= T=$S.base/build/bin/ ;;
		buf4c) dev='gpu(0) {texture=true}' l=--no-texture ;;
		tex) dev='gpu(0) {texture=true}' l= ;;
		esac
		sed "s/^device @gpu = .*/device @gpu = $dev/" "$D/m.ir" > "$D/$v.src.ir"
		${T}ir-alter-layout "$D/$v.src.ir" | ${T}ir-fold-constants --data-dir="$D" | ${T}ir-plan-devices \
			| ${T}ir-lower $l | ${T}ir-plan-devices | ${T}ir-flatten-texture | ${T}ir-codegen-ocl > "$D/$v.ocl.ir"
		ir-run $NV --profile --repeat "$REP" --data-dir "$D" --input x="$D/x.npy" -o "$D/$v.npy" \
			"$D/$v.ocl.ir" 2> "$OUT/$m.$v.prof"
		k=$(sed -n 's/.*(kernels \([0-9.]*\),.*/\1/p' "$OUT/$m.$v.prof")
		med=$(sed -n 's/.*runs, median \([0-9.]*\) ms.*/\1/p' "$OUT/$m.$v.prof")
		fresh=$(ir-run $NV --no-keep-constants --repeat "$REP" --data-dir "$D" --input x="$D/x.npy" \
			-o "$D/$v.fresh.npy" "$D/$v.ocl.ir" 2>&1 > /dev/null | sed -n 's/.*runs, median \([0-9.]*\) ms.*/\1/p')
		e=$([ -f "$D/nchw.npy" ] && "$PY" -c "import numpy as np; a, b = np.load('$D/$v.npy').astype(float), np.load('$D/nchw.npy').astype(float)
print('%.1e' % (np.abs(a - b).max() / np.abs(b).max()))")
		c=$(grep '^prim @[^(]*conv2d' "$D/$v.ocl.ir")
		echo "MODEL $m $v kernel_ms_per_run=$(awk -v k="${k:-0}" -v r="$REP" 'BEGIN { printf "%.3f", k / r }')" \
			"run_median_ms=$med no_keep_constants_median_ms=$fresh relerr_vs_nchw=$e convs=$(echo "$c" | wc -l)" \
			"weight_images=$(echo "$c" | grep -c texture:weight) gemms=$(grep -c 'alloc %as' "$D/$v.ocl.ir")"
	done
done
;; esac

case " $PARTS " in *" check "*)
echo "== every tests/ir-lower and tests/ir-run module as gpu(N) and texture gpu, ir-run --check on NVIDIA"
pass=0 failed=
for f in tests/ir-lower/*.ir tests/ir-run/*.ir; do
	for tex in '' ' {texture=true}'; do
		sed -E "s/= (cpu|gpu)\(([0-9]+)\)( \{[^}]*\})?/= gpu(\2)$tex/" "$f" > "$W/t.ir"
		comp "$W/t.ir" "$W/t.ocl.ir" 2> /dev/null || continue
		mkdir -p "$W/t.in"
		args=$("$PY" tests/ir-run-ocl/npyio.py inputs "$W/t.ir" "$W/t.in")
		if ir-run --check $args "$W/t.ocl.ir" > /dev/null 2> "$W/t.err"; then
			pass=$((pass + 1))
		else
			failed="$failed $f${tex:+(texture)}"
			head -3 "$W/t.err"
		fi
	done
done
echo "RESULT --check on NVIDIA: $pass passed; failed:${failed:- none}"
;; esac
