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
#   3. the cpu model of 1. run whole by ir-run --repeat, likewise.
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

# 1. the prim, kernel by kernel (ocl_bench prints them to stderr)
printf '%-24s %9s %9s %9s %9s\n' "conv2d prim (cpu)" "min ms" "med ms" "max ms" "GF/s med"
for v in before after; do
	"$OCL_BENCH" "$WORK/fold_conv.$v.ir" nn_conv2d "$RUNS" 0.231211008 \
		> "$WORK/fold_ocl.$v" 2> "$WORK/fold_ocl.$v.k" || echo "ocl_bench failed" > "$WORK/fold_ocl.$v"
	awk -v v="$v" '{ printf "%-24s %9s %9s %9s %9s\n", "  " v, $2, $3, $4, $6 }' "$WORK/fold_ocl.$v"
	sed 's/^/    /' "$WORK/fold_ocl.$v.k"
done
awk 'FNR == 1 { f++ } { m[f] = $3 } END { if (m[2] > 0) printf "  after/before %.3fx (median)\n", m[2] / m[1] }' \
	"$WORK/fold_ocl.before" "$WORK/fold_ocl.after"

# 2., 3. whole runs: ir-run --repeat prints the median and the min
reps=$((RUNS * 4))
printf '%-24s %10s %10s %10s %10s %8s\n' "model (ir-run --repeat $reps)" "before med" "before min" "after med" "after min" "ratio"
for m in conv packed; do
	x=$WORK/fold_x.npy
	[ $m = conv ] || x=$WORK/fold_xp.npy
	for v in before after; do
		"$BIN/ir-run" --data-dir "$WORK" --repeat "$reps" --input "x=$x" -o "$WORK/fold_$m.$v.npy" \
			"$WORK/fold_$m.$v.ir" 2>&1 | grep 'runs, median' | sed 's/.*median \([0-9.]*\) ms, min \([0-9.]*\) ms/\1 \2/' \
			> "$WORK/fold_run.$v"
	done
	cmp -s "$WORK/fold_$m.before.npy" "$WORK/fold_$m.after.npy" && same=same || same=differ
	paste "$WORK/fold_run.before" "$WORK/fold_run.after" | awk -v m="$m" -v s="$same" '{
		printf "%-24s %10.3f %10.3f %10.3f %10.3f %7.3fx  (results: %s bits)\n", "  " m, $1, $2, $3, $4,
		       ($1 > 0 ? $3 / $1 : 0), s }'
done
echo "(before: conv the prim's kernel 0 transposes the OIHW weight on every call; packed: the"
echo " layout_transform to OIHW4o is a prim of its own on every run.  after: the constants"
echo " ir-fold-constants wrote, read directly; ratio = after / before, medians)"
