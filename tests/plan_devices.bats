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
	python3 - > "$BATS_TEST_TMPDIR/big.ir" <<'PY'
print("device @gpu = gpu(0)")
print("fn @main(%x: f32[4]) {")
print("  %0 = negative(%x)")
for i in range(1, 1000000):
    print(f"  %{i} = negative(%{i-1})")
print("  return %999999")
print("}")
PY
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
