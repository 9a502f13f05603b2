#!/bin/sh
# make bench: speed and memory, printed as numbers and ratios against a
# baseline run side by side in the same run.  Nothing here is asserted.
#
#   1. ir-parse round trip (parse, verify, print) on 10k/100k/1M bindings,
#      beside mlir-opt parsing and printing the same program in the arith
#      dialect (Debian's mlir-15-tools).
#   2. ir-plan-devices on annotated chains and random DAGs, beside ir-parse
#      alone on the same inputs; and with --minimize-copies (CPU time and
#      bytes copied beside plain planning's, and beside BENCH_BASELINE_BIN's
#      when given: bench/minimize.sh).
#   3. ir-lower on residual networks of 1k-100k operators, beside ir-parse;
#      ir-flatten-texture on prims of 10k-100k texel statements, likewise.
#   4. the reference interpreter on conv2d and dense: the lowered prims
#      (register-tiled, and with --no-tile) beside the direct kernels.
#   5. ir-codegen-ocl's kernels for dense 512^3 and conv2d 64->64 56x56 3x3,
#      timed on POCL through the OpenCL API (bench/ocl_bench.c); then,
#      paired round by round (bench/vs_ref.py), the conv2d against torch,
#      dense 1024^3 against numpy.dot on OpenBLAS, an elementwise chain
#      against a float4 buffer copy, the packed conv2d with textures and
#      buffers.
#   5b. issue 28's slow kernels on POCL, 1 thread: LayerNorm's power by a
#      constant exponent, against the literal ir-fold-constants makes of
#      it; a transformer's dense of a 3-d input beside the same 2-d
#      product; attention's batch_matmuls (bench/kernels.sh).
#   6. ir-plan-memory on resnet- and mobilenet-like graphs (planned bytes
#      against the lower bound and greedy_by_size) and on chains to 100k.
#   6b. ir-run's start-up: a second run with the program binary cache,
#      POCL's kernel cache, both or neither (bench/startup.sh).
#   6c. ir-run on OpenCL: device memory planned vs unplanned, time per run
#      asynchronous vs --sync (bench/runtime.sh).
#   7. ir-alter-layout's speed, and resnet18- and mobilenet_v2-like models
#      on OpenCL in NCHW buffers, NCHW4c buffers and NCHW4c textures
#      (bench/alter.sh).
#   7b. torchvision's resnet18 and mobilenet_v2 (1x3x224x224, from ONNX)
#      on OpenCL for a buffer gpu (NCHW), a texture gpu lowered
#      --no-texture (NCHW4c buffers) and a texture gpu (images): kernel
#      time per run side by side (bench/models_tex.sh).
#   7c. torchvision's resnet18, mobilenet_v2, squeezenet1_1,
#      efficientnet_b0, densenet121 and googlenet (224x224) on the cpu, one
#      thread: ir-run on POCL in NCHW and NCHW4c beside torch and ONNX
#      Runtime, interleaved rounds (bench/models_cpu.sh).
#   7c'. vit_b_16 and torch.nn.TransformerEncoder (d_model 512, sequence
#      128, 4 layers, batch 1 and 8, both GELU forms) on the cpu, one
#      thread: ir-run on POCL beside torch, CPU time per inference,
#      interleaved rounds (bench/transformer_cpu.sh).
#   7d. the depthwise conv2d layers of mobilenet_v2 and efficientnet_b0 on
#      the cpu, one thread, in NCHW and NCHW4c: the tile of
#      lib/lower/lower_tile_dw.c against the element-per-item schedule
#      (--no-tile), CPU time per run (bench/depthwise.sh).
#   8. with BENCH_BASELINE_BIN=DIR, the same inputs through another build's
#      tools, side by side (a change that should make nothing slower).
#   8. resnet18 at 1x3x224x224 from ONNX: import and compile time, and
#      inference on POCL beside torch (bench/onnx.sh).
#   8b. ir-import-onnx's peak memory on vgg11 (507 MiB of weights), from
#      the file and from a pipe, beside BENCH_BASELINE_BIN's when given
#      (bench/onnx_memory.sh).
#   "1 thread" everywhere is POCL_MAX_PTHREAD_COUNT=1 (and one thread for
#   torch and OpenBLAS), nothing pinned with taskset or sched_setaffinity:
#   ir-run's host thread and POCL's worker thread are two threads where
#   torch and ONNX Runtime compute on their caller's, so pinning both to
#   one core charged irpipe alone for the switches between them
#   (efficientnet_b0: 269 ms pinned, 96 ms not; issue 28, item 5).
set -eu

BIN=${IRPIPE_BIN:-build/bin}
WORK=${BENCH_DIR:-build/bench}
SIZES=${BENCH_SIZES:-"10000 100000 1000000"}
RUNS=${BENCH_RUNS:-3}
VS_ROUNDS=${BENCH_VS_ROUNDS:-5}
VS_RUNS=${BENCH_VS_RUNS:-11}
mkdir -p "$WORK"

MLIR_OPT=$(command -v mlir-opt-15 || command -v mlir-opt || true)
if [ -z "$MLIR_OPT" ] && [ ! -x /usr/lib/llvm-15/bin/mlir-opt ] && [ "$(id -u)" = 0 ]; then
	echo "installing Debian's mlir-15-tools for the mlir-opt baseline"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mlir-15-tools > /dev/null 2>&1 ||
		echo "(could not install mlir-15-tools)"
fi
[ -n "$MLIR_OPT" ] || [ ! -x /usr/lib/llvm-15/bin/mlir-opt ] || MLIR_OPT=/usr/lib/llvm-15/bin/mlir-opt

# median of RUNS runs of a command: prints "seconds peak-KiB" (wall time
# from date's nanoseconds: GNU time's %e has only 10 ms)
measure() {
	i=0
	: > "$WORK/times"
	while [ $i -lt "$RUNS" ]; do
		t0=$(date +%s%N)
		/usr/bin/time -f '%M' -o "$WORK/t1" "$@" > /dev/null
		t1=$(date +%s%N)
		echo "$(( (t1 - t0) / 1000 )) $(cat "$WORK/t1")" >> "$WORK/times"
		i=$((i + 1))
	done
	sort -n "$WORK/times" | awk -v r="$RUNS" 'NR == int((r + 1) / 2) { printf "%.4f %d\n", $1 / 1e6, $2 }'
}

baseline_kb() {
	printf 'device @cpu = cpu(0)\n' > "$WORK/empty.ir"
	measure "$@" "$WORK/empty.ir" | awk '{ print $2 }'
}

echo "== ir-parse round trip vs mlir-opt (median of $RUNS; RSS above an empty input)"
base=$(baseline_kb "$BIN/ir-parse")
if [ -n "$MLIR_OPT" ]; then
	printf 'func.func @e() {\n  return\n}\n' > "$WORK/empty.mlir"
	mbase=$(measure "$MLIR_OPT" "$WORK/empty.mlir" | awk '{ print $2 }')
else
	echo "(mlir-opt not found: install mlir-15-tools for the side-by-side column)"
fi
printf '%9s %8s %8s %10s %9s %9s %9s %9s\n' bindings "MB" "ir s" "Mbind/s" "MB/s" "B/bind" "mlir s" "speedup"
for n in $SIZES; do
	python3 bench/gen.py ir "$n" > "$WORK/p$n.ir"
	set -- $(measure "$BIN/ir-parse" "$WORK/p$n.ir" -o "$WORK/p$n.out")
	t=$1 kb=$2
	mb=$(awk -v b="$(wc -c < "$WORK/p$n.ir")" 'BEGIN { printf "%.1f", b / 1e6 }')
	mt=- ratio=-
	if [ -n "$MLIR_OPT" ]; then
		python3 bench/gen.py mlir "$n" > "$WORK/p$n.mlir"
		set -- $(measure "$MLIR_OPT" "$WORK/p$n.mlir" -o "$WORK/p$n.out.mlir")
		mt=$1
		mbpo=$(awk -v k="$2" -v b="$mbase" -v n="$n" 'BEGIN { printf "%.0f", (k - b) * 1024 / n }')
		ratio=$(awk -v a="$t" -v b="$mt" 'BEGIN { printf "%.2fx", (a > 0 ? b / a : 0) }')
		mt="$mt (${mbpo}B/op)"
	fi
	awk -v n="$n" -v mb="$mb" -v t="$t" -v kb="$kb" -v base="$base" -v mt="$mt" -v r="$ratio" 'BEGIN {
		printf "%9d %8s %8.3f %10.2f %9.1f %9.0f %9s %9s\n", n, mb, t, (t > 0 ? n / t / 1e6 : 0),
		       (t > 0 ? mb / t : 0), (kb - base) * 1024 / n, mt, r }'
done
echo "target: a 1M-binding round trip in at most 1.0 s (3x mlir-opt) and at most 150 B/binding"

echo
echo "== ir-plan-devices vs ir-parse on the same input (median of $RUNS)"
printf '%6s %9s %9s %9s %8s %10s %10s\n' shape bindings "parse s" "plan s" ratio "parse KiB" "plan KiB"
for shape in chain dag; do
	for n in $SIZES; do
		python3 bench/gen.py "$shape" "$n" > "$WORK/$shape$n.ir"
		set -- $(measure "$BIN/ir-parse" "$WORK/$shape$n.ir")
		pt=$1 pk=$2
		set -- $(measure "$BIN/ir-plan-devices" "$WORK/$shape$n.ir")
		awk -v s="$shape" -v n="$n" -v pt="$pt" -v pk="$pk" -v t="$1" -v k="$2" 'BEGIN {
			printf "%6s %9d %9.3f %9.3f %7.2fx %10d %10d\n", s, n, pt, t, (pt > 0 ? t / pt : 0), pk, k }'
	done
done
echo "target: planning at most 1.5x the time of parsing, growing linearly"

echo
IRPIPE_BIN=$BIN BENCH_DIR=$WORK BENCH_SIZES=$SIZES BENCH_RUNS=$RUNS sh bench/minimize.sh

echo
echo "== ir-lower vs ir-parse on the same input (median of $RUNS)"
printf '%9s %9s %9s %8s %10s %10s\n' operators "parse s" "lower s" ratio "parse KiB" "lower KiB"
for n in ${BENCH_LOWER_SIZES:-1000 10000 100000}; do
	python3 bench/gen.py net "$n" > "$WORK/net$n.ir"
	set -- $(measure "$BIN/ir-parse" "$WORK/net$n.ir")
	pt=$1 pk=$2
	set -- $(measure "$BIN/ir-lower" "$WORK/net$n.ir")
	awk -v n="$n" -v pt="$pt" -v pk="$pk" -v t="$1" -v k="$2" 'BEGIN {
		printf "%9d %9.3f %9.3f %7.2fx %10d %10d\n", n, pt, t, (pt > 0 ? t / pt : 0), pk, k }'
done
echo "(identical blocks share one prim, found by a key made from the group before building it)"

echo
echo "== ir-flatten-texture vs ir-parse on the same input (median of $RUNS)"
printf '%10s %9s %9s %8s %10s %10s\n' statements "parse s" "flatten s" ratio "parse KiB" "flat KiB"
for n in ${BENCH_FLATTEN_SIZES:-10000 100000}; do
	python3 bench/gen.py tex "$n" > "$WORK/tex$n.ir"
	set -- $(measure "$BIN/ir-parse" "$WORK/tex$n.ir")
	pt=$1 pk=$2
	set -- $(measure "$BIN/ir-flatten-texture" "$WORK/tex$n.ir")
	awk -v n="$n" -v pt="$pt" -v pk="$pk" -v t="$1" -v k="$2" 'BEGIN {
		printf "%10d %9.3f %9.3f %7.2fx %10d %10d\n", n, pt, t, (pt > 0 ? t / pt : 0), pk, k }'
done
echo "(each statement has 2 to 4 texel accesses; the output is longer than the input)"

echo
echo "== reference interpreter: lowered prims vs the direct kernels (median of $RUNS)"
printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[1,16,32,32], %%w: f32[16,16,3,3], %%b: f32[16]) -> f32[1,16,32,32] {\n  %%c = nn.conv2d(%%x, %%w) {padding=[1,1,1,1]}\n  %%d = nn.bias_add(%%c, %%b)\n  %%r = nn.relu(%%d)\n  return %%r\n}\n' > "$WORK/conv.ir"
printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[64,256], %%w: f32[256,256]) -> f32[64,256] {\n  %%d = nn.dense(%%x, %%w)\n  return %%d\n}\n' > "$WORK/dense.ir"
python3 bench/gen.py npy 1,16,32,32 "$WORK/x_conv.npy"
python3 bench/gen.py npy 16,16,3,3 "$WORK/w_conv.npy"
python3 bench/gen.py npy 16 "$WORK/b_conv.npy"
python3 bench/gen.py npy 64,256 "$WORK/x_dense.npy"
python3 bench/gen.py npy 256,256 "$WORK/w_dense.npy"
printf '%6s %6s %9s %9s %8s %10s %8s\n' op MMAC "direct s" "tiled s" ratio "no-tile s" ratio
for op in conv dense; do
	if [ $op = conv ]; then
		set -- --input "x=$WORK/x_conv.npy" --input "w=$WORK/w_conv.npy" --input "b=$WORK/b_conv.npy"
		mmac=2.36
	else
		set -- --input "x=$WORK/x_dense.npy" --input "w=$WORK/w_dense.npy"
		mmac=4.19
	fi
	"$BIN/ir-lower" "$WORK/$op.ir" -o "$WORK/$op.tiled.ir"
	"$BIN/ir-lower" --no-tile "$WORK/$op.ir" -o "$WORK/$op.naive.ir"
	d=$(measure "$BIN/ir-run" --interp "$@" -o "$WORK/$op.out.npy" "$WORK/$op.ir" | awk '{ print $1 }')
	t=$(measure "$BIN/ir-run" --interp "$@" -o "$WORK/$op.out.npy" "$WORK/$op.tiled.ir" | awk '{ print $1 }')
	nt=$(measure "$BIN/ir-run" --interp "$@" -o "$WORK/$op.out.npy" "$WORK/$op.naive.ir" | awk '{ print $1 }')
	awk -v o="$op" -v m="$mmac" -v d="$d" -v t="$t" -v nt="$nt" 'BEGIN {
		printf "%6s %6s %9.3f %9.3f %7.1fx %10.3f %7.1fx\n", o, m, d, t, (d > 0 ? t / d : 0), nt,
		       (d > 0 ? nt / d : 0) }'
done
echo "(ratios: time over the direct kernels'; the loop-level interpreter checks every"
echo " index and rounds every operation: an oracle for ir-lower, not a runtime)"

echo
echo "== generated OpenCL C on POCL: ir-codegen-ocl's kernels timed through the OpenCL API"
echo "   (bench/ocl_bench.c; ms and GFLOP/s of one call of the prim, $RUNS runs after a warm-up)"
OCL_BENCH=${OCL_BENCH:-$(dirname "$BIN")/bench/bin/ocl_bench}
printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[512,512], %%w: f32[512,512]) -> f32[512,512] {\n  %%d = nn.dense(%%x, %%w)\n  return %%d\n}\n' > "$WORK/dense512.ir"
printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[1,64,56,56], %%w: f32[64,64,3,3]) -> f32[1,64,56,56] {\n  %%c = nn.conv2d(%%x, %%w) {padding=[1,1,1,1]}\n  return %%c\n}\n' > "$WORK/conv56.ir"
printf '%-9s %9s %9s %9s %9s %9s %9s\n' prim "min ms" "med ms" "max ms" "GF/s lo" "GF/s med" "GF/s hi"
for spec in "dense512 nn_dense 0.268435456" "conv56 nn_conv2d 0.231211008"; do
	set -- $spec
	"$BIN/ir-plan-devices" "$WORK/$1.ir" | "$BIN/ir-lower" | "$BIN/ir-plan-devices" \
		| "$BIN/ir-codegen-ocl" > "$WORK/$1.ocl.ir"
	"$OCL_BENCH" "$WORK/$1.ocl.ir" "$2" "$RUNS" "$3" 2> /dev/null || echo "$2: ocl_bench failed"
done
echo "(the hand translations of the lowering issue on POCL: dense 512^3 250-270 GFLOP/s, the"
echo " conv2d prim 137-141; on a cpu dense broadcasts x over 16 columns of the weight, transposed"
echo " into panels of 32 columns by kernel 0, as the hand translation did)"
echo "dense 512^3 and perf.md's hand-written gemm_blk (bench/gemm_blk.cl, no transpose),"
echo "alternating call by call, 2 threads then 1 thread; ratio = gemm_blk's time / ours:"
for thr in 2 1; do
	POCL_MAX_PTHREAD_COUNT=$thr "$OCL_BENCH" "--vs-cl=bench/gemm_blk.cl,gemm_blk,16,64,4,4,-DM=512 -DN=512 -DK=512 -DRM=8" \
		"$WORK/dense512.ocl.ir" nn_dense "$VS_RUNS" 0.268435456 2> /dev/null || echo "(ocl-bench failed)"
done

echo
echo "== generated code on POCL against what a user would pick instead (issue 12's goals)"
echo "   (bench/vs_ref.py: the reference and ours take turns in $VS_ROUNDS rounds of $VS_RUNS calls;"
echo "   ratio = reference time / ours, per round, median [range]; same thread count on both sides;"
echo "   'kernels': ocl-bench, the prim's kernels on device buffers; 'whole @main': ir-run --repeat,"
echo "   inputs read from .npy and results read back included)"
VS="/usr/bin/python3 bench/vs_ref.py"
OB=$OCL_BENCH
printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[1024,1024], %%w: f32[1024,1024]) -> f32[1024,1024] {\n  %%d = nn.dense(%%x, %%w)\n  return %%d\n}\n' > "$WORK/dense1024.ir"
python3 bench/gen.py npy 1,64,56,56 "$WORK/x56.npy"
python3 bench/gen.py npy 64,64,3,3 "$WORK/w56.npy"
python3 bench/gen.py npy 1024,1024 "$WORK/x1024.npy"
python3 bench/gen.py npy 1024,1024 "$WORK/w1024.npy"
for m in dense1024 conv56; do
	"$BIN/ir-plan-devices" "$WORK/$m.ir" | "$BIN/ir-lower" | "$BIN/ir-plan-devices" \
		| "$BIN/ir-codegen-ocl" > "$WORK/$m.ocl.ir"
done
for thr in 2 1; do
	echo "conv2d 1x64x56x56, 64 filters 3x3, pad 1 (goal 0.8x torch, floor 0.5x):"
	$VS conv $thr "$VS_ROUNDS" "$VS_RUNS" 0.231211008 \
		"kernels (ocl-bench)=$OB $WORK/conv56.ocl.ir nn_conv2d $VS_RUNS 0.231211008" \
		"whole @main (ir-run)=$BIN/ir-run --repeat=$VS_RUNS --input x=$WORK/x56.npy --input w=$WORK/w56.npy -o $WORK/o.npy $WORK/conv56.ocl.ir"
	echo "dense 1024^3 (goal 0.75x numpy.dot on OpenBLAS, floor 0.5x):"
	$VS dense $thr "$VS_ROUNDS" "$VS_RUNS" 2.147483648 \
		"kernels (ocl-bench)=$OB $WORK/dense1024.ocl.ir nn_dense $VS_RUNS 2.147483648" \
		"whole @main (ir-run)=$BIN/ir-run --repeat=$VS_RUNS --input x=$WORK/x1024.npy --input w=$WORK/w1024.npy -o $WORK/o.npy $WORK/dense1024.ocl.ir"
done
echo "(1 thread: POCL_MAX_PTHREAD_COUNT=1, torch.set_num_threads(1), OPENBLAS_NUM_THREADS=1,"
echo " nothing pinned: ir-run's host thread and POCL's worker are two threads where torch computes"
echo " on its caller's, and pinning both to one core measured the switches between them;"
echo " 2 threads: torch's OpenMP suffers most when the shared machine takes a core away)"

echo
echo "memory-bound: a fused elementwise chain (x + y) * 0.5 - z, relu on 4 x 16 MiB, against"
echo "POCL's float4 buffer copy of as many bytes, alternating call by call (goal 0.8x):"
printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[16,64,64,64], %%y: f32[16,64,64,64], %%z: f32[16,64,64,64]) -> f32[16,64,64,64] {\n  %%a = add(%%x, %%y)\n  %%b = multiply(%%a, 0.5)\n  %%c = subtract(%%b, %%z)\n  %%d = nn.relu(%%c)\n  return %%d\n}\n' > "$WORK/chain.ir"
"$BIN/ir-plan-devices" "$WORK/chain.ir" | "$BIN/ir-lower" | "$BIN/ir-plan-devices" \
	| "$BIN/ir-codegen-ocl" > "$WORK/chain.ocl.ir"
prim=$(sed -n 's/^prim @\([A-Za-z0-9_.]*\).*/\1/p' "$WORK/chain.ocl.ir" | head -1)
"$OB" --copy "$WORK/chain.ocl.ir" "$prim" "$VS_RUNS" 0 2> /dev/null || echo "(ocl-bench failed)"

echo
echo "the packed conv2d (NCHW4c, OIHW4o, 1x16x56x56x4, 64 filters 3x3, pad 1): textures against"
echo "buffers on a gpu device (POCL's cpu stands in for the GPU here), and the cpu tile;"
echo "whole @main through ir-run, ratio = the texture run's time / the variant's:"
python3 bench/gen.py npy 1,16,56,56,4 "$WORK/xp.npy"
python3 bench/gen.py npy 16,64,3,3,4 "$WORK/wp.npy"
for v in tex buf cpu; do
	case $v in
	tex) d='gpu(0) {texture=true}' ;;
	buf) d='gpu(0)' ;;
	cpu) d='cpu(0)' ;;
	esac
	printf 'device @d = %s\nfn @main(%%x: f32[1,16,56,56,4], %%w: f32[16,64,3,3,4]) -> f32[1,16,56,56,4] {\n  %%c = nn.conv2d(%%x, %%w) {padding=[1,1,1,1], data_layout="NCHW4c", kernel_layout="OIHW4o"}\n  return %%c\n}\n' "$d" > "$WORK/packed_$v.ir"
	"$BIN/ir-plan-devices" "$WORK/packed_$v.ir" | "$BIN/ir-lower" | "$BIN/ir-plan-devices" \
		| "$BIN/ir-flatten-texture" | "$BIN/ir-codegen-ocl" > "$WORK/packed_$v.ocl.ir"
done
run_packed() {
	echo "$1=$BIN/ir-run --repeat=$VS_RUNS --input x=$WORK/xp.npy --input w=$WORK/wp.npy -o $WORK/o.npy $WORK/packed_$2.ocl.ir"
}
$VS first 2 "$VS_ROUNDS" "$VS_RUNS" 0.231211008 "$(run_packed "gpu, textures" tex)" \
	"$(run_packed "gpu, buffers" buf)" "$(run_packed "cpu, buffers (16-channel tile)" cpu)"

# weight preparation at inference against ir-fold-constants' constants
. bench/fold.sh

# issue 28's slow kernels, each beside its baseline
echo
IRPIPE_BIN=$BIN BENCH_DIR=$WORK sh bench/kernels.sh

echo
echo "== ir-plan-memory: planned bytes against the lower bound and TVM's greedy_by_size"
printf '%-14s %8s %12s %12s %12s %8s %8s  %s\n' graph buffers "lower bound" "greedy size" "planned" "/bound" "/greedy" algorithm
for g in "resnet 16" "resnet 48" "mobilenet 12" "mobilenet 36"; do
	set -- $g
	python3 bench/gen_memplan.py "$1" "$2" > "$WORK/mp.ir"
	"$BIN/ir-plan-memory" --algorithm=greedy_by_size --stats "$WORK/mp.ir" 2> "$WORK/mp.g" > /dev/null
	"$BIN/ir-plan-memory" --stats "$WORK/mp.ir" 2> "$WORK/mp.b" > /dev/null
	awk -v name="$1-$2" 'FNR == 1 { f++ }
		f == 1 && /^pool/ { g = $6 }
		f == 2 && /^pool/ { n = $3; p = $6; lb = $13 }
		f == 2 && /^algorithm/ { a = $2 }
		END { printf "%-14s %8d %12d %12d %12d %7.3fx %7.3fx  %s\n", name, n, lb, g, p, p / lb, p / g, a }' \
		"$WORK/mp.g" "$WORK/mp.b"
done
echo "goal: planned within 1.05x of the lower bound, never above greedy_by_size"
printf '%9s %9s %12s %9s %12s %9s\n' buffers "parse s" "greedy s" ratio "best s" ratio
for n in ${BENCH_MEMPLAN_SIZES:-1000 10000 100000}; do
	python3 bench/gen_memplan.py chain "$n" > "$WORK/mpc$n.ir"
	set -- $(measure "$BIN/ir-parse" "$WORK/mpc$n.ir")
	pt=$1
	set -- $(measure "$BIN/ir-plan-memory" --algorithm=greedy_by_size "$WORK/mpc$n.ir")
	gt=$1
	set -- $(measure "$BIN/ir-plan-memory" "$WORK/mpc$n.ir")
	awk -v n="$n" -v pt="$pt" -v gt="$gt" -v bt="$1" 'BEGIN {
		printf "%9d %9.3f %12.3f %8.2fx %12.3f %8.2fx\n", n, pt, gt, (pt > 0 ? gt / pt : 0), bt, (pt > 0 ? bt / pt : 0) }'
done
echo "(a chain with skips up to 1000 back; greedy is n log n: a segment tree over lifetimes)"

# ir-run's start-up with and without the program binary cache
IRPIPE_BIN=$BIN BENCH_DIR=$WORK BENCH_RUNS=$RUNS sh bench/startup.sh
echo
IRPIPE_BIN="$BIN" BENCH_DIR="$WORK" BENCH_RUNS="$RUNS" sh bench/alter.sh
echo
# torchvision's resnet18 and mobilenet_v2 at 224x224: textures vs buffers
IRPIPE_BIN="$BIN" BENCH_DIR="$WORK" sh bench/models_tex.sh

# whole models on the cpu, one thread, beside torch and ONNX Runtime
echo
IRPIPE_BIN="$BIN" BENCH_DIR="$WORK" sh bench/models_cpu.sh

# transformers (vit_b_16, TransformerEncoder) on the cpu, one thread, beside torch
echo
IRPIPE_BIN="$BIN" BENCH_DIR="$WORK" sh bench/transformer_cpu.sh

# depthwise conv2d layers on the cpu, one thread: tiled vs element per item
echo
IRPIPE_BIN="$BIN" BENCH_DIR="$WORK" sh bench/depthwise.sh

# ir-run on OpenCL: device memory with and without a memory plan, async vs --sync
IRPIPE_BIN=$BIN BENCH_DIR=$WORK sh bench/runtime.sh

# --- against an earlier build -------------------------------------------------
# BENCH_BASELINE_BIN=DIR: the same tools from another build (for example the
# commit before a change: git worktree add /tmp/base REV && make -C /tmp/base
# && BENCH_BASELINE_BIN=/tmp/base/build/bin make bench), run on the same
# inputs in the same run, interleaved, so that a restructuring can show it
# made nothing slower.
if [ -n "${BENCH_BASELINE_BIN:-}" ]; then
	echo
	echo "== this build vs $BENCH_BASELINE_BIN (median of $RUNS; ratio = this / baseline)"
	printf '%-28s %9s %9s %8s %10s %10s\n' "tool input" "base s" "this s" ratio "base KiB" "this KiB"
	versus() { # label tool args...
		label=$1 tool=$2; shift 2
		set -- $(measure "$BENCH_BASELINE_BIN/$tool" "$@") $(measure "$BIN/$tool" "$@")
		awk -v l="$label" -v bt="$1" -v bk="$2" -v t="$3" -v k="$4" 'BEGIN {
			printf "%-28s %9.3f %9.3f %7.2fx %10d %10d\n", l, bt, t, (bt > 0 ? t / bt : 0), bk, k }'
	}
	for n in $SIZES; do
		[ -f "$WORK/p$n.ir" ] && versus "ir-parse p$n" ir-parse "$WORK/p$n.ir"
		[ -f "$WORK/dag$n.ir" ] && versus "ir-plan-devices dag$n" ir-plan-devices "$WORK/dag$n.ir"
	done
	for n in ${BENCH_LOWER_SIZES:-1000 10000 100000}; do
		versus "ir-lower net$n" ir-lower "$WORK/net$n.ir"
	done
	for op in conv dense; do
		if [ $op = conv ]; then
			set -- --input "x=$WORK/x_conv.npy" --input "w=$WORK/w_conv.npy" --input "b=$WORK/b_conv.npy"
		else
			set -- --input "x=$WORK/x_dense.npy" --input "w=$WORK/w_dense.npy"
		fi
		versus "ir-run --interp $op.tiled" ir-run --interp "$@" -o "$WORK/$op.out.npy" "$WORK/$op.tiled.ir"
	done
fi

echo
IRPIPE_BIN=$BIN BENCH_DIR=$WORK BENCH_RUNS=$RUNS sh "$(dirname "$0")/onnx.sh"
IRPIPE_BIN=$BIN BENCH_DIR=$WORK sh "$(dirname "$0")/onnx_memory.sh"
