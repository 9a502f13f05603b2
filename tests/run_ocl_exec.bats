#!/usr/bin/env bats
# ir-run's OpenCL executor: values stay on their devices between calls,
# every kind of copy (seen in --profile's rows), graph-level ifs and
# tuples, --sync against the asynchronous default, and --profile's table.

setup() {
	load test_helper
	bats_require_minimum_version 1.5.0
	ocl_setup
	FX="$BATS_TEST_DIRNAME/ir-run-ocl"
}

# rows PROFILE_TEXT NAME DEVICE: the calls column of that row, or nothing
calls_of() {
	awk -v n="$2" -v d="$3" '$1 ~ /^[0-9.]+$/ && $8 == d && substr($0, index($0, $8) + 11) == n { print $3 }' <<< "$1"
}

# run_both FIXTURE OUT [FLAG...]: OpenCL (with --profile and the FLAGs,
# stderr in $stderr) and the interpreter on random inputs; they must agree
run_both() {
	local d=$BATS_TEST_TMPDIR f=$1 o=$2
	shift 2
	compiled "$FX/$f.ir" "$d/$f.ocl.ir"
	args=$("$PY" "$H" inputs "$FX/$f.ir" "$d")
	if grep -q -- '-> (' "$FX/$f.ir"; then mkdir -p "$d/$o.ocl" "$d/$o.ref"; else o=$o.npy; fi
	run -0 --separate-stderr ir-run --profile "$@" $args -o "$d/${o%.npy}.ocl${o#${o%.npy}}" "$d/$f.ocl.ir"
	ir-run --interp $args -o "$d/${o%.npy}.ref${o#${o%.npy}}" "$d/$f.ocl.ir"
	"$PY" "$H" same "$d/${o%.npy}.ocl${o#${o%.npy}}" "$d/${o%.npy}.ref${o#${o%.npy}}"
}

@test "run_ocl_exec: values stay on the device: inputs uploaded once, only the result read back" {
	local d=$BATS_TEST_TMPDIR
	cp "$BATS_TEST_DIRNAME/ir-lower/texture_block.ir" "$d/t.ir"
	grep -q 'texture=true' "$d/t.ir"
	compiled "$d/t.ir" "$d/t.ocl.ir"
	args=$("$PY" "$H" inputs "$d/t.ir" "$d")
	run -0 --separate-stderr ir-run --profile $args -o "$d/o.npy" "$d/t.ocl.ir"
	# three inputs straight into images, one result out, two calls between
	[ "$(calls_of "$stderr" "copy host->image" @gpu)" = 3 ]
	[ "$(calls_of "$stderr" "copy image->host" @gpu)" = 1 ]
	[ "$(grep -c ' copy ' <<< "$stderr")" = 2 ]
	ir-run --interp $args -o "$d/r.npy" "$d/t.ocl.ir"
	"$PY" "$H" same "$d/o.npy" "$d/r.npy"
}

@test "run_ocl_exec: buffer <-> image on one device, host -> image, buffer -> host" {
	run_both copy_scopes o
	[ "$(calls_of "$stderr" "copy host->image" @gpu)" = 1 ]
	[ -n "$(calls_of "$stderr" "copy image->buffer" @gpu)" ]
	[ -n "$(calls_of "$stderr" "copy buffer->image" @gpu)" ]
	[ "$(calls_of "$stderr" "copy buffer->host" @gpu)" = 1 ]
	# nothing else went through the host
	[ "$(grep -c ' copy .*host' <<< "$stderr")" = 2 ]
}

@test "run_ocl_exec: an image copied to a texture scope of another width goes through a buffer" {
	run_both copy_texture_scopes o
	[ "$(calls_of "$stderr" "copy image->buffer" @gpu)" = 1 ]
	[ "$(calls_of "$stderr" "copy buffer->image" @gpu)" = 1 ]
}

@test "run_ocl_exec: between devices of different contexts (--host-copies) through host memory" {
	run_both copy_devices o --host-copies
	# @gpu's image -> host -> @cpu's buffer, and back
	[ "$(calls_of "$stderr" "copy image->host" @gpu)" = 2 ]
	[ "$(calls_of "$stderr" "copy host->buffer" @cpu)" = 3 ]
	[ "$(calls_of "$stderr" "copy buffer->host" @cpu)" = 2 ]
	[ "$(calls_of "$stderr" "copy host->image" @gpu)" = 2 ]
}

@test "run_ocl_exec: between declared devices on one OpenCL device (one context): copy commands, nothing through the host; --peer-copies alike" {
	# here @cpu and @gpu are both POCL's cpu: one context, a queue each
	run_both copy_devices o
	run_both copy_devices o --peer-copies
	# @gpu's image -> @cpu's buffer (twice), on @gpu's queue; @cpu's
	# buffer -> @gpu's image, on @cpu's
	[ "$(calls_of "$stderr" "copy image->buffer" @gpu)" = 2 ]
	[ "$(calls_of "$stderr" "copy buffer->image" @cpu)" = 1 ]
	[ -z "$(calls_of "$stderr" "copy image->host" @gpu)" ]
	[ -z "$(calls_of "$stderr" "copy host->buffer" @gpu)" ]
	# only the inputs come from the host, and the result goes back
	[ "$(calls_of "$stderr" "copy host->image" @gpu)" = 1 ]
	[ "$(calls_of "$stderr" "copy host->buffer" @cpu)" = 1 ]
	[ "$(calls_of "$stderr" "copy buffer->host" @cpu)" = 1 ]
	# the interpreter's walk (--check, which also reads every call's
	# results back to compare them) copies the same way, and equals
	run -0 --separate-stderr ir-run --check --profile $args "$BATS_TEST_TMPDIR/copy_devices.ocl.ir"
	[ "$(calls_of "$stderr" "copy image->buffer" @gpu)" = 2 ]
	[ "$(calls_of "$stderr" "copy buffer->image" @cpu)" = 1 ]
	# and --repeat runs: each run's copies ordered on both queues
	ir-run --repeat 5 $args -o "$BATS_TEST_TMPDIR/r.npy" "$BATS_TEST_TMPDIR/copy_devices.ocl.ir"
	"$PY" "$H" same "$BATS_TEST_TMPDIR/r.npy" "$BATS_TEST_TMPDIR/o.ref.npy"
	# a copy into memory of its own waits for nothing on the target's
	# queue (%b, @cpu's first buffer); into memory an earlier value held,
	# for the target's earlier commands (%d takes %a's image, %f %b's buffer)
	run -0 --separate-stderr ir-run --stats --repeat 3 $args -o "$BATS_TEST_TMPDIR/r.npy" \
		"$BATS_TEST_TMPDIR/copy_devices.ocl.ir"
	grep -qx "ir-run: copies between devices of one context: 3, 2 of them after the target's earlier commands (into memory that held an earlier value)" <<< "$stderr"
	"$PY" "$H" same "$BATS_TEST_TMPDIR/r.npy" "$BATS_TEST_TMPDIR/o.ref.npy"
	# through the host (--host-copies) there is no such copy to count
	run -0 --separate-stderr ir-run --stats --host-copies $args "$BATS_TEST_TMPDIR/copy_devices.ocl.ir"
	! grep -q "copies between devices of one context" <<< "$stderr"
}

@test "run_ocl_exec: an if on a condition a kernel computed, with tuples; --check passes" {
	run_both if_tuple o
	run -0 ir-run --check $args "$BATS_TEST_TMPDIR/if_tuple.ocl.ir"
}

@test "run_ocl_exec: --sync gives the same bytes as the asynchronous default" {
	local d=$BATS_TEST_TMPDIR f
	for f in copy_scopes copy_devices; do
		compiled "$FX/$f.ir" "$d/$f.ocl.ir"
		args=$("$PY" "$H" inputs "$FX/$f.ir" "$d")
		ir-run $args -o "$d/$f.a.npy" "$d/$f.ocl.ir"
		ir-run --sync $args -o "$d/$f.s.npy" "$d/$f.ocl.ir"
		cmp "$d/$f.a.npy" "$d/$f.s.npy"
	done
}

@test "run_ocl_exec: --profile: columns, every kernel named, sorted by time, the wall line" {
	local d=$BATS_TEST_TMPDIR
	compiled "$FX/copy_devices.ir" "$d/m.ir"
	args=$("$PY" "$H" inputs "$d/m.ir" "$d")
	run -0 --separate-stderr ir-run --profile --repeat 2 $args -o "$d/o.npy" "$d/m.ir"
	grep -q "^ir-run: profile of 2 runs" <<< "$stderr"
	grep -Eq '^ +total_ms +share +calls +mean_us +flop/call +GFLOP/s +GB/s +device +kernel_or_copy$' <<< "$stderr"
	for k in $(grep -o 'kernel @[A-Za-z0-9_.]*' "$d/m.ir" | cut -d' ' -f2); do
		[ "$(calls_of "$stderr" "$k" @cpu)$(calls_of "$stderr" "$k" @gpu)" = 2 ]
	done
	# sorted by total time, largest first
	awk '$1 ~ /^[0-9.]+$/ { print $1 }' <<< "$stderr" > "$d/t"
	[ -s "$d/t" ]
	sort -g -r "$d/t" | cmp - "$d/t"
	# GFLOP/s only for kernels, GB/s only for copies
	awk '$1 ~ /^[0-9.]+$/ && $9 == "copy" && ($5 != "-" || $6 != "-") { exit 1 }
	     $1 ~ /^[0-9.]+$/ && $9 ~ /^@/ && ($5 == "-" || $6 == "-" || $7 != "-") { exit 1 }' <<< "$stderr"
	grep -Eq '^ir-run: wall [0-9.]+ ms; @cpu busy [0-9.]+ ms \(kernels [0-9.]+, copies [0-9.]+\); @gpu busy .*; overlapped [0-9.]+ ms$' <<< "$stderr"
	[[ "$stderr" =~ ir-run:\ 2\ runs,\ median ]]
}

@test "run_ocl_exec: --profile counts a kernel's flops from its loop nest: 2*M*N*K for dense and batch_matmul" {
	local d=$BATS_TEST_TMPDIR
	compiled "$BATS_TEST_DIRNAME/ir-lower/matmul_cpu.ir" "$d/m.ir"
	args=$("$PY" "$H" inputs "$d/m.ir" "$d")
	mkdir -p "$d/o"
	run -0 --separate-stderr ir-run --profile $args -o "$d/o" "$d/m.ir"
	# dense 8x12 . 32x12 -> 8x32 and batch_matmul 2x8x6 . 1x24x6 -> 2x8x24:
	# every kernel of each prim summed (a transpose or a relu adds no
	# multiply-adds; padding may add a little)
	for p in dense:6144 batch_matmul:4608; do
		n=$(awk -v k="${p%%:*}" '$1 ~ /^[0-9.]+$/ && $9 ~ k { s += $5 } END { print s + 0 }' <<< "$stderr")
		[ "$n" -ge "${p#*:}" ] && [ "$n" -le $(( ${p#*:} * 5 / 4 )) ] || { echo "$p: $n"; return 1; }
	done
}

@test "run_ocl_exec: the walk gives a value's device memory back after its last use: the peak does not grow with a chain's length" {
	local d=$BATS_TEST_TMPDIR n
	for n in 4 16; do
		chain_model $n "$d/c$n.ir"
		[ "$(grep -c call_lowered "$d/c$n.ocl.ir")" = $((2 * n)) ]
		args=$("$PY" "$H" inputs "$d/c$n.ir" "$d")
		# the walk (no plan, as --no-keep-constants asks), whose rt_live.c
		# frees values; the plan's pool is run_ocl_plan.bats's
		run -0 --separate-stderr ir-run --no-keep-constants --profile $args -o "$d/o$n.npy" "$d/c$n.ocl.ir"
		sed -n 's/.*other buffers and images peak \([0-9]*\) bytes/\1/p' <<< "$stderr" > "$d/peak$n"
		ir-run --interp $args -o "$d/r$n.npy" "$d/c$n.ocl.ir"
		"$PY" "$H" same "$d/o$n.npy" "$d/r$n.npy"
	done
	[ -s "$d/peak4" ] && cmp "$d/peak4" "$d/peak16"
}

@test "run_ocl_exec: a large copy through host memory goes in pieces, each written as it arrives" {
	# 16 MiB and 4 KiB: two pieces of 8 MiB and one of 4 KiB each way
	local d=$BATS_TEST_TMPDIR n=4195328
	cat > "$d/big.ir" <<-EOF
	device @cpu = cpu(0)
	device @gpu = gpu(0)
	host @cpu
	fn @main(%x: f32[$n] on @cpu) -> f32[$n] on @cpu {
	  %a: f32[$n] on @cpu = exp(%x)
	  %b = device_copy(%a, @cpu -> @gpu)
	  %c: f32[$n] on @gpu = nn.relu(%b)
	  %d = device_copy(%c, @gpu -> @cpu)
	  %e: f32[$n] on @cpu = add(%d, %x)
	  return %e
	}
	EOF
	compiled "$d/big.ir" "$d/big.ocl.ir"
	args=$("$PY" "$H" inputs "$d/big.ir" "$d")
	run -0 --separate-stderr ir-run --profile --host-copies $args -o "$d/o.npy" "$d/big.ocl.ir"
	[ "$(calls_of "$stderr" "copy buffer->host" @cpu)" = 4 ]   # and the result
	[ "$(calls_of "$stderr" "copy host->buffer" @gpu)" = 3 ]
	[ "$(calls_of "$stderr" "copy buffer->host" @gpu)" = 3 ]
	[ "$(calls_of "$stderr" "copy host->buffer" @cpu)" = 4 ]   # and the input
	ir-run --interp $args -o "$d/r.npy" "$d/big.ocl.ir"
	"$PY" "$H" same "$d/o.npy" "$d/r.npy"
	# staged in pinned memory (POCL gives it)
	run -0 --separate-stderr ir-run --stats --host-copies $args -o "$d/o2.npy" "$d/big.ocl.ir"
	grep -Fx "ir-run: copies between devices through host memory: 2 in 6 pieces, 2 of them staged in pinned host memory" <<< "$stderr"
	cmp "$d/o.npy" "$d/o2.npy"
}

@test "run_ocl_exec: --host-copies with --peer-copies is a usage error" {
	run -2 --separate-stderr ir-run --host-copies --peer-copies "$FX/copy_devices.ir"
	[ "${stderr_lines[0]}" = "ir-run: --host-copies and --peer-copies contradict each other; give one" ]
	[ -z "$output" ]
}

@test "run_ocl_exec: --sync and --profile are for OpenCL, not --interp" {
	run -2 --separate-stderr ir-run --interp --sync "$FX/if_tuple.ir"
	[[ "$stderr" == *"--sync runs on OpenCL devices; leave out --interp"* ]]
	run -2 --separate-stderr ir-run --interp --profile "$FX/if_tuple.ir"
	[[ "$stderr" == *"--profile runs on OpenCL devices; leave out --interp"* ]]
}

# pools FILE: FILE with two pools any device may use, aligned for any
# OpenCL device's sub-buffers (128 bytes: POCL's CL_DEVICE_MEM_BASE_ADDR_ALIGN)
pools() {
	awk '/^fn / && !p { print "pool @arena {size=16777216, alignment=128}"
		print "pool @consts {size=16777216, kind=\"constant\", alignment=128}"; p = 1 } { print }' "$1"
}

@test "run_ocl_exec: a memory plan runs in pools (sub-buffers) and shared images and equals the unplanned run" {
	local d=$BATS_TEST_TMPDIR f n o pooled=0 imaged=0
	for f in "$BATS_TEST_DIRNAME"/ir-run/*.ir "$BATS_TEST_DIRNAME"/ir-lower/texture_block.ir; do
		n=$(basename "$f" .ir)
		pools "$f" > "$d/$n.ir"
		ir-plan-devices "$d/$n.ir" | ir-lower | ir-plan-devices | ir-flatten-texture > "$d/$n.flat.ir"
		ir-codegen-ocl "$d/$n.flat.ir" > "$d/$n.u.ir"
		ir-plan-memory "$d/$n.flat.ir" | ir-codegen-ocl > "$d/$n.p.ir"
		args=$("$PY" "$H" inputs "$f" "$d")
		o=npy
		if grep -q -- '-> (' "$f"; then o=dir; mkdir -p "$d/$n.u.dir" "$d/$n.p.dir"; fi
		ir-run $args -o "$d/$n.u.$o" "$d/$n.u.ir"
		run -0 --separate-stderr ir-run --profile $args -o "$d/$n.p.$o" "$d/$n.p.ir"
		"$PY" "$H" same "$d/$n.p.$o" "$d/$n.u.$o" || { echo "$n: differs"; return 1; }
		if grep -q ' in @arena\[' "$d/$n.p.ir"; then
			[[ "$stderr" =~ memory\ on\ @[a-z]+:\ pool\ @arena\ 16777216\ bytes,\ [1-9][0-9]*\ used ]]
			pooled=$((pooled + 1))
		fi
		if grep -q ' in image2d(' "$d/$n.p.ir"; then
			[[ "$stderr" =~ planned\ images\ [1-9][0-9]*\ bytes ]]
			imaged=$((imaged + 1))
		fi
	done
	[ $pooled -ge 2 ] && [ $imaged -ge 1 ]
}

@test "run_ocl_exec: a view (a reshape ir-lower left) is its operand's buffer: no kernel, and the buffer lives while the view is used, planned or not (issue 23, item 3)" {
	local d=$BATS_TEST_TMPDIR dev
	# %a's buffer is read through %v after min made a buffer of its size:
	# were it given back at %v, %c would take it; a view is a result too
	cat > "$d/v.ir" <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[4,16]) -> (f32[4], f32[4,4]) {
  %a = sum(%x) {axis=[1], keepdims=true}
  %v = reshape(%a) {newshape=[4]}
  %c = min(%x) {axis=[1]}
  %b = max(%x) {axis=[1]}
  %s = add(%b, %c)
  %e = multiply(%s, %v)
  %h = mean(%x) {axis=[0]}
  %g = reshape(%h) {newshape=[4, 4]}
  %t = (%e, %g)
  return %t
}
IR
	args=$("$PY" "$H" inputs "$d/v.ir" "$d")
	mkdir -p "$d/r" "$d/u" "$d/p"
	ir-run --interp $args -o "$d/r" "$d/v.ir"
	for dev in cpu gpu tex; do
		retarget $dev "$d/v.ir" > "$d/$dev.ir"
		ir-plan-devices "$d/$dev.ir" | ir-lower | ir-plan-devices | ir-flatten-texture > "$d/flat.ir"
		grep -q '= reshape(%a)' "$d/flat.ir"
		grep -q '= reshape(%h)' "$d/flat.ir"
		ir-codegen-ocl "$d/flat.ir" > "$d/u.ir"
		ir-plan-memory "$d/flat.ir" | ir-codegen-ocl > "$d/p.ir"
		run -0 --separate-stderr ir-run --stats --profile $args -o "$d/u" "$d/u.ir"
		# planned, not walked: 4 kernels, none for the views
		[[ "$stderr" == *"(4 launches, 0 copies on a device, 0 between devices, 1 uploads, 2 reads back, 0 ifs)"* ]]
		refute_output --partial reshape
		"$PY" "$H" same "$d/u" "$d/r"
		ir-run $args -o "$d/p" "$d/p.ir"
		"$PY" "$H" same "$d/p" "$d/r"
	done
}

@test "run_ocl_exec: the standard pipeline with ir-plan-memory's own pools runs every model and equals the interpreter" {
	local d=$BATS_TEST_TMPDIR f n o r own=0 pairs=() ins=()
	# compiled all at once (a module a part: the same bytes as alone), or,
	# if that fails, one by one, which names the module
	for f in "$BATS_TEST_DIRNAME"/ir-lower/*.ir "$BATS_TEST_DIRNAME"/ir-run/*.ir; do
		n=$(basename "$(dirname "$f")")-$(basename "$f" .ir)
		cp "$f" "$d/$n.src.ir"
		ins+=("$d/$n.src.ir")
	done
	join_parts "${ins[@]}" > "$d/all.ir"
	if ! { ( set -o pipefail
		ir-plan-devices --split-input-file "$d/all.ir" | ir-lower --split-input-file \
			| ir-plan-devices --split-input-file | ir-flatten-texture --split-input-file \
			| ir-plan-memory --split-input-file | ir-codegen-ocl --split-input-file \
			> "$d/all.out" ) 2> /dev/null && split_parts "$d/all.out" .ir "${ins[@]%.src.ir}.ir"; }; then
		for f in "${ins[@]}"; do
			ir-plan-devices "$f" | ir-lower | ir-plan-devices | ir-flatten-texture | ir-plan-memory \
				| ir-codegen-ocl > "${f%.src.ir}.ir"
		done
		echo "the modules compile one by one, not as the parts of one input"
		return 1
	fi
	for f in "$BATS_TEST_DIRNAME"/ir-lower/*.ir "$BATS_TEST_DIRNAME"/ir-run/*.ir; do
		n=$(basename "$(dirname "$f")")-$(basename "$f" .ir)
		args=$("$PY" "$H" inputs "$f" "$d")
		o=$d/$n.o.npy r=$d/$n.r.npy
		if grep -q -- '-> (' "$f"; then o=$d/$n.o r=$d/$n.r; mkdir -p "$o" "$r"; fi
		run -0 --separate-stderr ir-run --profile $args -o "$o" "$d/$n.ir"
		# offsets of 16-byte alignment that POCL cannot take get memory of their own
		if [[ "$stderr" =~ [1-9][0-9]*\ buffers\ planned\ in\ @workspace\.[a-z]+\ at\ offsets\ not\ a\ multiple\ of ]]; then
			own=$((own + 1))
		fi
		ir-run --interp $args -o "$r" "$d/$n.ir"
		pairs+=("$o" "$r")
	done
	# every model's result against the interpreter's, in one process
	"$PY" "$H" same "${pairs[@]}"
	[ $own -ge 1 ]
}

@test "run_ocl_exec: a callee that returns its parameter, a copied tuple, planned in sub-buffers, equal the interpreter (check.py --ocl seeds 586, 1918)" {
	# neither has a place: the result is the operand's sub-buffer, which
	# the plan keeps alive while the result is read
	local d=$BATS_TEST_TMPDIR f n
	for n in calls tuple_copy; do
		f=$BATS_TEST_DIRNAME/ir-plan-memory/$n.ir
		ir-plan-devices "$f" | ir-lower --no-fuse | ir-plan-devices | ir-flatten-texture \
			| ir-plan-memory | ir-codegen-ocl > "$d/$n.p.ir"
		grep -q ' in @arena\[' "$d/$n.p.ir"
		args=$("$PY" "$H" inputs "$f" "$d")
		run -0 --separate-stderr ir-run --check --profile $args -o "$d/$n.o.npy" "$d/$n.p.ir"
		[[ "$stderr" =~ pool\ @arena\ 4096\ bytes,\ [1-9][0-9]*\ used ]]
		ir-run --interp $args -o "$d/$n.r.npy" "$f"
		"$PY" "$H" same "$d/$n.o.npy" "$d/$n.r.npy" || { echo "$n: differs"; return 1; }
	done
}

@test "run_ocl_exec: a planned offset the device cannot take as a sub-buffer is an error in words" {
	local d=$BATS_TEST_TMPDIR
	printf 'device @cpu = cpu(0)\npool @small {size=1024, alignment=16}\nfn @main(%%x: f32[4]) -> f32[4] {\n  %%a = nn.relu(%%x)\n  %%b = exp(%%a)\n  %%c = add(%%a, %%b)\n  %%e = negative(%%c)\n  return %%e\n}\n' > "$d/a.ir"
	ir-plan-devices "$d/a.ir" | ir-lower --no-fuse | ir-plan-devices | ir-flatten-texture \
		| ir-plan-memory | ir-codegen-ocl > "$d/a.p.ir"
	grep -Eq ' in @small\[(16|32|48|64|80|96|112)\]' "$d/a.p.ir"
	args=$("$PY" "$H" inputs "$d/a.ir" "$d")
	run -1 --separate-stderr ir-run $args -o "$d/o.npy" "$d/a.p.ir"
	[[ "$stderr" == *"a.p.ir:"*": error: '%"*"' is planned at offset "*" of pool @small, but '"*"' of @cpu puts a buffer only at multiples of "*" bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN): declare the pool with alignment="* ]]
	[ ! -e "$d/o.npy" ]
}

@test "run_ocl_exec: --check takes an infinity as equal to itself and f16 within its precision" {
	local d=$BATS_TEST_TMPDIR
	printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[8], %%h: f16[4,64]) -> (f32[8], f16[4,64]) {\n  %%e = exp(%%x)\n  %%s = nn.softmax(%%h) {axis=1}\n  %%t = (%%e, %%s)\n  return %%t\n}\n' > "$d/m.ir"
	compiled "$d/m.ir" "$d/m.ocl.ir"
	"$PY" -c 'import numpy as np, sys
np.save(sys.argv[1], np.array([1, 100, -3, 200, 0, 2, 300, -100], np.float32))
np.save(sys.argv[2], (np.random.default_rng(38).standard_normal((4, 64)) * 3).astype(np.float16))' "$d/x.npy" "$d/h.npy"
	mkdir -p "$d/o"
	run -0 --separate-stderr ir-run --check --input x="$d/x.npy" --input h="$d/h.npy" -o "$d/o" "$d/m.ocl.ir"
}

@test "run_ocl_exec: a value in a texture scope that cannot be an image is a buffer" {
	local d=$BATS_TEST_TMPDIR
	# rank 2 and u8: no image; the copies keep the bytes
	printf 'device @gpu = gpu(0) {texture=true}\nfn @main(%%x: f32[4,8] on @gpu, %%y: u8[2,3,4,4] on @gpu) -> (f32[4,8], u8[2,3,4,4]) {\n  %%a = exp(%%x)\n  %%b = device_copy(%%a, @gpu:global -> @gpu:texture)\n  %%c = device_copy(%%b, @gpu:texture -> @gpu:global)\n  %%n = nn.relu(%%c)\n  %%u = device_copy(%%y, @gpu:global -> @gpu:texture)\n  %%v = device_copy(%%u, @gpu:texture -> @gpu:global)\n  %%t = (%%n, %%v)\n  return %%t\n}\n' > "$d/m.ir"
	compiled "$d/m.ir" "$d/m.ocl.ir"
	args=$("$PY" "$H" inputs "$d/m.ir" "$d")
	mkdir -p "$d/o" "$d/r"
	run -0 --separate-stderr ir-run --profile $args -o "$d/o" "$d/m.ocl.ir"
	[[ "$stderr" != *"copy buffer->image"* ]]
	ir-run --interp $args -o "$d/r" "$d/m.ocl.ir"
	"$PY" "$H" same "$d/o" "$d/r"
}

@test "run_ocl_exec: random models through the whole pipeline, planned and not, pass --check on every device" {
	local d=$BATS_TEST_TMPDIR s m args binds p n out
	# seeds whose plans copy within one pool and between texture scopes
	for s in 1 26 42 49; do
		m=$d/$s
		mkdir -p "$m"
		"$PY" "$BATS_TEST_DIRNAME/gen/gen.py" --legacy "$s" "$m" > /dev/null
		args=
		for p in "$m"/*.npy; do
			n=$(basename "$p" .npy)
			if grep -q "%$n:" "$m/model.ir"; then args="$args --input $n=$p"; fi
		done
		ir-parse "$m/model.ir" | ir-plan-devices | ir-lower | ir-plan-devices | ir-flatten-texture \
			> "$m/flat.ir"
		ir-codegen-ocl "$m/flat.ir" > "$m/u.ir"
		ir-plan-memory "$m/flat.ir" | ir-codegen-ocl > "$m/p.ir"
		# every declared device on POCL, whatever its kind and index
		binds=$(sed -n 's/^device @\([A-Za-z0-9_]*\) .*/--device @\1=Portable/p' "$m/u.ir")
		for f in u p; do
			out=$m/$f.o
			if grep -q -- '-> (' "$m/u.ir"; then mkdir -p "$out"; else out=$out.npy; fi
			ir-run --check $binds $args --data-dir "$m" -o "$out" "$m/$f.ir" ||
				{ echo "seed $s ($f) fails"; return 1; }
		done
	done
}
