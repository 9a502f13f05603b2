#!/usr/bin/env bats
# ir-codegen-ocl: the launch and program syntax it writes (read back byte
# for byte, checked by the verifier), and the OpenCL C it generates, built
# with clBuildProgram on POCL for every lowering test module.

setup() {
	load test_helper
	bats_require_minimum_version 1.5.0
}

@test "launch and program syntax: read back byte for byte" {
	cd "$BATS_TEST_DIRNAME/ir-parse"
	run -0 ir-parse launch.ir
	diff -u launch.out - <<< "$output"
	ir-parse launch.out | diff -u launch.out -
}

@test "launches keep their loc(...) through a pipe" {
	cd "$BATS_TEST_DIRNAME/ir-parse"
	ir-parse --locations launch.ir > "$BATS_TEST_TMPDIR/loc.ir"
	run -0 grep -F 'kernel @f_k0 launch(global=[8, 1, 1], local=[1, 1, 1], args=[%a, %w]) { loc("launch.ir":6:3)' "$BATS_TEST_TMPDIR/loc.ir"
	ir-parse "$BATS_TEST_TMPDIR/loc.ir" | diff -u "$BATS_TEST_TMPDIR/loc.ir" -
}

@test "invalid-launch.ir: launches checked against the kernel and the device" {
	expect_diagnostics ir-parse invalid-launch.ir
}

# generate IN BASE: IN through the pipeline (ir-lower with $mode), OpenCL
# C generated into BASE.ocl.ir and BASE.cl; the output is a fixed point of
# ir-codegen-ocl (so it reads back byte for byte).
generate() {
	local in=$1 base=$2 opt= planned=${1%.ir}.planned
	[ "$mode" = fuse ] || opt=--$mode
	# the first planning is the same in every mode: once an input
	[ -s "$planned" ] || ir-plan-devices "$in" > "$planned" || return 1
	ir-lower $opt < "$planned" | ir-plan-devices | ir-flatten-texture > "$base.flat.ir" ||
		return 1
	ir-codegen-ocl "$base.flat.ir" > "$base.ocl.ir" || return 1
	ir-codegen-ocl "$base.ocl.ir" | cmp -s "$base.ocl.ir" - ||
		{ echo "$base: ir-codegen-ocl is not a fixed point"; return 1; }
	ir-codegen-ocl --emit=cl "$base.ocl.ir" > "$base.cl"
}

# build_all DIR: every DIR/*.cl builds on POCL (identical files once).
# Under tests/run.sh, the programs that built are noted by checksum and
# size in $IRPIPE_CHECK_SHARED, which both builds' jobs share: the other
# build's run of the test builds only those not noted (the same bytes
# build the same; the build is POCL's work, which the sanitizers do not
# look into, and took 20 to 30 s of CPU a build).  For the same reason
# the helper is the first build's ($IRPIPE_OCL_BUILD, from tests/run.sh)
# when there is one: POCL's compiler under the sanitizers' allocator took
# half as long again.
build_all() {
	local helper=${IRPIPE_OCL_BUILD:-$IRPIPE_BIN/../tests/bin/ocl-build}
	local shared=${IRPIPE_CHECK_SHARED:-}
	local -A seen=()
	local files=() sums=() f sum size n=0 t
	if [ -n "$shared" ]; then
		while read -r sum size; do
			seen[$sum $size]=1
		done < <(cat "$shared"/ocl-built.* 2>/dev/null)
	fi
	# one cksum for all files (a process each took seconds)
	while read -r sum size f; do
		case ${seen[$sum $size]:-} in
		1) n=$((n + 1)) ;;	# built by the other build's run
		'') files+=("$f"); sums+=("$sum $size") ;;
		esac
		seen[$sum $size]=2
	done < <(cksum "$1"/*.cl)
	echo "# ${#files[@]} distinct programs built, $n built by the other build's run" >&3
	[ ${#files[@]} -eq 0 ] || ASAN_OPTIONS=$NO_LEAK_CHECK "$helper" "${files[@]}" || return 1
	if [ -n "$shared" ] && [ ${#files[@]} -gt 0 ]; then
		t=$shared/ocl-built.$BASHPID.$RANDOM
		printf '%s\n' "${sums[@]}" > "$shared/.ocl-built.$BASHPID" &&
			mv "$shared/.ocl-built.$BASHPID" "$t"
	fi
}

# generate_all IN...: what generate writes for each IN in every mode
# (BASE IN less .ir with .MODE), each tool started once a mode for every
# IN (--split-input-file, a part a module: the same bytes, and a start
# under ASan costs 8 ms of CPU, some 7000 starts here).  If that fails,
# each IN goes through generate on its own, so that the error names it.
generate_all() {
	local p mode opt= f
	p=$(mktemp -d "$BATS_TEST_TMPDIR/parts.XXXXXX")
	# (in an if, set -e is off: each step says when it failed)
	if (
		set -o pipefail
		join_parts "$@" > "$p/in.ir" || exit 1
		ir-plan-devices --split-input-file "$p/in.ir" > "$p/planned" || exit 1
		for mode in fuse no-fuse no-tile; do
			opt=
			[ "$mode" = fuse ] || opt=--$mode
			ir-lower --split-input-file $opt < "$p/planned" \
				| ir-plan-devices --split-input-file \
				| ir-flatten-texture --split-input-file > "$p/$mode.flat.ir" || exit 1
			ir-codegen-ocl --split-input-file "$p/$mode.flat.ir" > "$p/$mode.ocl.ir" || exit 1
			ir-codegen-ocl --split-input-file "$p/$mode.ocl.ir" | cmp -s "$p/$mode.ocl.ir" - ||
				exit 1
			ir-codegen-ocl --split-input-file --emit=cl "$p/$mode.ocl.ir" > "$p/$mode.cl" ||
				exit 1
			split_parts "$p/$mode.cl" ".$mode.cl" "$@" || exit 1
		done
	) 2> "$p/err"; then
		return 0
	fi
	for f in "$@"; do
		for mode in fuse no-fuse no-tile; do
			generate "$f" "${f%.ir}.$mode" || return 1
		done
	done
	echo "generate_all: --split-input-file failed where every module generates alone:"
	cat "$p/err"
	return 1
}

# generate_test_modules DIR: every lowering test module, retargeted to
# cpu, gpu and texture gpu, generated in DIR in every mode
generate_test_modules() {
	local d=$1 f n dev ins=()
	for f in "$BATS_TEST_DIRNAME"/ir-lower/*.ir "$BATS_TEST_DIRNAME"/ir-run/*.ir; do
		n=$(basename "$f" .ir)
		for dev in cpu gpu tex; do
			retarget $dev "$f" > "$d/$n.$dev.ir"
			ins+=("$d/$n.$dev.ir")
		done
	done
	generate_all "${ins[@]}"
}

# generate_each DIR: every module DIR/*.ir generated in every mode
generate_each() {
	generate_all "$1"/*.ir
}

@test "every lowering test module generates OpenCL C that builds on POCL (cpu, gpu, texture-gpu x fuse, no-fuse, no-tile)" {
	untraced generate_test_modules "$BATS_TEST_TMPDIR"
	build_all "$BATS_TEST_TMPDIR"
}

@test "every module of tests/unit/lower_test.c generates OpenCL C that builds on POCL" {
	local d=$BATS_TEST_TMPDIR
	"$IRPIPE_BIN/../tests/bin/lower-cases" "$d"
	untraced generate_each "$d"
	build_all "$d"
}

@test "golden: a small CNN on a cpu (parallel loops as the NDRange, unrolled register tiles, a workspace)" { golden --from=ir-plan-devices --from=ir-lower --from=ir-plan-devices --from=ir-flatten-texture ir-codegen-ocl cnn_cpu; }
@test "golden: the same CNN on a gpu (blockIdx/threadIdx as groups and items)" { golden --from=ir-plan-devices --from=ir-lower --from=ir-plan-devices --from=ir-flatten-texture ir-codegen-ocl cnn_gpu; }

@test "golden: a texture block (images read once per texel, written whole)" { golden --from=ir-plan-devices --from=ir-lower --from=ir-plan-devices --from=ir-flatten-texture ir-codegen-ocl texture_block; }
@test "golden: a packed conv2d on a cpu (rows of 16 written a texel at a time stay arrays of float16)" { golden --from=ir-plan-devices --from=ir-lower --from=ir-plan-devices --from=ir-flatten-texture ir-codegen-ocl packed_cpu; }
@test "golden: a dense on a cpu (the weight transposed into panels of 32 columns, an 8 x 2 x 16 broadcast tile)" { golden --from=ir-plan-devices --from=ir-lower --from=ir-plan-devices --from=ir-flatten-texture ir-codegen-ocl dense_cpu; }

@test "golden: TVM's texture codegen cases (channel at run time, one read for three uses, f16 images, an image alloc)" {
	local dir=$BATS_TEST_DIRNAME/ir-codegen-ocl
	ir-codegen-ocl "$dir/tvm_texture.ir" > "$BATS_TEST_TMPDIR/tvm.out"
	[ -z "${UPDATE_GOLDEN:-}" ] || cp "$BATS_TEST_TMPDIR/tvm.out" "$dir/tvm_texture.out"
	diff -u "$dir/tvm_texture.out" "$BATS_TEST_TMPDIR/tvm.out"
	ir-codegen-ocl --emit=cl "$dir/tvm_texture.out" > "$BATS_TEST_TMPDIR/tvm.cl"
	# the portable checks of tvm.md B2: one read per texel, the channel
	# through the float4, images qualified by use, an image alloc passed
	run -0 grep -c 'read_imagef(p0, irp_sampler, (int2)(w2, h2))' "$BATS_TEST_TMPDIR/tvm.cl"
	assert_output 1
	run -0 grep -c '((const float \*)&irp_t0)\[c2 % 4\]' "$BATS_TEST_TMPDIR/tvm.cl"
	run -0 grep -F 'void scope_k1(__write_only image2d_t C, __read_only image2d_t B)' "$BATS_TEST_TMPDIR/tvm.cl"
	run -0 grep -F 'kernel @scope_k0 launch(global=[16384, 1, 1], local=[128, 1, 1], args=[%A, %B])' "$dir/tvm_texture.out"
	ASAN_OPTIONS=$NO_LEAK_CHECK run -0 "$IRPIPE_BIN/../tests/bin/ocl-build" "$BATS_TEST_TMPDIR/tvm.cl"
}

@test "invalid.ir: not lowered, not flattened, read_write images, unbound thread loops, kernel names" {
	expect_diagnostics ir-codegen-ocl invalid.ir
}

@test "--emit=cl writes the bare OpenCL C; --emit=cl=@dev one device's; an unknown device is an error" {
	local m=$BATS_TEST_DIRNAME/ir-codegen-ocl/cnn_cpu.out
	run -0 ir-codegen-ocl --emit=cl "$m"
	assert_line --index 0 '// OpenCL C of device @cpu, generated by ir-codegen-ocl'
	refute_output --partial 'prim @'
	run -0 ir-codegen-ocl --emit=cl=@cpu "$m"
	assert_line --index 0 '// OpenCL C of device @cpu, generated by ir-codegen-ocl'
	run -1 --separate-stderr ir-codegen-ocl --emit=cl=@gpu "$m"
	assert_output ''
	assert_equal "$stderr" "ir-codegen-ocl: error: no program for device '@gpu'"
	# -o as every tool's: the messages of ir-parse(1), nothing left behind
	run -1 --separate-stderr ir-codegen-ocl --emit=cl -o "$BATS_TEST_TMPDIR/no/m.cl" "$m"
	assert_equal "$stderr" "ir-codegen-ocl: cannot create '$BATS_TEST_TMPDIR/no/m.cl': No such file or directory"
	run -1 --separate-stderr ir-codegen-ocl --emit=cl -o /dev/full "$m"
	assert_equal "$stderr" "ir-codegen-ocl: write error: '/dev/full': No space left on device"
	run -1 --separate-stderr ir-codegen-ocl --emit=cl=@gpu -o "$BATS_TEST_TMPDIR/m.cl" "$m"
	[ ! -e "$BATS_TEST_TMPDIR/m.cl" ]
	run -2 ir-codegen-ocl --emit=c "$m"
}

@test "--emit=cl with --split-input-file: each part's OpenCL C, joined by '// -----' lines; a part that fails fails the run" {
	local d=$BATS_TEST_TMPDIR m=$BATS_TEST_DIRNAME/ir-codegen-ocl/cnn_cpu.out
	local g=$BATS_TEST_DIRNAME/ir-codegen-ocl/cnn_gpu.out
	join_parts "$m" "$g" > "$d/both.ir"
	run -0 --separate-stderr ir-codegen-ocl --split-input-file --emit=cl "$d/both.ir"
	{ ir-codegen-ocl --emit=cl "$m"; echo '// -----'; ir-codegen-ocl --emit=cl "$g"; } > "$d/want.cl"
	diff -u "$d/want.cl" - <<< "$output"
	[ "$(grep -c -x -- '// -----' <<< "$output")" = 1 ]
	ir-codegen-ocl --split-input-file --emit=cl -o "$d/both.cl" "$d/both.ir"
	split_parts "$d/both.cl" .cl "$d/a.ir" "$d/b.ir"
	ir-codegen-ocl --emit=cl "$m" | diff -u - "$d/a.cl"
	ir-codegen-ocl --emit=cl "$g" | diff -u - "$d/b.cl"
	# @cpu is the first part's device only: the second part fails, and
	# nothing is written
	run -1 --separate-stderr ir-codegen-ocl --split-input-file --emit=cl=@cpu "$d/both.ir"
	assert_output ''
	assert_equal "$stderr" "ir-codegen-ocl: error: no program for device '@cpu'"
	run -1 --separate-stderr ir-codegen-ocl --split-input-file --emit=cl=@cpu -o "$d/c.cl" "$d/both.ir"
	[ ! -e "$d/c.cl" ]
}

@test "--unroll=full writes unrolled loops out; the C still builds" {
	local m=$BATS_TEST_DIRNAME/ir-codegen-ocl/cnn_cpu.out
	ir-codegen-ocl --unroll=full --emit=cl "$m" > "$BATS_TEST_TMPDIR/full.cl"
	run -1 grep -c 'pragma unroll' "$BATS_TEST_TMPDIR/full.cl"
	run -0 grep -c '} { const int u' "$BATS_TEST_TMPDIR/full.cl"
	ASAN_OPTIONS=$NO_LEAK_CHECK run -0 "$IRPIPE_BIN/../tests/bin/ocl-build" "$BATS_TEST_TMPDIR/full.cl"
	run -2 ir-codegen-ocl --unroll=some "$m"
}

@test "the loop level stays runnable: ir-run --interp gives the same results before and after codegen" {
	local dir=$BATS_TEST_DIRNAME/ir-codegen-ocl t=$BATS_TEST_TMPDIR
	"$PY" "$BATS_TEST_DIRNAME/../bench/gen.py" npy 1,3,8,8 "$t/x.npy"
	"$PY" "$BATS_TEST_DIRNAME/../bench/gen.py" npy 4,3,3,3 "$t/w.npy"
	"$PY" "$BATS_TEST_DIRNAME/../bench/gen.py" npy 4 "$t/b.npy"
	"$PY" "$BATS_TEST_DIRNAME/../bench/gen.py" npy 10,36 "$t/wd.npy"
	ir-plan-devices "$dir/cnn_cpu.ir" | ir-lower | ir-plan-devices > "$t/low.ir"
	set -- --interp --input "x=$t/x.npy" --input "w=$t/w.npy" --input "b=$t/b.npy" --input "wd=$t/wd.npy"
	ir-run "$@" -o "$t/low.npy" "$t/low.ir"
	ir-run "$@" -o "$t/ocl.npy" "$dir/cnn_cpu.out"
	cmp "$t/low.npy" "$t/ocl.npy"
}

@test "10000 nested loops in a kernel and an expression 200 deep: generated without recursion" {
	awk 'BEGIN {
		print "device @cpu = cpu(0)"
		print "prim @deep(%a: f32[4] @cpu:global) {"
		print "  kernel @deep_k0 {"
		for (i = 0; i < 10000; i++) printf "for %%i%d in 0..1 {\n", i
		e = "1.0"
		for (i = 0; i < 200; i++) e = "(" e " + 1.0)"
		print "%a[0] = " e
		for (i = 0; i < 10000; i++) print "}"
		print "  }"
		print "}"
	}' > "$BATS_TEST_TMPDIR/deep.ir"
	ir-codegen-ocl --emit=cl "$BATS_TEST_TMPDIR/deep.ir" > "$BATS_TEST_TMPDIR/deep.cl"
	run -0 grep -c 'for (int i9999 = 0; i9999 < 1; i9999++) {' "$BATS_TEST_TMPDIR/deep.cl"
	# indentation stops at 32 levels: the C grows linearly with the nest
	[ "$(wc -c < "$BATS_TEST_TMPDIR/deep.cl")" -lt 2000000 ]
}

@test "a cast from a bool vector builds (convert_T, not a C cast) and gives 1.0 for true, from memory and from a comparison" {
	cd "$BATS_TEST_TMPDIR"
	cat > m.ir <<'IR'
device @cpu = cpu(0)
fn @main(%b: bool[1,8,2,3,4], %x: f32[1,8,2,3,4]) -> (f32[1,8,2,3,4], f32[1,8,2,3,4]) {
  %0: f32[1,8,2,3,4] = cast(%b) {dtype="f32"}
  %1 = greater(%x, %0)
  %2: f32[1,8,2,3,4] = cast(%1) {dtype="f32"}
  %t = (%0, %2)
  return %t
}
IR
	"$PY" -c 'import numpy as n; r=n.random.default_rng(5); n.save("b.npy", r.random((1,8,2,3,4))>0.5); n.save("x.npy", r.standard_normal((1,8,2,3,4)).astype(n.float32))'
	set -o pipefail
	ir-parse m.ir | ir-plan-devices | ir-lower | ir-plan-devices | ir-flatten-texture | ir-codegen-ocl > ocl.ir
	ir-codegen-ocl --emit=cl ocl.ir > m.cl
	ASAN_OPTIONS=$NO_LEAK_CHECK run -0 "$IRPIPE_BIN/../tests/bin/ocl-build" m.cl
	ASAN_OPTIONS=$NO_LEAK_CHECK run -0 ir-run --no-cache --input b=b.npy --input x=x.npy -o ocl ocl.ir
	run -0 ir-run --interp --input b=b.npy --input x=x.npy -o ref ocl.ir
	for f in ref/*.npy; do cmp "$f" "ocl/${f#ref/}"; done
	"$PY" -c 'import numpy as n,glob; v=[n.load(f) for f in sorted(glob.glob("ocl/*.npy"))]; assert len(v)==2 and set(n.unique(v[0]))<={0.0,1.0} and v[0].sum()>0, v'
}

@test "codegen: a kernel's if with an empty arm generates code (the if was read as a loop's bounds: a crash)" {
	cat > "$BATS_TEST_TMPDIR/if.ir" <<'EOF'
device @gpu = gpu(0)
prim @k(%A: f32[4] @gpu, %B: f32[4] @gpu) {
  kernel @k0 {
    for %i in 0..4 bind(threadIdx.x) {
      let %v = %A[%i]
      if %i > 0 {
      } else {
        %B[%i] = %v
      }
    }
  }
}
fn @main(%x: f32[4]) -> f32[4] {
  %0 = call_lowered @k(%x)
  return %0
}
EOF
	run -0 ir-codegen-ocl "$BATS_TEST_TMPDIR/if.ir"
	[[ "$output" == *"if (i > 0) {"* ]]
}
