#!/bin/sh
# bench/h100.sh: generated code on an NVIDIA H100 (its OpenCL platform)
# against cuBLAS / cuDNN through torch, and a model split between POCL's
# cpu and the GPU in one ir-run.  Runs on the device machine from the
# repository root with build/ made (make all build/bench/bin/ocl_bench);
# results go to bench/h100.md by hand.  Nothing is asserted.
#
#   1. dense 4096^3, conv2d 1x64x56x56 and 8x256x56x56 (3x3, pad 1), each
#      compiled two ways: the default schedule and --no-tile (one element
#      per work item); the conv2d also packed (NCHW4c, OIHW4o), on a gpu
#      (buffers) and a texture gpu (images).  The main prim's kernels timed alone through the OpenCL API
#      (bench/ocl_bench.c, median of RUNS calls), and @main through
#      `ir-run --device @gpu=NVIDIA --repeat` (each run whole: .npy inputs
#      read, uploaded, results read back); the output checked against
#      torch in float64.
#   2. the baselines: torch fp32 with TF32 off (bench/h100_torch.py).
#   3. heterogeneous: conv2d on @gpu (NVIDIA), relu on @cpu (POCL), twice,
#      in one ir-run; compared with ir-run --interp.
#   4. every tests/ir-lower and tests/ir-run module retargeted to a gpu and
#      a texture gpu, run on NVIDIA with --check (the interpreter's result
#      for every prim).
set -u
BIN=${IRPIPE_BIN:-$PWD/build/bin}
OB=${OCL_BENCH:-$PWD/build/bench/bin/ocl_bench}
W=${BENCH_DIR:-/tmp/h100}
RUNS=${RUNS:-20}
PY=${PY:-python3}
NV=${NV:-NVIDIA}
export PATH=$BIN:$PATH
mkdir -p "$W"
date -u +'date: %Y-%m-%d %H:%M UTC'
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
[ -f COMMIT ] && echo "commit: $(cat COMMIT)"

npy() { # FILE DIMS...: random normal float32
	f=$1
	shift
	"$PY" -c "import sys, numpy as np; np.save(sys.argv[1], np.random.default_rng(1).standard_normal(tuple(int(a) for a in sys.argv[2:]), dtype=np.float32))" "$f" "$@"
}

compile() { # IN OUT [ir-lower options]
	in=$1 out=$2
	shift 2
	ir-plan-devices "$in" | ir-lower "$@" | ir-plan-devices | ir-flatten-texture | ir-codegen-ocl > "$out"
}

# one model: NAME KIND GFLOP VARIANTS; @main in $W/NAME.body, inputs x and
# w in $W/NAME.[xw].npy.  Variants: tile (the default schedule), notile
# (--no-tile), tex (a gpu with texture=true: packed tensors in images
# where the schedule keeps them there), texnotile (both).
bench_model() {
	name=$1 kind=$2 gflop=$3 variants=$4
	for v in $variants; do
		f=$W/$name.$v
		case $v in
		tex*) printf 'device @gpu = gpu(0) {texture=true, image2d_max=[32768,32768]}\n' > "$f.ir" ;;
		*) printf 'device @gpu = gpu(0)\n' > "$f.ir" ;;
		esac
		cat "$W/$name.body" >> "$f.ir"
		opt=
		case $v in *notile) opt=--no-tile ;; esac
		compile "$f.ir" "$f.ocl.ir" $opt || { echo "RESULT $name $v: does not compile"; continue; }
		prim=$(sed -n 's/^prim @\([A-Za-z0-9_.]*\(conv2d\|dense\)[A-Za-z0-9_.]*\)(.*/\1/p' "$f.ocl.ir" | head -1)
		kt=$(OCL_BENCH_PLATFORM=$NV "$OB" "$f.ocl.ir" "$prim" "$RUNS" "$gflop" 2> "$f.kern" |
			awk '{ printf "%s %s", $3, $6 }')
		cat "$f.kern"
		rep=$(ir-run --device @gpu=$NV --repeat 5 --input x="$W/$name.x.npy" --input w="$W/$name.w.npy" \
			-o "$f.out.npy" "$f.ocl.ir" 2>&1 | tail -1)
		e=$("$PY" bench/h100_torch.py err "$kind" "$f.out.npy" "$W/$name.x.npy" "$W/$name.w.npy" 2>&1 | tail -1)
		echo "RESULT $name $v prim=@$prim kernel_ms,GFLOP/s=${kt:-failed} | $rep | $e"
	done
}

echo "== baselines (torch fp32, TF32 off)"
"$PY" bench/h100_torch.py time 2>&1

echo "== generated code (NVIDIA OpenCL)"
printf 'fn @main(%%x: f32[4096,4096], %%w: f32[4096,4096]) -> f32[4096,4096] {\n  %%d = nn.dense(%%x, %%w)\n  return %%d\n}\n' > "$W/dense4096.body"
npy "$W/dense4096.x.npy" 4096 4096
npy "$W/dense4096.w.npy" 4096 4096
bench_model dense4096 dense 137.439 "tile notile"
for nc in "1 64" "8 256"; do
	set -- $nc
	name=conv${1}x$2
	printf 'fn @main(%%x: f32[%s,%s,56,56], %%w: f32[%s,%s,3,3]) -> f32[%s,%s,56,56] {\n  %%c = nn.conv2d(%%x, %%w) {padding=[1,1,1,1]}\n  return %%c\n}\n' \
		$1 $2 $2 $2 $1 $2 > "$W/$name.body"
	npy "$W/$name.x.npy" $1 $2 56 56
	npy "$W/$name.w.npy" $2 $2 3 3
	gf=$(awk -v n=$1 -v c=$2 'BEGIN { printf "%.4f", 2 * n * c * c * 9 * 56 * 56 / 1e9 }')
	bench_model $name conv "$gf" "tile notile"
	# packed (NCHW4c / OIHW4o): in images on a texture gpu, else in buffers
	c4=$(($2 / 4))
	printf 'fn @main(%%x: f32[%s,%s,56,56,4], %%w: f32[%s,%s,3,3,4]) -> f32[%s,%s,56,56,4] {\n  %%c = nn.conv2d(%%x, %%w) {padding=[1,1,1,1], data_layout="NCHW4c", kernel_layout="OIHW4o", out_layout="NCHW4c"}\n  return %%c\n}\n' \
		$1 $c4 $c4 $2 $1 $c4 > "$W/${name}p.body"
	npy "$W/${name}p.x.npy" $1 $c4 56 56 4
	npy "$W/${name}p.w.npy" $c4 $2 3 3 4
	bench_model ${name}p conv4c "$gf" "tile tex notile texnotile"
done

echo "== heterogeneous: conv2d on @gpu ($NV), relu on @cpu (POCL), twice"
cat > "$W/hetero.ir" <<'IR'
device @cpu = cpu(0)
device @gpu = gpu(0)
host @cpu
fn @main(%x: f32[1,32,32,32], %w: f32[32,32,3,3], %w2: f32[32,32,3,3]) -> f32[1,32,32,32] {
  %a: f32[1,32,32,32] on @gpu = nn.conv2d(%x, %w) {padding=[1,1,1,1]}
  %b: f32[1,32,32,32] on @cpu = nn.relu(%a)
  %c: f32[1,32,32,32] on @gpu = nn.conv2d(%b, %w2) {padding=[1,1,1,1]}
  %d: f32[1,32,32,32] on @cpu = nn.relu(%c)
  return %d
}
IR
compile "$W/hetero.ir" "$W/hetero.ocl.ir"
args=$("$PY" tests/ir-run-ocl/npyio.py inputs "$W/hetero.ir" "$W")
echo "ir-run --device @gpu=$NV --device @cpu='Portable Computing Language' $args -o hetero.npy hetero.ocl.ir"
ir-run --device @gpu=$NV --device "@cpu=Portable Computing Language" $args -o "$W/hetero.npy" \
	"$W/hetero.ocl.ir"
echo "rc $?"
ir-run --interp $args -o "$W/hetero.ref.npy" "$W/hetero.ocl.ir"
if "$PY" tests/ir-run-ocl/npyio.py same "$W/hetero.npy" "$W/hetero.ref.npy"; then
	echo "RESULT hetero: matches ir-run --interp"
else
	echo "RESULT hetero: DIFFERS from ir-run --interp"
fi
ir-run --check --device @gpu=$NV --device "@cpu=Portable Computing Language" $args "$W/hetero.ocl.ir" > /dev/null &&
	echo "RESULT hetero --check: every prim matches the interpreter"

echo "== every lowering test module and model as gpu(N) (the H100 for N = 0) and texture gpu, with --check"
pass=0 failed=
for f in tests/ir-lower/*.ir tests/ir-run/*.ir; do
	for to in 'gpu(\2)' 'gpu(\2) {texture=true}'; do
		sed -E "s/= (cpu|gpu)\(([0-9]+)\)( \{[^}]*\})?/= $to/" "$f" > "$W/t.ir"
		compile "$W/t.ir" "$W/t.ocl.ir" 2> /dev/null || continue
		mkdir -p "$W/t.in"
		args=$("$PY" tests/ir-run-ocl/npyio.py inputs "$W/t.ir" "$W/t.in")
		if ir-run --check $args "$W/t.ocl.ir" > /dev/null 2> "$W/t.err"; then
			pass=$((pass + 1))
		else
			failed="$failed $f($to)"
			head -3 "$W/t.err"
		fi
	done
done
echo "RESULT --check on $NV: $pass passed; failed:${failed:- none}"
