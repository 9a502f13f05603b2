#!/usr/bin/env bats
# ir-plan-devices: golden outputs (TVM's PlanDevices catalog and our own
# rules), idempotence, diagnostics, options.

setup() {
	load test_helper
}

@test "plan: TVM test_plain" { golden ir-plan-devices tvm_plain; }
@test "plan: TVM test_left_add_on_cpu" { golden ir-plan-devices tvm_left_add_on_cpu; }
@test "plan: TVM test_left_add_on_cpu_via_copy" { golden ir-plan-devices tvm_left_add_on_cpu_via_copy; }
@test "plan: TVM test_both_adds_on_cpu" { golden ir-plan-devices tvm_both_adds_on_cpu; }
@test "plan: TVM test_sharing" { golden ir-plan-devices tvm_sharing; }
@test "plan: TVM test_func_param_on_cpu" { golden ir-plan-devices tvm_func_param_on_cpu; }
@test "plan: TVM test_func_result_on_cpu" { golden ir-plan-devices tvm_func_result_on_cpu; }
@test "plan: TVM test_device_copy" { golden ir-plan-devices tvm_device_copy; }
@test "plan: TVM test_redundant_annotation" { golden ir-plan-devices tvm_redundant_annotation; }
@test "plan: TVM test_annotate_expr" { golden ir-plan-devices tvm_annotate_expr; }
@test "plan: TVM test_annotate_all" { golden ir-plan-devices tvm_annotate_all; }
@test "plan: TVM test_conv_network" { golden ir-plan-devices tvm_conv_network; }
@test "plan: TVM test_tuple_get_item (project before copying)" { golden ir-plan-devices tvm_tuple_get_item; }
@test "plan: TVM test_propogation" { golden ir-plan-devices tvm_propagation; }
@test "plan: TVM test_fusible_network" { golden ir-plan-devices tvm_fusible_network; }
@test "plan: TVM test_unpropagatable_graph" { golden ir-plan-devices tvm_unpropagatable_graph; }
@test "plan: TVM test_conditional (if arms and condition share)" { golden ir-plan-devices tvm_conditional; }
@test "plan: TVM test_global (constraints cross functions)" { golden ir-plan-devices tvm_global; }
@test "plan: TVM test_free_on_device (scopes)" { golden ir-plan-devices tvm_free_on_device; }
@test "plan: TVM test_lowered (scopes flow out of and into a prim)" { golden ir-plan-devices tvm_lowered; }
@test "plan: TVM test_stack_overflow (1555-add chain)" { golden ir-plan-devices tvm_stack_overflow; }
@test "plan: TVM test_conflicated_inputs (issue 15019: copy, not abort)" { golden ir-plan-devices tvm_conflicted_inputs; }
@test "plan: tuple fields share the tuple's placement" { golden ir-plan-devices tuple_fields; }
@test "plan: an open scope is not global" { golden ir-plan-devices global_vs_open; }
@test "plan: texture kernels in a row need no copy" { golden ir-plan-devices texture_chain; }
@test "plan: a value used on two devices is copied once per device" { golden ir-plan-devices copy_once; }
@test "plan: open prim scopes are filled from the caller" { golden ir-plan-devices scope_flows_in; }
@test "plan: free on_device copies where it cannot join" { golden ir-plan-devices free_copy; }
@test "plan: result-only on_device" { golden ir-plan-devices result_only; }
@test "plan: parameters follow the function's result" { golden ir-plan-devices params_follow_result; }
@test "plan: copies in if arms stay in their arm" { golden ir-plan-devices copy_in_arm; }
@test "plan: a call_lowered result placed apart from its buffer is copied, keeping its name" { golden ir-plan-devices result_copy_point; }
@test "plan: a call_lowered with two results is a copy point too" { golden ir-plan-devices tuple_result_copy_point; }
@test "plan: a copy's name already taken gets a suffix" { golden ir-plan-devices copy_names_taken; }
@test "plan: copies go in the innermost block holding their uses, one per value and device" {
	golden ir-plan-devices copy_innermost_block
}

@test "plan: a split lowered under on_device before any planning is copied to its texture" {
	cat > "$BATS_TEST_TMPDIR/split.ir" <<'IR'
device @gpu = gpu(0) {texture=true}
fn @main(%x: f32[1,4,8,8,4]) -> f32[1,2,8,8,4] {
  %s = split(%x) {indices_or_sections=2, axis=1}
  %t = on_device(%s, @gpu:texture)
  %a = %t.0
  %b = %t.1
  %d = add(%a, %b)
  return %d
}
IR
	# lowered first, then planned; and planned, lowered, planned again
	ir-lower "$BATS_TEST_TMPDIR/split.ir" > "$BATS_TEST_TMPDIR/l1.ir"
	run -0 ir-plan-devices "$BATS_TEST_TMPDIR/l1.ir"
	assert_line --partial '%s_in_global: (f32[1,2,8,8,4], f32[1,2,8,8,4]) on @gpu:global = call_lowered @split(%x)'
	assert_line --partial '%s: (f32[1,2,8,8,4], f32[1,2,8,8,4]) on @gpu:texture = device_copy(%s_in_global, @gpu:global -> @gpu:texture)'
	ir-plan-devices "$BATS_TEST_TMPDIR/split.ir" | ir-lower > "$BATS_TEST_TMPDIR/l2.ir"
	ir-plan-devices "$BATS_TEST_TMPDIR/l2.ir" > "$BATS_TEST_TMPDIR/p2.ir"
	grep -q 'device_copy(%s_in_global, @gpu:global -> @gpu:texture)' "$BATS_TEST_TMPDIR/p2.ir"
	ir-plan-devices "$BATS_TEST_TMPDIR/p2.ir" | cmp - "$BATS_TEST_TMPDIR/p2.ir"
}

@test "plan: a copy needed only 1000 ifs deep is made there, not before the ifs" {
	awk 'BEGIN {
		n = 1000
		print "device @cpu = cpu(0)"; print "device @gpu = gpu(0)"; print "default @gpu"
		print "fn @main(%c: bool[] on @cpu, %x: f32[4] on @cpu) -> f32[4] on @cpu {"
		for (i = 0; i < n; i++) printf "%%r%d = if %%c {\n", i
		print "%v: f32[4] on @gpu = negative(%x)"; print "%u = on_device(%v, @cpu, constrain_body=false, constrain_result=true)"; print "yield %u"
		for (i = n - 1; i >= 0; i--) {
			print "} else {"; print "yield %x"; print "}"
			if (i > 0) printf "yield %%r%d\n", i
		}
		print "return %r0"; print "}"
	}' > "$BATS_TEST_TMPDIR/deep.ir"
	ir-plan-devices "$BATS_TEST_TMPDIR/deep.ir" > "$BATS_TEST_TMPDIR/deep.out"
	# the copy of %x is the first binding of the innermost arm
	run grep -A1 '%r999: f32\[4\] on @cpu = if %c {' "$BATS_TEST_TMPDIR/deep.out"
	assert_line --index 1 --partial '%x_to_gpu: f32[4] on @gpu = device_copy(%x, @cpu -> @gpu)'
	run grep -c 'device_copy' "$BATS_TEST_TMPDIR/deep.out"
	assert_output 2
	ir-plan-devices "$BATS_TEST_TMPDIR/deep.out" | cmp - "$BATS_TEST_TMPDIR/deep.out"
}

@test "plan: TVM PR 11878: a global output joins an open scope, copies only from texture" { golden ir-plan-devices tvm_11878_global_output; }

@test "plan: TVM issue 10857: ifs nested 10,000 deep plan without recursion" {
	awk 'BEGIN {
		n = 10000
		print "device @cpu = cpu(0)"; print "device @gpu = gpu(0)"; print "default @gpu"
		print "fn @main(%c: bool[], %x: f32[4] on @cpu) {"
		for (i = 0; i < n; i++) printf "%%r%d = if %%c {\n", i
		print "%v = negative(%x)"; print "%w = on_device(%v, @gpu)"; print "%u = negative(%w)"; print "yield %u"
		for (i = n - 1; i >= 0; i--) {
			print "} else {"; print "yield %x"; print "}"
			if (i > 0) printf "yield %%r%d\n", i
		}
		print "return %r0"; print "}"
	}' > "$BATS_TEST_TMPDIR/deep.ir"
	ir-plan-devices "$BATS_TEST_TMPDIR/deep.ir" > "$BATS_TEST_TMPDIR/deep.out"
	run grep -c 'device_copy' "$BATS_TEST_TMPDIR/deep.out"
	assert_output 2
	ir-plan-devices "$BATS_TEST_TMPDIR/deep.out" | cmp - "$BATS_TEST_TMPDIR/deep.out"
}

@test "plan: errors name both conflicting constraints" {
	run -0 ir-plan-devices --verify-diagnostics "$BATS_TEST_DIRNAME/ir-plan-devices/errors.ir" --split-input-file
}

@test "plan: conflicting annotations exit 1 with nothing on stdout" {
	run -1 --separate-stderr ir-plan-devices - <<'IR'
device @cpu = cpu(0)
device @gpu = gpu(0)
fn @main(%x: f32[4] on @cpu) {
  %0 = on_device(%x, @gpu)
  return %0
}
IR
	assert_output ''
	assert_equal "${stderr_lines[0]}" "<stdin>:4:3: error: conflicting placements for '%x': @cpu and @gpu"
	assert_equal "${stderr_lines[3]}" "<stdin>:3:10: note: @cpu is required here"
}

@test "plan: --default overrides the module's default device" {
	run -0 ir-plan-devices --default=@cpu "$BATS_TEST_DIRNAME/ir-plan-devices/tvm_plain.ir"
	assert_line --partial 'fn @main(%a: f32[5,7] on @cpu, %b: f32[5,7] on @cpu'
	run -1 --separate-stderr ir-plan-devices --default=@tpu "$BATS_TEST_DIRNAME/ir-plan-devices/tvm_plain.ir"
	assert_output ''
	assert_equal "${stderr_lines[0]}" "ir-plan-devices: error: --default names '@tpu', which is not a declared device"
}

@test "plan: --stats counts placements and copies on stderr" {
	run -0 --separate-stderr ir-plan-devices --stats "$BATS_TEST_DIRNAME/ir-plan-devices/tvm_conflicted_inputs.ir"
	assert_equal "${stderr_lines[0]}" "placements: 9"
	assert_equal "${stderr_lines[1]}" "copies between devices: 2"
	assert_equal "${stderr_lines[2]}" "copies between scopes: 0"
	assert_equal "${stderr_lines[3]}" "bytes copied: 280"
}

@test "plan: locations survive the pipe to point at the user's file" {
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' 'device @cpu = cpu(0)' 'device @gpu = gpu(0)' \
		'fn @main(%x: f32[4] on @cpu) {' '  %0 = on_device(%x, @gpu)' '  return %0' '}' > m.ir
	run -1 --separate-stderr bash -c 'set -o pipefail; ir-parse --locations m.ir | ir-plan-devices'
	assert_output ''
	assert_equal "${stderr_lines[0]}" "m.ir:4:3: error: conflicting placements for '%x': @cpu and @gpu"
}

@test "plan: a million-binding chain plans in one pass" {
	# awk, not python3: the same bytes, 0.3 s of CPU less (a million prints)
	awk 'BEGIN {
		print "device @gpu = gpu(0)"
		print "fn @main(%x: f32[4]) {"
		print "  %0 = negative(%x)"
		for (i = 1; i < 1000000; i++) printf "  %%%d = negative(%%%d)\n", i, i - 1
		print "  return %999999"
		print "}"
	}' > "$BATS_TEST_TMPDIR/big.ir"
	ir-plan-devices "$BATS_TEST_TMPDIR/big.ir" > "$BATS_TEST_TMPDIR/big.out"
	run tail -n 2 "$BATS_TEST_TMPDIR/big.out"
	assert_line --index 0 '  return %999999'
	run grep -c 'on @gpu = negative' "$BATS_TEST_TMPDIR/big.out"
	assert_output 1000000
}

@test "plan: an if arm that yields an annotation planning removes yields its operand" {
	run -0 ir-plan-devices - <<'IR'
device @gpu = gpu(0)
fn @main(%c: bool[], %x: f32[4]) {
  %r = if %c {
    yield %x
  } else {
    %a = on_device(%x, @gpu)
    yield %a
  }
  return %r
}
IR
	assert_line '    yield %x'
	refute_line --partial '%a'
}

# --minimize-copies (issue 26): values no constraint fixes placed to copy
# the fewest bytes; the unification plan stands wherever it is as good.

@test "plan --minimize-copies: an operator between a big cpu value and a small gpu one moves to the cpu" {
	cat > "$BATS_TEST_TMPDIR/m.ir" <<'IR'
device @cpu = cpu(0)
device @gpu = gpu(0)
default @gpu
fn @main(%big: f32[1000] on @cpu, %small: f32[1] on @gpu) -> f32[1000] {
  %0 = add(%small, %big)
  return %0
}
IR
	run -0 --separate-stderr ir-plan-devices --stats "$BATS_TEST_TMPDIR/m.ir"
	assert_line --partial '%big_to_gpu: f32[1000] on @gpu = device_copy(%big, @cpu -> @gpu)'
	assert_equal "${stderr_lines[3]}" "bytes copied: 4000"
	run -0 --separate-stderr ir-plan-devices --minimize-copies --stats "$BATS_TEST_TMPDIR/m.ir"
	assert_line 'fn @main(%big: f32[1000] on @cpu, %small: f32[1] on @gpu) -> f32[1000] on @cpu {'
	assert_line '  %small_to_cpu: f32[1] on @cpu = device_copy(%small, @gpu -> @cpu)'
	assert_line '  %0: f32[1000] on @cpu = add(%small_to_cpu, %big)'
	assert_equal "${stderr_lines[3]}" "bytes copied: 4"
	assert_equal "${stderr_lines[4]}" "bytes copied @gpu -> @cpu: 4"
	assert_equal "${stderr_lines[5]}" "unification plan: bytes copied: 4000"
	assert_equal "${stderr_lines[6]}" "unification plan: bytes copied @cpu -> @gpu: 4000"
	assert_equal "${stderr_lines[7]}" "free components between devices: 1, moved: 1, solved exactly: 1"
}

@test "plan --minimize-copies: a value read on several devices is paid once per device" {
	# %x is read by three operators that also read @gpu's %g: unification
	# puts them with %x, copies %g there and two results back (120 bytes);
	# on @gpu, %x is copied once for the three (40)
	cat > "$BATS_TEST_TMPDIR/m.ir" <<'IR'
device @cpu = cpu(0)
device @gpu = gpu(0)
default @cpu
fn @main(%x: f32[10] on @cpu, %g: f32[10] on @gpu) -> f32[10] on @gpu {
  %a = add(%x, %g)
  %b = multiply(%x, %g)
  %c = subtract(%x, %g)
  %d = add(%a, %b)
  %e = add(%d, %c)
  return %e
}
IR
	run -0 --separate-stderr ir-plan-devices --stats "$BATS_TEST_TMPDIR/m.ir"
	assert_equal "${stderr_lines[3]}" "bytes copied: 120"
	run -0 --separate-stderr ir-plan-devices --minimize-copies --stats "$BATS_TEST_TMPDIR/m.ir"
	assert_equal "${stderr_lines[3]}" "bytes copied: 40"
	assert_line '  %x_to_gpu: f32[10] on @gpu = device_copy(%x, @cpu -> @gpu)'
	run grep -c device_copy <<< "$output"
	assert_output 1
}

# Copy sizes of 12, 24 and 72 bytes: the cut's capacities share the
# factor 12, not a power of two, so maxflow.c counts them in units of
# it (8-byte arcs, by division).  The bytes are those of the best of
# all labellings, tried one by one.
@test "plan --minimize-copies: sizes with a common factor of 12 give the fewest bytes of all labellings" {
	"$PY" - "$BATS_TEST_TMPDIR" <<'PY'
import itertools, random, sys
d = sys.argv[1]
shapes = {"[3]": 12, "[2, 3]": 24, "[3, 2, 3]": 72}
order = list(shapes)
for m in range(12):
    r = random.Random(m)
    vals = []  # (name, shape, device or None, operands)
    for i in range(4):
        vals.append((f"p{i}", r.choice(order), r.choice(["cpu", "gpu"]), ()))
    for i in range(10):
        x, y = r.sample(range(len(vals)), 2)
        sh = max(vals[x][1], vals[y][1], key=order.index)
        vals.append((f"v{i}", sh, None, (x, y)))
    ops = [k for k, v in enumerate(vals) if v[2] is None]
    best = None
    for labs in itertools.product(["cpu", "gpu"], repeat=len(ops)):
        dev = [v[2] for v in vals]
        for k, l in zip(ops, labs):
            dev[k] = l
        cost = 0
        for k, v in enumerate(vals):
            readers = {dev[j] for j, u in enumerate(vals) if k in u[3]}
            cost += shapes[v[1]] * len(readers - {dev[k]})
        best = cost if best is None or cost < best else best
    with open(f"{d}/m{m}.ir", "w") as f:
        f.write("device @cpu = cpu(0)\ndevice @gpu = gpu(0)\ndefault @gpu\n")
        params = ", ".join(f"%{n}: f32{s} on @{dv}" for n, s, dv, _ in vals[:4])
        f.write(f"fn @main({params}) {{\n")
        for n, s, dv, (x, y) in vals[4:]:
            f.write(f"  %{n} = add(%{vals[x][0]}, %{vals[y][0]})\n")
        f.write(f"  return %{vals[-1][0]}\n}}\n")
    open(f"{d}/want{m}", "w").write(f"{best}\n")
PY
	for m in $(seq 0 11); do
		ir-plan-devices --minimize-copies --stats "$BATS_TEST_TMPDIR/m$m.ir" 2>&1 > /dev/null |
			sed -n 's/^bytes copied: //p' > "$BATS_TEST_TMPDIR/got$m"
		diff "$BATS_TEST_TMPDIR/want$m" "$BATS_TEST_TMPDIR/got$m" || { echo "module $m"; false; }
	done
}

@test "plan --minimize-copies: nothing moves where no byte is saved (the TVM catalogue's ties)" {
	for t in tvm_conflicted_inputs tvm_conv_network tvm_unpropagatable_graph tvm_tuple_get_item free_copy copy_in_arm tvm_lowered; do
		ir-plan-devices --minimize-copies "$BATS_TEST_DIRNAME/ir-plan-devices/$t.ir" |
			cmp - "$BATS_TEST_DIRNAME/ir-plan-devices/$t.out"
	done
}

# placed_kept IN OUT: a name written with `on @d` in IN is on @d in OUT
placed_kept() {
	"$PY" - "$1" "$2" <<'PY'
import re, sys
pat = re.compile(r"(%[A-Za-z0-9_]+)(?:: [^=,()>]*?)? on (@[A-Za-z0-9_.:-]+)")
def placed(path):
    return {m.group(1): m.group(2) for line in open(path) if not line.lstrip().startswith("//")
            for m in pat.finditer(line)}
want, got = placed(sys.argv[1]), placed(sys.argv[2])
bad = [(n, d, got.get(n)) for n, d in want.items() if got.get(n) != d]
if bad:
    sys.exit("%s: %s" % (sys.argv[1], bad))
PY
}

# catalogue_all FILE...: the catalogue test's checks of every FILE, each
# run of ir-plan-devices started once for all (--split-input-file, a FILE
# a part: the same bytes and the same --stats lines, a part's after the
# one before), fewer set; status 1 if anything fails or differs (the test
# then runs them file by file, which names the file).
catalogue_all() {
	local t=$BATS_TEST_TMPDIR/cat f i=0 a b
	local -a as bs
	mkdir -p "$t" && join_parts "$@" > "$t/in.ir" || return 1
	ir-plan-devices --split-input-file --stats "$t/in.ir" > /dev/null 2> "$t/a" || return 1
	ir-plan-devices --split-input-file --minimize-copies --stats "$t/in.ir" > "$t/m.ir" 2> "$t/b" ||
		return 1
	mapfile -t as < <(sed -n 's/^bytes copied: //p' "$t/a")
	mapfile -t bs < <(sed -n 's/^bytes copied: //p' "$t/b")
	[ "${#as[@]}" -eq $# ] && [ "${#bs[@]}" -eq $# ] || return 1
	ir-plan-devices --split-input-file --minimize-copies "$t/in.ir" 2> /dev/null | cmp -s - "$t/m.ir" ||
		return 1
	ir-plan-devices --split-input-file --minimize-copies "$t/m.ir" 2> /dev/null |
		cmp -s - "$t/m.ir" || return 1
	ir-plan-devices --split-input-file "$t/m.ir" 2> /dev/null | cmp -s - "$t/m.ir" || return 1
	for f; do
		cp "$f" "$t/$i.ir"
		i=$((i + 1))
	done
	split_parts "$t/m.ir" .min $(seq -f "$t/%g.ir" 0 $(($# - 1))) || return 1
	fewer=0 i=0
	for f; do
		a=${as[$i]} b=${bs[$i]}
		[ "$b" -le "$a" ] || { echo "${f##*/}: $b bytes, unification $a"; return 1; }
		[ "$b" -eq "$a" ] || fewer=$((fewer + 1))
		placed_kept "$f" "$t/$i.min" || return 1
		i=$((i + 1))
	done
}

# Every catalogue case: never more bytes than unification, the placements
# written in the input kept, the same bytes twice, and a second planning
# (with or without the option) changes nothing.
@test "plan --minimize-copies: the catalogue copies at most what unification does, keeping every constraint" {
	fewer=0
	local files=() f
	for f in "$BATS_TEST_DIRNAME"/ir-plan-devices/*.ir; do
		[ "${f##*/}" = errors.ir ] || files+=("$f")
	done
	# all at once first (catalogue_all), file by file where that fails
	if catalogue_all "${files[@]}"; then
		[ "$fewer" -ge 5 ]
		return
	fi
	fewer=0
	for f in "${files[@]}"; do
		a=$(ir-plan-devices --stats "$f" 2>&1 > /dev/null | sed -n 's/^bytes copied: //p')
		ir-plan-devices --minimize-copies --stats "$f" 2> "$BATS_TEST_TMPDIR/st" > "$BATS_TEST_TMPDIR/m.ir"
		b=$(sed -n 's/^bytes copied: //p' "$BATS_TEST_TMPDIR/st")
		[ "$b" -le "$a" ] || { echo "${f##*/}: $b bytes, unification $a"; false; }
		[ "$b" -eq "$a" ] || fewer=$((fewer + 1))
		ir-plan-devices --minimize-copies "$f" | cmp - "$BATS_TEST_TMPDIR/m.ir"
		ir-plan-devices --minimize-copies "$BATS_TEST_TMPDIR/m.ir" | cmp - "$BATS_TEST_TMPDIR/m.ir"
		ir-plan-devices "$BATS_TEST_TMPDIR/m.ir" | cmp - "$BATS_TEST_TMPDIR/m.ir"
		placed_kept "$f" "$BATS_TEST_TMPDIR/m.ir"
	done
	[ "$fewer" -ge 5 ]
	echo "catalogue_all failed where every file passes alone"
	return 1
}

# random_all MODEL...: the random test's checks of every MODEL, each run of
# ir-plan-devices started once for all (--split-input-file --keep-going, a
# MODEL a part; a model that fails unification's planning is left out, as
# alone), fewer and models set; status 1 if anything fails or differs (the
# test then runs them one by one, which names the seed).
random_all() {
	local t=$BATS_TEST_TMPDIR/rnd f i=0 k=0 rc=0 failed
	local -a as bs ok
	mkdir -p "$t" && join_parts "$@" > "$t/in.ir" || return 1
	ir-plan-devices --split-input-file --keep-going --stats "$t/in.ir" > /dev/null 2> "$t/a" || rc=$?
	[ "$rc" -le 1 ] || return 1
	failed=" $(sed -n 's/^ir-plan-devices: .*: part \([0-9]*\) of [0-9]*, from this line, failed$/\1/p' "$t/a" | tr '\n' ' ')"
	mapfile -t as < <(sed -n 's/^bytes copied: //p' "$t/a")
	for f; do
		i=$((i + 1))
		[[ $failed == *" $i "* ]] || ok+=("$f")
	done
	[ "${#as[@]}" -eq "${#ok[@]}" ] || return 1
	join_parts "${ok[@]}" > "$t/ok.ir" || return 1
	ir-plan-devices --split-input-file --minimize-copies --stats "$t/ok.ir" > "$t/min.ir" 2> "$t/b" ||
		return 1
	mapfile -t bs < <(sed -n 's/^bytes copied: //p' "$t/b")
	[ "${#bs[@]}" -eq "${#ok[@]}" ] || return 1
	ir-plan-devices --split-input-file --minimize-copies "$t/min.ir" 2> /dev/null |
		cmp -s - "$t/min.ir" || return 1
	fewer=0 models=${#ok[@]}
	for f in "${ok[@]}"; do
		[ "${bs[$k]}" -le "${as[$k]}" ] || { echo "$f: ${bs[$k]} bytes, unification ${as[$k]}"; return 1; }
		[ "${bs[$k]}" -eq "${as[$k]}" ] || fewer=$((fewer + 1))
		k=$((k + 1))
	done
}

# random_models DIR: tests/gen/gen.py's models of seeds 1 to 60, each in
# DIR/rSEED
random_models() {
	# shellcheck disable=SC2046
	"$PY" "$BATS_TEST_DIRNAME/gen/gen.py" --each "$1/r" $(seq 1 60) > /dev/null
}

@test "plan --minimize-copies: random models with several devices never copy more than unification" {
	fewer=0 models=0
	local many=()
	# the same models for every build: generated once a make check
	made_once plan_devices-random "$BATS_TEST_TMPDIR" random_models
	for s in $(seq 1 60); do
		d="$BATS_TEST_TMPDIR/r$s"
		[ "$(grep -c '^device ' "$d/model.ir")" -lt 2 ] || many+=("$d/model.ir")
	done
	# all at once first (random_all), one by one where that fails
	if random_all "${many[@]}"; then
		echo "models $models, fewer bytes in $fewer"
		[ "$models" -ge 20 ] && [ "$fewer" -ge 3 ]
		return
	fi
	fewer=0 models=0
	for s in $(seq 1 60); do
		d="$BATS_TEST_TMPDIR/r$s"
		[ "$(grep -c '^device ' "$d/model.ir")" -ge 2 ] || continue
		a=$(ir-plan-devices --stats "$d/model.ir" 2>&1 > /dev/null | sed -n 's/^bytes copied: //p')
		[ -n "$a" ] || continue   # a model made to fail planning
		models=$((models + 1))
		ir-plan-devices --minimize-copies --stats "$d/model.ir" 2> "$d/st" > "$d/min.ir"
		b=$(sed -n 's/^bytes copied: //p' "$d/st")
		[ "$b" -le "$a" ] || { echo "seed $s: $b bytes, unification $a"; false; }
		[ "$b" -eq "$a" ] || fewer=$((fewer + 1))
		ir-plan-devices --minimize-copies "$d/min.ir" | cmp - "$d/min.ir"
	done
	echo "models $models, fewer bytes in $fewer"
	[ "$models" -ge 20 ] && [ "$fewer" -ge 3 ]
	echo "random_all failed where every model passes alone"
	return 1
}

@test "plan --minimize-copies: after lowering, a second planning adds scope copies only" {
	cat > "$BATS_TEST_TMPDIR/m.ir" <<'IR'
device @cpu = cpu(0)
device @gpu = gpu(0) {texture=true}
default @gpu
fn @main(%x: f32[1,8,16,16] on @cpu, %w: f32[8,8,3,3] on @gpu) {
  %0 = nn.relu(%x)
  %1 = nn.conv2d(%0, %w) {padding=[1,1,1,1]}
  %2 = add(%1, %0)
  return %2
}
IR
	ir-plan-devices --minimize-copies --stats "$BATS_TEST_TMPDIR/m.ir" 2> "$BATS_TEST_TMPDIR/s1" > "$BATS_TEST_TMPDIR/p1.ir"
	ir-lower "$BATS_TEST_TMPDIR/p1.ir" | ir-plan-devices --minimize-copies --stats 2> "$BATS_TEST_TMPDIR/s2" > "$BATS_TEST_TMPDIR/p2.ir"
	run sed -n 's/^copies between devices: //p' "$BATS_TEST_TMPDIR/s1"
	dev1=$output
	run sed -n 's/^copies between devices: //p' "$BATS_TEST_TMPDIR/s2"
	assert_equal "$output" "$dev1"
	ir-plan-devices --minimize-copies "$BATS_TEST_TMPDIR/p2.ir" | cmp - "$BATS_TEST_TMPDIR/p2.ir"
}

@test "plan --minimize-copies: three devices, exact on a small component and by cuts and local search on a large one" {
	cat > "$BATS_TEST_TMPDIR/m.ir" <<'IR'
device @cpu = cpu(0)
device @gpu = gpu(0)
device @npu = accel(0)
default @npu
fn @main(%a: f32[100] on @cpu, %b: f32[100] on @gpu, %c: f32[1] on @npu) -> f32[100] {
  %0 = add(%c, %b)
  %1 = multiply(%0, %a)
  return %1
}
IR
	run -0 --separate-stderr ir-plan-devices --stats "$BATS_TEST_TMPDIR/m.ir"
	unif=$(printf '%s\n' "${stderr_lines[@]}" | sed -n 's/^bytes copied: //p')
	run -0 --separate-stderr ir-plan-devices --minimize-copies --stats "$BATS_TEST_TMPDIR/m.ir"
	# unification: %b and %a to @npu (800 bytes); at best %c to @gpu and
	# one 400-byte tensor between @gpu and @cpu
	assert_equal "$unif" 800
	assert_equal "${stderr_lines[3]}" "bytes copied: 404"
	assert_equal "${stderr_lines[-1]}" "free components between devices: 1, moved: 1, solved exactly: 1"
	# a chain of 300 operators between the three devices: not enumerable
	"$PY" - > "$BATS_TEST_TMPDIR/big.ir" <<'PY'
import random
r = random.Random(5)
print("device @cpu = cpu(0)\ndevice @gpu = gpu(0)\ndevice @npu = accel(0)\ndefault @npu")
print("fn @main(%x: f32[16] on @cpu, %y: f32[16] on @gpu, %z: f32[16] on @npu) {")
vals = ["%x", "%y", "%z"]
def pick():
    return r.choice(["%x", "%y", "%z"]) if r.random() < 0.3 else r.choice(vals[-8:])
for i in range(300):
    print(f"  %v{i} = add({pick()}, {pick()})")
    vals.append(f"%v{i}")
print("  return %v299")
print("}")
PY
	ir-plan-devices --stats "$BATS_TEST_TMPDIR/big.ir" 2> "$BATS_TEST_TMPDIR/s0" > /dev/null
	ir-plan-devices --minimize-copies --stats "$BATS_TEST_TMPDIR/big.ir" 2> "$BATS_TEST_TMPDIR/s1" > "$BATS_TEST_TMPDIR/b1.ir"
	a=$(sed -n 's/^bytes copied: //p' "$BATS_TEST_TMPDIR/s0")
	b=$(sed -n 's/^bytes copied: //p' "$BATS_TEST_TMPDIR/s1")
	[ "$b" -lt "$a" ]
	grep -q 'solved exactly: 0$' "$BATS_TEST_TMPDIR/s1"
	ir-plan-devices --minimize-copies "$BATS_TEST_TMPDIR/big.ir" | cmp - "$BATS_TEST_TMPDIR/b1.ir"
}
