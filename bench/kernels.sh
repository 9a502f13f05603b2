#!/bin/sh
# bench/kernels.sh (run by bench/run.sh, or alone): issue 28's slow
# kernels, timed by ir-run --profile on POCL with one worker thread
# (POCL_MAX_PTHREAD_COUNT=1, the host thread not pinned), each beside its
# baseline in the same run:
#   1. LayerNorm's power by 2 over [1,197,768] (a ViT's), fused with its
#      mean: the exponent a constant in a buffer, as ir-import-onnx writes
#      ONNX's Pow (a pow() per element), against the literal that
#      ir-fold-constants makes of it (a product).
#   2. nn.dense [1,197,768] x [768,768] (every MatMul of a transformer
#      that torch exports: a 3-d input) beside the same product as 2-d
#      [197,768], the weight an input and a constant that
#      ir-fold-constants packs; attention's nn.batch_matmul as
#      ir-import-onnx writes MatMul (transpose_b=false): q k^T
#      [12,197,64] x [12,64,197] and attention times v [12,197,197] x
#      [12,197,64].
#   3. mobilenet_v2's 1x1 convs 16 -> 96 at 112x112 and 24 -> 144 at
#      56x56 with bias and clip (NCHW, constant weights made HWIO by
#      ir-fold-constants).
# With BENCH_BASELINE_BIN=DIR, every case also runs through that build's
# tools (the code before a change), on the same inputs.
# Prints ms per run and GFLOP/s of the prims named; asserts nothing.
set -eu

BIN=${IRPIPE_BIN:-build/bin}
WORK=${BENCH_DIR:-build/bench}/kernels
REPS=${BENCH_KERNEL_RUNS:-10}
BASE=${BENCH_BASELINE_BIN:-}
mkdir -p "$WORK"
export POCL_MAX_PTHREAD_COUNT=1

# compile BIN IN OUT [fold]: the pipeline to OpenCL, after
# ir-fold-constants when asked
compile() {
	if [ "${4:-}" = fold ]; then
		"$1/ir-fold-constants" --data-dir "$WORK" "$2"
	else
		cat "$2"
	fi | "$1/ir-plan-devices" | "$1/ir-lower" | "$1/ir-plan-devices" | "$1/ir-flatten-texture" \
		| "$1/ir-codegen-ocl" > "$3"
}

# kernel BIN MODULE LABEL REGEX INPUT...: ms per run and GFLOP/s of the
# kernels whose name matches REGEX, over REPS runs
kernel() {
	b=$1 mod=$2 label=$3 re=$4
	shift 4
	ins=
	for i in "$@"; do ins="$ins --input $i"; done
	rm -rf "$WORK/out"  # (a tensor's file, or a tuple's folder)
	# shellcheck disable=SC2086
	if ! "$b/ir-run" --profile --repeat "$REPS" --data-dir "$WORK" $ins -o "$WORK/out" "$mod" \
		2> "$WORK/prof" > /dev/null; then
		printf '  %-66s failed: %s\n' "$label" "$(tail -1 "$WORK/prof")"
		return 0
	fi
	awk -v re="$re" -v n="$REPS" -v label="$label" '
		$NF ~ re && $NF ~ /^@/ { ms += $1; if ($5 != "-") fl += $5 * $3 }
		END { printf "  %-66s %9.3f ms %9.2f GFLOP/s\n", label, ms / n,
		             (ms > 0 ? fl / (ms * 1e6) : 0) }' "$WORK/prof"
}

# both LABEL MODULE REGEX [fold] INPUT...: kernel() with this build's
# tools and, with BENCH_BASELINE_BIN, the baseline's
both() {
	label=$1 in=$2 re=$3 fold=$4
	shift 4
	compile "$BIN" "$in" "$in.ocl" "$fold"
	kernel "$BIN" "$in.ocl" "$label" "$re" "$@"
	[ -n "$BASE" ] || return 0
	compile "$BASE" "$in" "$in.base.ocl" "$fold"
	kernel "$BASE" "$in.base.ocl" "$label (baseline build)" "$re" "$@"
}

echo "== issue 28's slow kernels on POCL, 1 thread (ir-run --profile, $REPS runs)"

# 1. LayerNorm's power
python3 bench/gen.py npy 1,197,768 "$WORK/x197.npy"
cat > "$WORK/ln.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[1,197,768]) -> f32[1,197,768] {
  %m = mean(%x) {axis=[2], keepdims=true}
  %d = subtract(%x, %m)
  %two = const f32[] 2.0
  %p = power(%d, %two)
  %v = mean(%p) {axis=[2], keepdims=true}
  %eps = const f32[] 1e-06
  %ve = add(%v, %eps)
  %s = sqrt(%ve)
  %y = divide(%d, %s)
  return %y
}
IR
echo "LayerNorm [1,197,768], the prim of its power by 2 and mean:"
both "exponent a constant in a buffer (as imported): pow()" "$WORK/ln.ir" power none x="$WORK/x197.npy"
both "after ir-fold-constants: power(%d, 2.0), a product" "$WORK/ln.ir" power fold x="$WORK/x197.npy"

# 2. dense of a 3-d input, batch_matmul without transposes
python3 bench/gen.py npy 197,768 "$WORK/x197_2d.npy"
python3 bench/gen.py npy 768,768 "$WORK/w768.npy"
python3 bench/gen.py npy 12,197,64 "$WORK/q.npy"
python3 bench/gen.py npy 12,64,197 "$WORK/kt.npy"
python3 bench/gen.py npy 12,197,197 "$WORK/att.npy"
for r in 3 2; do
	xs=1,197,768
	[ $r = 3 ] || xs=197,768
	printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[%s], %%w: f32[768,768]) -> f32[%s] {\n  %%d = nn.dense(%%x, %%w)\n  return %%d\n}\n' \
		$xs $xs > "$WORK/dense$r.ir"
	printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[%s]) -> f32[%s] {\n  %%w = const f32[768,768] file="w768.npy"\n  %%d = nn.dense(%%x, %%w)\n  return %%d\n}\n' \
		$xs $xs > "$WORK/densec$r.ir"
done
printf 'device @cpu = cpu(0)\nfn @main(%%q: f32[12,197,64], %%k: f32[12,64,197], %%v: f32[12,197,64], %%a: f32[12,197,197]) -> (f32[12,197,197], f32[12,197,64]) {\n  %%s = nn.batch_matmul(%%q, %%k) {transpose_b=false}\n  %%o = nn.batch_matmul(%%a, %%v) {transpose_b=false}\n  %%t = (%%s, %%o)\n  return %%t\n}\n' \
	> "$WORK/bmm.ir"
echo "nn.dense [1,197,768] x [768,768] (0.232 GFLOP):"
both "3-d input, weight an input" "$WORK/dense3.ir" dense none x="$WORK/x197.npy" w="$WORK/w768.npy"
both "2-d input [197,768], weight an input" "$WORK/dense2.ir" dense none x="$WORK/x197_2d.npy" w="$WORK/w768.npy"
both "3-d input, constant weight, ir-fold-constants" "$WORK/densec3.ir" dense fold x="$WORK/x197.npy"
both "2-d input, constant weight, ir-fold-constants" "$WORK/densec2.ir" dense fold x="$WORK/x197_2d.npy"
echo "nn.batch_matmul, transpose_b=false (as MatMul imports):"
both "q k^T [12,197,64] x [12,64,197]" "$WORK/bmm.ir" 'batch_matmul_k' none q="$WORK/q.npy" \
	k="$WORK/kt.npy" v="$WORK/q.npy" a="$WORK/att.npy"
both "attention v [12,197,197] x [12,197,64]" "$WORK/bmm.ir" 'batch_matmul_1_k' none q="$WORK/q.npy" \
	k="$WORK/kt.npy" v="$WORK/q.npy" a="$WORK/att.npy"

# 3. mobilenet_v2's 1x1 convs
python3 bench/gen.py npy 1,16,112,112 "$WORK/xc16.npy"
python3 bench/gen.py npy 1,24,56,56 "$WORK/xc24.npy"
for spec in "16 96 112" "24 144 56"; do
	set -- $spec
	python3 bench/gen.py npy $2,$1,1,1 "$WORK/wc$1.npy"
	python3 bench/gen.py npy $2 "$WORK/bc$1.npy"
	printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[1,%d,%d,%d]) -> f32[1,%d,%d,%d] {\n  %%w = const f32[%d,%d,1,1] file="wc%d.npy"\n  %%b = const f32[%d] file="bc%d.npy"\n  %%c = nn.conv2d(%%x, %%w) {kernel_size=[1, 1]}\n  %%a = nn.bias_add(%%c, %%b) {axis=1}\n  %%r = clip(%%a) {a_min=0.0, a_max=6.0}\n  return %%r\n}\n' \
		$1 $3 $3 $2 $3 $3 $2 $1 $1 $2 $1 > "$WORK/conv$1.ir"
done
echo "mobilenet_v2's 1x1 convs with bias and clip, after ir-fold-constants:"
both "16 -> 96 at 112x112 (38.5 MFLOP)" "$WORK/conv16.ir" conv2d fold x="$WORK/xc16.npy"
both "24 -> 144 at 56x56 (21.7 MFLOP)" "$WORK/conv24.ir" conv2d fold x="$WORK/xc24.npy"
