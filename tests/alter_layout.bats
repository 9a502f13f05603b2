#!/usr/bin/env bats
# ir-alter-layout: goldens (tests/ir-alter-layout/*.ir -> .out), --stats,
# the modes, errors, and that it changes no value: ir-run --interp before
# and after, also lowered to texture code, on every model of
# tests/ir-alter-layout, tests/ir-run and tests/ir-lower, on resnet18-like
# and mobilenet_v2-like models (tests/alter/models.py) and on random models
# (tests/alter/random_models.py; IRPIPE_RANDOM_SEED, IRPIPE_RANDOM_COUNT).

setup() {
	load test_helper
	D="$BATS_TEST_DIRNAME/ir-alter-layout"
	A="$BATS_TEST_DIRNAME/alter"
}

need_numpy() {
	have_python numpy || skip "python3-numpy is not installed"
}

@test "alter-layout: goldens, and a second run changes nothing" {
	for f in "$D"/*.ir; do
		ir-alter-layout "$f" > "$BATS_TEST_TMPDIR/o"
		diff -u "${f%.ir}.out" "$BATS_TEST_TMPDIR/o"
		ir-alter-layout "$BATS_TEST_TMPDIR/o" | diff -u "$BATS_TEST_TMPDIR/o" -
	done
}

@test "alter-layout: --stats says per operator what was packed and why the rest was kept" {
	for f in odd pad concat; do
		run -0 --separate-stderr ir-alter-layout --stats "$D/$f.ir"
		diff -u "$D/$f.stats" <(printf '%s\n' "$stderr")
		[ "$output" = "$(cat "$D/$f.out")" ]
	done
}

@test "alter-layout: --layout=auto packs for cpus, keeps NCHW for buffer-only gpus, NCHW4c forces, none keeps" {
	printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[1,8,4,4], %%w: f32[8,8,1,1]) {\n  %%c = nn.conv2d(%%x, %%w)\n  %%r = nn.relu(%%c)\n  return %%r\n}\n' > "$BATS_TEST_TMPDIR/c.ir"
	ir-alter-layout "$BATS_TEST_TMPDIR/c.ir" | cmp - <(ir-alter-layout --layout=NCHW4c "$BATS_TEST_TMPDIR/c.ir")
	ir-alter-layout --layout=none "$BATS_TEST_TMPDIR/c.ir" | cmp - <(ir-parse "$BATS_TEST_TMPDIR/c.ir")
	sed 's/cpu(0)/gpu(0)/' "$BATS_TEST_TMPDIR/c.ir" > "$BATS_TEST_TMPDIR/g.ir"
	ir-alter-layout --layout=auto "$BATS_TEST_TMPDIR/g.ir" | grep -q -v NCHW4c
	! ir-alter-layout "$BATS_TEST_TMPDIR/g.ir" | grep -q NCHW4c
	run -0 ir-alter-layout --layout=NCHW4c "$BATS_TEST_TMPDIR/c.ir"
	[[ "$output" == *'%c: f32[1,2,4,4,4] = nn.conv2d(%x_nchw4c, %w_oihw4o) {data_layout="NCHW4c", kernel_layout="OIHW4o", out_layout="NCHW4c"}'* ]]
	[[ "$output" == *'%r: f32[1,2,4,4,4] = nn.relu(%c)'* ]]
	[[ "$output" == *'%r_nchw: f32[1,8,4,4] on @cpu = layout_transform(%r)'* ]]
	sed 's/gpu(0)/gpu(0) {texture=true}/' "$BATS_TEST_TMPDIR/g.ir" > "$BATS_TEST_TMPDIR/t.ir"
	ir-alter-layout "$BATS_TEST_TMPDIR/t.ir" | grep -q 'data_layout="NCHW4c"'
	ir-alter-layout --layout=none "$BATS_TEST_TMPDIR/t.ir" | cmp - <(ir-parse "$BATS_TEST_TMPDIR/t.ir")
}

@test "alter-layout: a bad --layout is a usage error" {
	run -2 --separate-stderr ir-alter-layout --layout=NHWC "$D/odd.ir"
	[ -z "$output" ]
	[[ "$stderr" == *"--layout must be auto, NCHW4c or none, not 'NHWC'"* ]]
}

@test "alter-layout: placements that cannot be planned are the planner's error, at the line" {
	printf 'device @cpu = cpu(0)\ndevice @gpu = gpu(0) {texture=true}\nfn @main(%%x: f32[1,4,4,4] on @cpu) -> f32[1,4,4,4] on @cpu {\n  %%r: f32[1,4,4,4] on @gpu = nn.relu(%%x)\n  %%a = on_device(%%r, @cpu, constrain_result=true)\n  return %%a\n}\n' > "$BATS_TEST_TMPDIR/bad.ir"
	run -1 --separate-stderr ir-alter-layout "$BATS_TEST_TMPDIR/bad.ir"
	[ -z "$output" ]
	[[ "$stderr" == *"bad.ir:"*": error: "* ]]
	ir-plan-devices "$BATS_TEST_TMPDIR/bad.ir" 2>&1 >/dev/null | grep -q error
}

@test "alter-layout: the models of the test folders compute the same, also lowered to texture code" {
	need_numpy
	run "$PY" "$A/check.py" --bin "$IRPIPE_BIN" --lower "$D"/*.ir \
		"$BATS_TEST_DIRNAME"/ir-run/*.ir "$BATS_TEST_DIRNAME"/ir-lower/*.ir
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "alter-layout: resnet18 and mobilenet_v2 in NCHW equal torch, and lower to prims with activations and weights in textures" {
	need_numpy
	for m in resnet18 mobilenet_v2; do
		"$PY" "$A/models.py" $m --size 32 --div 8 > "$BATS_TEST_TMPDIR/$m.ir"
		run "$PY" "$A/check.py" --bin "$IRPIPE_BIN" --lower "$BATS_TEST_TMPDIR/$m.ir"
		echo "$output"
		[ "$status" -eq 0 ]
		# equal to torch, altered, lowered to texture code and flattened
		have_python torch || skip "python3-torch is not installed"
		run "$PY" "$A/torch_check.py" --bin "$IRPIPE_BIN" "$BATS_TEST_TMPDIR/$m.ir" \
			"ir-alter-layout | ir-plan-devices | ir-lower | ir-plan-devices | ir-flatten-texture"
		echo "$output"
		[ "$status" -eq 0 ]
		ir-alter-layout "$BATS_TEST_TMPDIR/$m.ir" | ir-plan-devices | ir-lower \
			| ir-plan-devices > "$BATS_TEST_TMPDIR/$m.low.ir"
		# every convolution reads a weight image and writes an activation image
		grep '^prim @[^(]*conv2d' "$BATS_TEST_TMPDIR/$m.low.ir" > "$BATS_TEST_TMPDIR/convs"
		n=$(wc -l < "$BATS_TEST_TMPDIR/convs")
		[ "$n" -ge 8 ]
		[ "$(grep '%p1: f32\[[0-9,]*\] @gpu:texture:weight,' "$BATS_TEST_TMPDIR/convs" | grep -c '%out: [^)]*@gpu:texture)')" -eq "$n" ]
		# and, but the first (3 input channels, read as they are), reads
		# its data from an image
		[ "$(grep -c '(%p0: f32\[[0-9,]*\] @gpu:texture,' "$BATS_TEST_TMPDIR/convs")" -eq $((n - 1)) ]
	done
}

@test "alter-layout: altered models run on OpenCL with textures as on the interpreter" {
	need_numpy
	no_leak_check   # the OpenCL driver's lasting allocations
	for m in resnet18 mobilenet_v2; do
		"$PY" "$A/models.py" $m --size 16 --div 8 > "$BATS_TEST_TMPDIR/$m.ir"
	done
	run "$PY" "$A/check.py" --bin "$IRPIPE_BIN" --mode auto --ocl "$D"/*.ir \
		"$BATS_TEST_TMPDIR/resnet18.ir" "$BATS_TEST_TMPDIR/mobilenet_v2.ir"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "alter-layout: with ir-fold-constants after it, no weight preparation runs at inference" {
	need_numpy
	no_leak_check
	cd "$BATS_TEST_TMPDIR"
	"$PY" -c 'import numpy as np; r = np.random.default_rng(1)
for n, s in (("w1", (8,4,3,3)), ("w2", (8,8,3,3)), ("b", (8,)), ("x", (1,4,8,8))):
    np.save(n + ".npy", r.uniform(-1, 1, s).astype(np.float32))'
	cat > m.ir <<'EOF'
device @gpu = gpu(0) {texture=true}
fn @main(%x: f32[1,4,8,8]) -> f32[1,8,8,8] {
  %w1 = const f32[8,4,3,3] file="w1.npy"
  %w2 = const f32[8,8,3,3] file="w2.npy"
  %b = const f32[8] file="b.npy"
  %c1 = nn.conv2d(%x, %w1) {padding=[1,1,1,1]}
  %a = nn.bias_add(%c1, %b)
  %r = nn.relu(%a)
  %c2 = nn.conv2d(%r, %w2) {padding=[1,1,1,1]}
  %s = add(%c2, %r)
  return %s
}
EOF
	ir-parse m.ir | ir-alter-layout | ir-fold-constants --data-dir=. | ir-plan-devices | ir-lower \
		| ir-plan-devices | ir-flatten-texture | ir-codegen-ocl > o.ir
	# the packed weights are constants read from images; the only transforms
	# left are of the input and the result
	[ "$(grep -c '^prim @.*conv2d.*%p1: f32\[[0-9,]*\] @gpu:texture:weight,' o.ir)" -eq 2 ]
	[ "$(grep -c '^prim @layout_transform' o.ir)" -eq 2 ]
	! grep -q '^prim @reshape' o.ir
	ir-run --interp --input x=x.npy -o ref.npy m.ir
	ir-run --check --input x=x.npy -o o.npy o.ir
	"$PY" -c 'import numpy as np, sys; a, b = np.load("ref.npy"), np.load("o.npy")
sys.exit(0 if np.abs(a - b).max() <= 1e-4 * max(1, np.abs(a).max()) else 1)'
}

@test "alter-layout: padded channels: constant weights are padded at compile time, packed data is read padded, and cut on the way out" {
	need_numpy
	no_leak_check
	cd "$BATS_TEST_TMPDIR"
	"$PY" -c 'import numpy as np; r = np.random.default_rng(2)
for n, s in (("w1", (6,3,3,3)), ("b", (6,)), ("w2", (8,6,1,1)), ("x", (1,3,8,8))):
    np.save(n + ".npy", r.uniform(-1, 1, s).astype(np.float32))'
	cat > m.ir <<'EOF'
device @gpu = gpu(0) {texture=true}
fn @main(%x: f32[1,3,8,8]) -> (f32[1,6,8,8], f32[1,8,8,8]) {
  %w1 = const f32[6,3,3,3] file="w1.npy"
  %b = const f32[6] file="b.npy"
  %w2 = const f32[8,6,1,1] file="w2.npy"
  %c1 = nn.conv2d(%x, %w1) {padding=[1,1,1,1]}
  %a = nn.bias_add(%c1, %b)
  %r = nn.relu(%a)
  %c2 = nn.conv2d(%r, %w2)
  %t = (%r, %c2)
  return %t
}
EOF
	run -0 --separate-stderr ir-alter-layout --stats m.ir
	printf '%s\n' "$output" > a.ir
	[[ "$stderr" == *"%c1: nn.conv2d on @gpu: packed: OIHW4o weight, NCHW4c result (6 channels padded to 8, cut where it is read in NCHW); data kept NCHW: 3 channels, not a multiple of 4, and not packed yet: read as it is"* ]]
	[[ "$stderr" == *"%c2: nn.conv2d on @gpu: packed: NCHW4c data (6 channels padded to 8), "* ]]
	[[ "$stderr" == *" 0 kept;"* ]]
	ir-fold-constants --data-dir=. a.ir > f.ir
	# the weights and the bias are padded and packed constants, the
	# result cut
	! grep -q '= nn.pad(' f.ir
	grep -q '%r_nchw: f32\[1,6,8,8\] on @gpu = strided_slice(%r_padded)' f.ir
	ir-plan-devices f.ir | ir-lower | ir-plan-devices | ir-flatten-texture | ir-codegen-ocl > o.ir
	# the second convolution reads the padded 8 channels from an image
	grep -q '^prim @[^(]*conv2d[^(]*(%p0: f32\[1,2,8,8,4\] @gpu:texture,' o.ir
	ir-run --interp --input x=x.npy -o ref m.ir
	ir-run --check --input x=x.npy -o o o.ir
	"$PY" -c 'import numpy as np, sys
for i in (0, 1):
    a, b = np.load("ref/%d.npy" % i), np.load("o/%d.npy" % i)
    if a.shape != b.shape or np.abs(a - b).max() > 1e-4 * max(1, np.abs(a).max()): sys.exit(1)'
}

@test "alter-layout: random models compute the same, at the graph level and lowered" {
	need_numpy
	run "$PY" "$A/random_models.py" --bin "$IRPIPE_BIN" --seed "${IRPIPE_RANDOM_SEED:-1}" \
		--count "${IRPIPE_RANDOM_COUNT:-100}"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "alter-layout: --layout=auto packs a cpu (faster there on whole models) and says so once with the figures; keeps a buffer gpu's, saying it has no textures; NCHW4c packs both" {
	cd "$BATS_TEST_TMPDIR"
	for dev in cpu gpu; do
		cat > $dev.ir <<EOF2
device @d = $dev(0)
fn @main(%x: f32[1,8,6,6], %w: f32[8,8,3,3], %g: f32[8,4,3,3]) -> f32[1,8,6,6] {
  %c = nn.conv2d(%x, %w) {padding=[1,1,1,1]}
  %r = nn.relu(%c)
  %p = nn.conv2d(%r, %g) {padding=[1,1,1,1], groups=2}
  return %p
}
EOF2
	done
	run -0 --separate-stderr ir-alter-layout --stats cpu.ir
	[ "$(grep -c 'is a cpu' <<< "$stderr")" = 1 ]
	[[ "$stderr" == *"ir-alter-layout: @d is a cpu: packed, where whole models ran as fast or faster (resnet18 37.3 / 37.8 ms, densenet121 91 / 80 in NCHW / NCHW4c)"* ]]
	[[ "$stderr" == *"%c: nn.conv2d on @d: packed"* ]]
	[[ "$stderr" == *"%p: nn.conv2d on @d: packed"* ]]
	[[ "$stderr" == *" 0 kept;"* ]]
	grep -q 'data_layout="NCHW4c"' <<< "$output"
	run -0 --separate-stderr ir-alter-layout --stats gpu.ir
	[[ "$stderr" != *"is a cpu"* ]]
	[[ "$stderr" == *"%c: nn.conv2d on @d: kept NCHW: @d has no textures"* ]]
	ir-parse gpu.ir | diff - <(printf '%s\n' "$output")
	for dev in cpu gpu; do
		run -0 --separate-stderr ir-alter-layout --layout=NCHW4c --stats $dev.ir
		[[ "$stderr" == *"%c: nn.conv2d on @d: packed"* ]]
		[[ "$stderr" != *"is a cpu"* ]]
	done
}
