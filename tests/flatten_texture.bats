#!/usr/bin/env bats
# ir-flatten-texture: goldens that pin the texel coordinates of every
# texture scope (TVM's texture tests ported where the IR expresses them,
# and a lowered residual block), the errors, and on every module of the
# lowering goldens: the flattened module interprets to the same result
# as the lowered one, prims without images come out byte for byte, and
# flattening twice equals flattening once.
#
# UPDATE_GOLDEN=1 bats tests/flatten_texture.bats rewrites
# tests/ir-flatten-texture/*.out (see golden in test_helper.bash).

setup() {
	load test_helper
	D="$BATS_TEST_DIRNAME/ir-flatten-texture"
}

@test "golden: TVM's PlusOneRank3 and PlusOneRank5, whole texels" { golden ir-flatten-texture tvm_plus_one; }
@test "golden: TVM's matmul cases, one channel at a time, the channel not a literal" { golden ir-flatten-texture tvm_matmul; }
@test "golden: TVM's conv2d NCHWc with RSCKk and KCRSk filters (texture:weight)" { golden ir-flatten-texture tvm_conv2d; }
@test "golden: TVM's texture-to-scalar cases, FP16 and reuse" { golden ir-flatten-texture tvm_texture_to_scalar; }
@test "golden: TVM's LocalArrayToTexture" { golden ir-flatten-texture tvm_local_to_texture; }
@test "golden: TVM's texture scope test, an intermediate image allocated in the prim" { golden ir-flatten-texture tvm_texture_scope; }
@test "golden: a lowered residual block on a texture GPU" { golden ir-flatten-texture lowered_texture_block; }
@test "golden: every convention at ranks 3 to 5; index types" { golden ir-flatten-texture scopes; }

@test "invalid.ir: channel stores, partial texels, image2d_max, allocs in kernels, devices, types, nesting depth" {
	expect_diagnostics ir-flatten-texture invalid.ir
}

# through NAME: tests/ir-lower/NAME.ir planned, lowered, planned again
# (lowered.ir), then flattened (flat.ir); both run with @main's
# parameters made constants (consts.awk) must print the same result.
through() {
	local t=$BATS_TEST_TMPDIR
	ir-plan-devices "$BATS_TEST_DIRNAME/ir-lower/$1.ir" | ir-lower | ir-plan-devices > "$t/lowered.ir"
	ir-flatten-texture "$t/lowered.ir" > "$t/flat.ir"
	ir-flatten-texture "$t/flat.ir" | diff -u "$t/flat.ir" -
	awk -f "$D/consts.awk" "$t/lowered.ir" > "$t/lowered-c.ir"
	awk -f "$D/consts.awk" "$t/flat.ir" > "$t/flat-c.ir"
	ir-run --interp "$t/lowered-c.ir" > "$t/lowered.txt"
	ir-run --interp "$t/flat-c.ir" > "$t/flat.txt"
	[ -s "$t/lowered.txt" ]
	diff -u "$t/lowered.txt" "$t/flat.txt"
}

# through_all FILE...: through of every FILE at once, each tool started
# once for all (--split-input-file, a FILE a part: the same bytes as
# alone), and the first test's checks of each part; status 1 if anything
# differs or fails (through, file by file, then says which)
through_all() {
	local t=$BATS_TEST_TMPDIR/all
	mkdir -p "$t" && join_parts "$@" > "$t/in.ir" || return 1
	( set -o pipefail
	  ir-plan-devices --split-input-file "$t/in.ir" | ir-lower --split-input-file \
		| ir-plan-devices --split-input-file > "$t/lowered.ir" ) 2> /dev/null || return 1
	ir-flatten-texture --split-input-file "$t/lowered.ir" > "$t/flat.ir" 2> /dev/null || return 1
	ir-flatten-texture --split-input-file "$t/flat.ir" 2> /dev/null | cmp -s "$t/flat.ir" - ||
		return 1
	awk -f "$D/consts.awk" "$t/lowered.ir" > "$t/lowered-c.ir" || return 1
	awk -f "$D/consts.awk" "$t/flat.ir" > "$t/flat-c.ir" || return 1
	ir-run --interp --split-input-file "$t/lowered-c.ir" > "$t/lowered.txt" 2> /dev/null ||
		return 1
	ir-run --interp --split-input-file "$t/flat-c.ir" > "$t/flat.txt" 2> /dev/null || return 1
	# every part printed its result
	awk '$0 == "// -----" { if (!n) exit 1; n = 0; next } { n++ } END { exit !n }' \
		"$t/lowered.txt" || return 1
	cmp -s "$t/lowered.txt" "$t/flat.txt" || return 1
	# a part with images has texture2d_ accesses once flattened, any
	# other flattens to itself; at least 2 with images
	split_parts "$t/lowered.ir" .lowered "$@" && split_parts "$t/flat.ir" .flat "$@" ||
		return 1
	local f n=0
	for f in "$@"; do
		if grep -q '@gpu:texture' "${f%.ir}.lowered"; then
			grep -q texture2d_ "${f%.ir}.flat" || return 1
			n=$((n + 1))
		else
			cmp -s "${f%.ir}.lowered" "${f%.ir}.flat" || return 1
		fi
	done
	[ "$n" -ge 2 ]
}

@test "lowering goldens: every module flattens, interprets the same and flattens to itself" {
	local n=0 f name ins=()
	# all at once (the inputs copied here: split_parts writes beside them)
	for f in "$BATS_TEST_DIRNAME"/ir-lower/*.ir; do
		cp "$f" "$BATS_TEST_TMPDIR/${f##*/}"
		ins+=("$BATS_TEST_TMPDIR/${f##*/}")
	done
	through_all "${ins[@]}" && return 0
	for f in "$BATS_TEST_DIRNAME"/ir-lower/*.ir; do
		name=$(basename "$f" .ir)
		through "$name"
		if grep -q '@gpu:texture' "$BATS_TEST_TMPDIR/lowered.ir"; then
			# images: no N-d access is left to any of them
			grep -q texture2d_ "$BATS_TEST_TMPDIR/flat.ir"
			n=$((n + 1))
		else
			cmp "$BATS_TEST_TMPDIR/lowered.ir" "$BATS_TEST_TMPDIR/flat.ir"
		fi
	done
	# texel_writes and texture_block at least
	[ "$n" -ge 2 ]
	echo "through_all failed where every module passes alone"
	return 1
}

@test "flatten: the interpreter gives the same result before and after (an image alloc, channel reads)" {
	cat > "$BATS_TEST_TMPDIR/m.ir" <<'IR'
device @gpu = gpu(0) {texture=true}
prim @p(%A: f32[2,3,4] @gpu:texture, %B: f32[2,3,4] @gpu) {
  alloc %T: f32[2,3,4] @gpu:texture:weight
  for %i in 0..2 {
    for %j in 0..3 {
      %T[%i, %j, 0:4] = %A[%i, %j, 0:4] * broadcast<f32x4>(2.0)
    }
  }
  for %i2 in 0..2 {
    for %j2 in 0..3 {
      for %c in 0..4 {
        %B[%i2, %j2, 3 - %c] = %T[%i2, %j2, %c] + %A[%i2, 2 - %j2, %c]
      }
    }
  }
}
fn @main(%x: f32[2,3,4] on @gpu) -> f32[2,3,4] on @gpu {
  %y: f32[2,3,4] on @gpu = call_lowered @p(%x)
  return %y
}
IR
	ir-flatten-texture "$BATS_TEST_TMPDIR/m.ir" > "$BATS_TEST_TMPDIR/f.ir"
	run -0 cat "$BATS_TEST_TMPDIR/f.ir"
	assert_line '  alloc %T: f32[2,3,4] @gpu:texture:weight image2d[3, 2]'
	assert_line '      texture2d_store(%T, %j, %i, texture2d_load(%A, %j, %i) * broadcast<f32x4>(2.0))'
	assert_line '        %B[%i2, %j2, 3 - %c] = lane(texture2d_load(%T, %j2, %i2), %c) + lane(texture2d_load(%A, 2 - %j2, %i2), %c)'
	awk -f "$D/consts.awk" "$BATS_TEST_TMPDIR/m.ir" > "$BATS_TEST_TMPDIR/m-c.ir"
	awk -f "$D/consts.awk" "$BATS_TEST_TMPDIR/f.ir" > "$BATS_TEST_TMPDIR/f-c.ir"
	ir-run --interp "$BATS_TEST_TMPDIR/m-c.ir" > "$BATS_TEST_TMPDIR/m.txt"
	run -0 ir-run --interp "$BATS_TEST_TMPDIR/f-c.ir"
	assert_output "$(cat "$BATS_TEST_TMPDIR/m.txt")"
}

@test "flatten: coordinates are folded: no '* 1', no '+ 0', constants combined" {
	printf '%s\n' 'device @gpu = gpu(0) {texture=true}' \
		'prim @p(%A: f32[1,3,1,5,4] @gpu:texture, %W: f32[2,4,3,3,4] @gpu:texture:weight, %B: f32[4] @gpu) {' \
		'  for %i in 0..3 {' \
		'    %B[0:4] = %A[0, %i, 0, 2, 0:4] + %W[1, %i * 2 + 1, 2, 0, 0:4]' \
		'  }' '}' | ir-flatten-texture > "$BATS_TEST_TMPDIR/f.ir"
	run -0 grep '%B\[0:4\]' "$BATS_TEST_TMPDIR/f.ir"
	assert_output '    %B[0:4] = texture2d_load(%A, 2, %i) + texture2d_load(%W, %i * 18 + 15, 1)'
}

@test "flatten: prims without images are byte for byte the same; --locations is kept" {
	ir-parse "$BATS_TEST_DIRNAME/ir-lower/cnn_cpu.out" > "$BATS_TEST_TMPDIR/a.ir"
	ir-flatten-texture "$BATS_TEST_TMPDIR/a.ir" | cmp - "$BATS_TEST_TMPDIR/a.ir"
	cd "$D"
	ir-parse --locations tvm_texture_scope.ir | ir-flatten-texture > "$BATS_TEST_TMPDIR/l.ir"
	run -0 grep -F 'texture2d_store(%B, %tx, %bx, texture2d_load(%A, %tx, %bx) + broadcast<f32x4>(1.0)) loc("tvm_texture_scope.ir":12:9)' "$BATS_TEST_TMPDIR/l.ir"
	run -0 grep -F 'image2d[128, 128] loc("tvm_texture_scope.ir":8:3)' "$BATS_TEST_TMPDIR/l.ir"
	# and without the locations it is the golden
	sed 's/ loc([^)]*)//g' "$BATS_TEST_TMPDIR/l.ir" | diff -u tvm_texture_scope.out -
}

@test "flatten: an error is located in the input a pipe carries" {
	printf '%s\n' 'device @gpu = gpu(0) {texture=true}' \
		'prim @p(%A: f32[1,2,4] @gpu:texture) {' '  %A[0, 1, 3] = 2.0' '}' > "$BATS_TEST_TMPDIR/s.ir"
	run -1 --separate-stderr sh -c "ir-parse --locations '$BATS_TEST_TMPDIR/s.ir' | ir-flatten-texture"
	assert_equal "$output" ''
	assert_equal "${stderr_lines[0]}" "$BATS_TEST_TMPDIR/s.ir:3:3: error: a store to one channel of image '%A': images are written a whole texel at a time (%A[..., 0:4])"
}

