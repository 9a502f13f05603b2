#!/usr/bin/env bats
# ir-run's executor (lib/exec/): @main planned once, before the first run,
# and run as a list of commands: a later run makes no memory object and no
# kernel, memory is shared by values whose lifetimes do not meet, calls are
# inlined and ifs branch, what the plan cannot hold (recursion) runs
# through the interpreter's walk (said by --stats),
# --profile says where the host's time goes, --progress says the slow
# steps, and a kernel that cannot launch mid-run is a located error with
# nothing written.

setup() {
	load test_helper
	bats_require_minimum_version 1.5.0
	ocl_setup
	FX="$BATS_TEST_DIRNAME/ir-run-ocl"
	d=$BATS_TEST_TMPDIR
}

# block: the texture model of tests/ir-lower compiled to $d/t.ocl.ir, its
# random inputs in $args and the interpreter's result in $d/r.npy
block() {
	compiled "$BATS_TEST_DIRNAME/ir-lower/texture_block.ir" "$d/t.ocl.ir"
	args=$("$PY" "$H" inputs "$BATS_TEST_DIRNAME/ir-lower/texture_block.ir" "$d")
	ir-run --interp $args -o "$d/r.npy" "$d/t.ocl.ir"
}

@test "run_ocl_plan: runs after the plan make no memory object and no kernel; the plan's size in --stats" {
	block
	run -0 --separate-stderr ir-run --stats --repeat 3 $args -o "$d/o.npy" "$d/t.ocl.ir"
	grep -Eq '^ir-run: plan of @main: 6 steps per run \(2 launches, 0 copies on a device, 0 between devices, 3 uploads, 1 reads back, 0 ifs\), 0 made once$' <<< "$stderr"
	grep -Eq '^ir-run: plan memory: [0-9]+ objects: .*; 2 kernels$' <<< "$stderr"
	[ "$(grep -c '^ir-run: run [12] made 0 memory objects and 0 kernels$' <<< "$stderr")" = 2 ]
	# no later run says it made anything
	! grep -Eq '^ir-run: run [3-9]' <<< "$stderr"
	"$PY" "$H" same "$d/o.npy" "$d/r.npy"
	# the walk (--check) makes its objects again in every run
	run -0 --separate-stderr ir-run --check --stats --repeat 1 $args "$d/t.ocl.ir"
	grep -q "^ir-run: @main runs through the interpreter's walk: --check" <<< "$stderr"
	grep -Eq '^ir-run: run 2 made [1-9][0-9]* memory objects' <<< "$stderr"
}

@test "run_ocl_plan: buffers whose lifetimes do not meet share memory: a longer chain needs no more" {
	local n
	for n in 4 16; do
		chain_model $n "$d/c$n.ir"
		args=$("$PY" "$H" inputs "$d/c$n.ir" "$d")
		run -0 --separate-stderr ir-run --stats $args -o "$d/o$n.npy" "$d/c$n.ocl.ir"
		sed -n 's/.*: \([0-9]*\) buffers in \([0-9]*\) of \([0-9]*\) bytes.*/\1 \2 \3/p' <<< "$stderr" > "$d/pool$n"
		ir-run --interp $args -o "$d/r$n.npy" "$d/c$n.ocl.ir"
		"$PY" "$H" same "$d/o$n.npy" "$d/r$n.npy"
	done
	# 2n+1 buffers of 16 KiB each, in at most four of them
	read -r b4 n4 p4 < "$d/pool4"
	read -r b16 n16 p16 < "$d/pool16"
	[ "$b4" = 9 ] && [ "$b16" = 33 ]
	[ "$n4" = "$n16" ] && [ "$n16" -le 4 ]
	# whole buffers of 16 KiB each, not ranges of one pool
	[ "$p16" = $((n16 * 16384)) ]
	[ "$p4" = "$p16" ] && [ "$p16" -le $((4 * 16384)) ]
}

# calls_if: a module of calls and ifs (written here, not in tests/, so the
# fuzzers' mutants of tests/*.ir stay where they are) in $d/ci.ir, compiled
calls_if() {
	cat > "$d/ci.ir" <<'IR'
// Calls of functions, one called twice, with an if in the callee and
// one in @main whose arms call: ir-run's executor inlines every call
// (values of their own per call site) and plans both arms of each if.
device @cpu = cpu(0)

fn @scale(%a: f32[16], %b: f32[16]) -> f32[16] {
  %m = multiply(%a, %b)
  %s = sum(%m) {axis=[0]}
  %c = greater(%s, 0.0)
  %r = if %c {
    %e = tanh(%m)
    yield %e
  } else {
    %n = negative(%m)
    yield %n
  }
  return %r
}

fn @main(%x: f32[16], %y: f32[16]) -> (f32[16], f32[16]) {
  %p = @scale(%x, %y)
  %q = @scale(%y, %p)
  %s = sum(%x) {axis=[0]}
  %c = less(%s, 0.0)
  %r = if %c {
    %u = @scale(%p, %q)
    yield %u
  } else {
    yield %q
  }
  %t = (%r, %p)
  return %t
}
IR
	compiled "$d/ci.ir" "$d/ci.ocl.ir"
}

@test "run_ocl_plan: calls inlined and ifs in @main and in a callee, both arms of each, equal the interpreter" {
	calls_if
	local k
	# x and y random, then x negated, then zero: the ifs go both ways
	for k in 1 -1 0; do
		"$PY" -c "import numpy as np; r = np.random.default_rng(7)
np.save('$d/x.npy', ($k * r.standard_normal(16)).astype(np.float32))
np.save('$d/y.npy', r.standard_normal(16).astype(np.float32))"
		rm -rf "$d/o" "$d/r"
		mkdir -p "$d/o" "$d/r"
		run -0 --separate-stderr ir-run --stats --repeat 1 --input x="$d/x.npy" --input y="$d/y.npy" \
			-o "$d/o" "$d/ci.ocl.ir"
		grep -Eq '^ir-run: plan of @main: [0-9]+ steps per run \([0-9]+ launches, .* 4 ifs\)' <<< "$stderr"
		[ "$(grep -c '^ir-run: run [12] made 0 memory objects and 0 kernels$' <<< "$stderr")" = 2 ]
		ir-run --interp --input x="$d/x.npy" --input y="$d/y.npy" -o "$d/r" "$d/ci.ocl.ir"
		"$PY" "$H" same "$d/o" "$d/r"
	done
}

@test "run_ocl_plan: recursion runs through the interpreter's walk, says why, and equals the interpreter" {
	cat > "$d/rec.ir" <<'IR'
// A function that calls itself: only a run unrolls it, so ir-run's
// executor leaves @main to the interpreter's walk.
device @cpu = cpu(0)

fn @down(%a: f32[4], %n: f32[]) -> f32[4] {
  %c = greater(%n, 0.0)
  %r = if %c {
    %e = tanh(%a)
    %m = subtract(%n, 1.0)
    %d = @down(%e, %m)
    yield %d
  } else {
    yield %a
  }
  return %r
}

fn @main(%x: f32[4], %n: f32[]) -> f32[4] {
  %r = @down(%x, %n)
  return %r
}
IR
	compiled "$d/rec.ir" "$d/rec.ocl.ir"
	"$PY" -c "import numpy as np
np.save('$d/x.npy', np.arange(4, dtype=np.float32) / 4)
np.save('$d/n.npy', np.array(3, dtype=np.float32))"
	run -0 --separate-stderr ir-run --stats --input x="$d/x.npy" --input n="$d/n.npy" -o "$d/o.npy" "$d/rec.ocl.ir"
	grep -q "^ir-run: @main runs through the interpreter's walk: a function calls itself (recursion)$" <<< "$stderr"
	ir-run --interp --input x="$d/x.npy" --input n="$d/n.npy" -o "$d/r.npy" "$d/rec.ocl.ir"
	"$PY" "$H" same "$d/o.npy" "$d/r.npy"
}

@test "run_ocl_plan: --profile gives the host's time per run: enqueue, wait, and the plan once" {
	block
	run -0 --separate-stderr ir-run --profile --repeat 2 $args "$d/t.ocl.ir"
	grep -Eq '^ir-run: host per run: enqueue [0-9.]+ ms, wait [0-9.]+ ms, other -?[0-9.]+ ms; plan [0-9.]+ ms once$' <<< "$stderr"
	run -0 --separate-stderr ir-run --check --profile $args "$d/t.ocl.ir"
	grep -q "plan 0.000 ms once (no plan: the interpreter's walk enqueues)$" <<< "$stderr"
}

@test "run_ocl_plan: a kernel that cannot launch mid-run is a located error; nothing is written" {
	block
	# the second kernel's program asks for work groups its launch does not use
	sed 's/reqd_work_group_size(8, 16, 1))) void fused_nn_conv2d_add_nn_relu_k0/reqd_work_group_size(4, 16, 1))) void fused_nn_conv2d_add_nn_relu_k0/' \
		"$d/t.ocl.ir" > "$d/bad.ir"
	! cmp -s "$d/t.ocl.ir" "$d/bad.ir"
	run -1 --separate-stderr ir-run $args -o "$d/o.npy" "$d/bad.ir"
	[ -z "$output" ]
	[ ! -e "$d/o.npy" ]
	grep -Eq "bad.ir:[0-9]+:[0-9]+: error: cannot launch kernel @fused_nn_conv2d_add_nn_relu_k0 on @gpu$" <<< "$stderr"
	grep -q "note: OpenCL says: " <<< "$stderr"
	grep -Eq "bad.ir:[0-9]+:[0-9]+: note: in the call of @fused_nn_conv2d_add_nn_relu here$" <<< "$stderr"
	# and without -o, nothing on stdout
	run -1 --separate-stderr ir-run $args "$d/bad.ir"
	[ -z "$output" ]
}

@test "run_ocl_plan: --sync gives the same bytes as the default, through the plan" {
	block
	ir-run $args -o "$d/a.npy" "$d/t.ocl.ir"
	ir-run --sync $args -o "$d/s.npy" "$d/t.ocl.ir"
	cmp "$d/a.npy" "$d/s.npy"
	"$PY" "$H" same "$d/a.npy" "$d/r.npy"
}

@test "run_ocl_plan: --progress says the program's build and the first run, and how long each took; else nothing off a terminal" {
	block
	export XDG_CACHE_HOME=$d/cache
	run -0 --separate-stderr ir-run --progress $args -o "$d/o.npy" "$d/t.ocl.ir"
	grep -q "^ir-run: building the OpenCL program of @gpu on '.*' (not in the binary cache) \.\.\.$" <<< "$stderr"
	grep -q "^ir-run: the first run of @main (OpenCL compiles each kernel at its first launch; a later ir-run takes them from the caches) \.\.\.$" <<< "$stderr"
	[ "$(grep -Ec '^ir-run: \.\.\. took [0-9]+\.[0-9] s$' <<< "$stderr")" = 2 ]
	# from the cache: no build to say
	run -0 --separate-stderr ir-run --progress $args -o "$d/o.npy" "$d/t.ocl.ir"
	! grep -q "building" <<< "$stderr"
	grep -q "^ir-run: the first run of @main" <<< "$stderr"
	# stderr is not a terminal here: without --progress, not a word
	rm -rf "$d/cache"
	run -0 --separate-stderr ir-run $args -o "$d/o.npy" "$d/t.ocl.ir"
	! grep -Eq "building|first run|took" <<< "$stderr"
	run -2 --separate-stderr ir-run --interp --progress $args "$d/t.ocl.ir"
	[[ "$stderr" == *"--progress runs on OpenCL devices; leave out --interp"* ]]
}
