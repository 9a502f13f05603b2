#!/bin/sh
# bench/fold.sh (run by bench/run.sh): weight preparation at inference
# against weights prepared once by ir-fold-constants, on POCL.
#
#   1. the conv2d prim 1x64x56x56, 64 3x3 filters, pad 1, on a cpu, timed
#      through the OpenCL API (bench/ocl_bench.c): its weight a constant
#      kept OIHW (ir-fold-constants --no-weight-layouts: the prim transposes
#      it, kernel 0, on every call) against the HWIO constant that
#      ir-fold-constants writes (no transpose kernel);
#   2. the packed NCHW4c variant on a gpu {texture=true} (POCL's cpu device
#      when there is no GPU): the weight a constant OIHW with the
#      layout_transform to OIHW4o that ir-alter-layout writes, run whole
#      by ir-run --repeat (the transform a prim of its own on every run)
#      against the folded OIHW4o constant;
#   3. the cpu model of 1. run whole by ir-run --repeat, likewise;
#   4. the dense prims 512^3 and 1024^3 on a cpu, as 1.: the weight a
#      constant [N,K] that the prim packs into panels [N/32,K,32], kernel
#      0, on every call, against the constant ir-fold-constants packs
#      (weight_layout "NC32n", no packing kernel); and an MLP of three
#      denses (256 rows, 1024-1024-1024-256, bias and relu) run whole by
#      ir-run --repeat, likewise.
# Sourced with BIN, WORK, RUNS and OCL_BENCH set; prints, asserts nothing.

echo
echo "== weight preparation at inference vs folded by ir-fold-constants (POCL)"
python3 bench/gen.py npy 64,64,3,3 "$WORK/fold_w.npy"
python3 bench/gen.py npy 1,64,56,56 "$WORK/fold_x.npy"
python3 bench/gen.py npy 1,16,56,56,4 "$WORK/fold_xp.npy"
printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[1,64,56,56]) -> f32[1,64,56,56] {\n  %%w = const f32[64,64,3,3] file="fold_w.npy"\n  %%c = nn.conv2d(%%x, %%w) {padding=[1, 1, 1, 1]}\n  return %%c\n}\n' > "$WORK/fold_conv.ir"
printf 'device @cpu = cpu(0)\ndevice @gpu = gpu(0) {texture=true}\ndefault @gpu\nhost @cpu\nfn @main(%%x: f32[1,16,56,56,4]) -> f32[1,16,56,56,4] {\n  %%w = const f32[64,64,3,3] file="fold_w.npy"\n  %%wp = layout_transform(%%w) {src_layout="OIHW", dst_layout="OIHW4o"}\n  %%c = nn.conv2d(%%x, %%wp) {padding=[1, 1, 1, 1], data_layout="NCHW4c", kernel_layout="OIHW4o"}\n  return %%c\n}\n' > "$WORK/fold_packed.ir"
lowered() { # in out [fold options]: lowered and generated; ''' = not folded
	in=$1 out=$2
	shift 2
	if [ "${1:-}" = none ]; then
		cat "$in"
	else
		"$BIN/ir-fold-constants" --data-dir "$WORK" "$@" "$in"
	fi | "$BIN/ir-plan-devices" | "$BIN/ir-lower" | "$BIN/ir-plan-devices" \
		| "$BIN/ir-flatten-texture" | "$BIN/ir-codegen-ocl" > "$out"
}
lowered "$WORK/fold_conv.ir" "$WORK/fold_conv.before.ir" --no-weight-layouts
lowered "$WORK/fold_conv.ir" "$WORK/fold_conv.after.ir"
lowered "$WORK/fold_packed.ir" "$WORK/fold_packed.before.ir" none
lowered "$WORK/fold_packed.ir" "$WORK/fold_packed.after.ir"
for n in 512 1024; do
	python3 bench/gen.py npy $n,$n "$WORK/fold_wd$n.npy"
	python3 bench/gen.py npy $n,$n "$WORK/fold_xd$n.npy"
	printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[%d,%d]) -> f32[%d,%d] {\n  %%w = const f32[%d,%d] file="fold_wd%d.npy"\n  %%d = nn.dense(%%x, %%w)\n  return %%d\n}\n' \
		$n $n $n $n $n $n $n > "$WORK/fold_dense$n.ir"
	lowered "$WORK/fold_dense$n.ir" "$WORK/fold_dense$n.before.ir" --no-weight-layouts
	lowered "$WORK/fold_dense$n.ir" "$WORK/fold_dense$n.after.ir"
done
python3 bench/gen.py npy 256,1024 "$WORK/fold_xm.npy"
for l in 1 2; do
	python3 bench/gen.py npy 1024,1024 "$WORK/fold_m$l.npy"
	python3 bench/gen.py npy 1024 "$WORK/fold_b$l.npy"
done
python3 bench/gen.py npy 256,1024 "$WORK/fold_m3.npy"
python3 bench/gen.py npy 256 "$WORK/fold_b3.npy"
{
	echo 'device @cpu = cpu(0)'
	echo 'fn @main(%x: f32[256,1024]) -> f32[256,256] {'
	h=x
	for l in 1 2 3; do
		n=1024
		[ $l = 3 ] && n=256
		echo "  %w$l = const f32[$n,1024] file=\"fold_m$l.npy\""
		echo "  %b$l = const f32[$n] file=\"fold_b$l.npy\""
		echo "  %d$l = nn.dense(%$h, %w$l)"
		echo "  %a$l = nn.bias_add(%d$l, %b$l) {axis=1}"
		echo "  %r$l = nn.relu(%a$l)"
		h=r$l
	done
	echo "  return %r3"
	echo '}'
} > "$WORK/fold_mlp.ir"
lowered "$WORK/fold_mlp.ir" "$WORK/fold_mlp.before.ir" --no-weight-layouts
lowered "$WORK/fold_mlp.ir" "$WORK/fold_mlp.after.ir"

# 1., 4. the prims, kernel by kernel (ocl_bench prints them to stderr)
for spec in "conv nn_conv2d 0.231211008 conv2d" "dense512 nn_dense 0.268435456 dense_512^3" \
	"dense1024 nn_dense 2.147483648 dense_1024^3"; do
	set -- $spec
	printf '%-24s %9s %9s %9s %9s\n' "$4 prim (cpu)" "min ms" "med ms" "max ms" "GF/s med"
	for v in before after; do
		"$OCL_BENCH" "$WORK/fold_$1.$v.ir" "$2" "$RUNS" "$3" \
			> "$WORK/fold_ocl.$v" 2> "$WORK/fold_ocl.$v.k" || echo "ocl_bench failed" > "$WORK/fold_ocl.$v"
		awk -v v="$v" '{ printf "%-24s %9s %9s %9s %9s\n", "  " v, $2, $3, $4, $6 }' "$WORK/fold_ocl.$v"
		sed 's/^/    /' "$WORK/fold_ocl.$v.k"
	done
	awk 'FNR == 1 { f++ } { m[f] = $3 } END { if (m[2] > 0) printf "  after/before %.3fx (median)\n", m[2] / m[1] }' \
		"$WORK/fold_ocl.before" "$WORK/fold_ocl.after"
done

# 2., 3. whole runs: ir-run --repeat prints the median and the min
reps=$((RUNS * 4))
printf '%-24s %10s %10s %10s %10s %8s\n' "model (ir-run --repeat $reps)" "before med" "before min" "after med" "after min" "ratio"
for m in conv packed mlp; do
	x=$WORK/fold_x.npy
	[ $m = packed ] && x=$WORK/fold_xp.npy
	[ $m = mlp ] && x=$WORK/fold_xm.npy
	for v in before after; do
		"$BIN/ir-run" --data-dir "$WORK" --repeat "$reps" --input "x=$x" -o "$WORK/fold_$m.$v.npy" \
			"$WORK/fold_$m.$v.ir" 2>&1 | grep 'runs, median' | sed 's/.*median \([0-9.]*\) ms, min \([0-9.]*\) ms.*/\1 \2/' \
			> "$WORK/fold_run.$v"
	done
	cmp -s "$WORK/fold_$m.before.npy" "$WORK/fold_$m.after.npy" && same=same || same=differ
	paste "$WORK/fold_run.before" "$WORK/fold_run.after" | awk -v m="$m" -v s="$same" '{
		printf "%-24s %10.3f %10.3f %10.3f %10.3f %7.3fx  (results: %s bits)\n", "  " m, $1, $2, $3, $4,
		       ($1 > 0 ? $3 / $1 : 0), s }'
done
echo "(before: conv the prim's kernel 0 transposes the OIHW weight on every call, dense and mlp"
echo " pack the [N,K] weights into panels [N/32,K,32]; packed: the layout_transform to OIHW4o is"
echo " a prim of its own on every run.  after: the constants ir-fold-constants wrote, read"
echo " directly; ratio = after / before, medians)"
