#!/usr/bin/env bats
# ir-parse: canonical output of the fixtures in tests/ir-parse/, every
# parse-time and verifier error pinned to its line, column and message (the
# cases are in tests/ir-parse/invalid-*.ir, checked with
# --verify-diagnostics), notes, carets, the error limit, deep nesting, a
# million bindings, type inference of every binding form and the details of
# canonical printing.
#
# UPDATE_GOLDEN=1 bats tests/parse.bats rewrites tests/ir-parse/*.out (see
# golden in test_helper.bash).

setup() {
	load test_helper
	bats_require_minimum_version 1.5.0
}

# --- helpers ------------------------------------------------------------------

# rejects LINE:COL MESSAGE < INPUT: the module on stdin is rejected: exit
# status 1, nothing on stdout, and the first line on stderr is
# "<stdin>:LINE:COL: error: MESSAGE".  $stderr_lines is left for more checks.
rejects() {
	cat > "$BATS_TEST_TMPDIR/rejects.ir"
	run -1 --separate-stderr ir-parse < "$BATS_TEST_TMPDIR/rejects.ir"
	assert_equal "$output" ""
	assert_equal "${stderr_lines[0]}" "<stdin>:$1: error: $2"
}

# parse < INPUT: runs ir-parse on the module on stdin, whatever happens,
# keeping the input in $BATS_TEST_TMPDIR/in.ir (for known-bug checks).
parse() {
	cat > "$BATS_TEST_TMPDIR/in.ir"
	run --separate-stderr ir-parse < "$BATS_TEST_TMPDIR/in.ir"
}

# rejected LINE:COL PATTERN: after parse, the input was rejected (status 1,
# no stdout) with a first error at LINE:COL whose message matches the glob
# PATTERN (for messages whose exact words are the fixer's choice; COL may
# be '*' too).
rejected() {
	assert_equal "$status" 1
	assert_equal "$output" ""
	local want="<stdin>:$1: error: $2"
	# shellcheck disable=SC2053 # want is a glob
	[[ ${stderr_lines[0]} == $want ]] ||
		fail "first error: '${stderr_lines[0]}', want $want"
}

# rejects_file LINE:COL MESSAGE FILE: the same for a file made beforehand
# (for inputs a here-document cannot hold).
rejects_file() {
	run -1 --separate-stderr ir-parse < "$3"
	assert_equal "$output" ""
	assert_equal "${stderr_lines[0]}" "<stdin>:$1: error: $2"
}

# stderr_line N TEXT: line N (from 0) of stderr is TEXT.
stderr_line() {
	assert_equal "${stderr_lines[$1]}" "$2"
}

# errors_count N: stderr holds N error lines.
errors_count() {
	local n
	n=$(printf '%s\n' "$stderr" | grep -c ': error: ')
	assert_equal "$n" "$1"
}

# infers 'BINDING LINE' < INPUT: the module on stdin parses and prints
# that line (a binding with its inferred type).
infers() {
	cat > "$BATS_TEST_TMPDIR/in.ir"
	run -0 ir-parse < "$BATS_TEST_TMPDIR/in.ir"
	assert_line "$1"
}

# --- canonical output of the fixtures ---------------------------------------------

@test "golden: declarations (devices, default, host, pools)" { golden ir-parse decls; }
@test "golden: operator calls with attributes and literal operands" { golden ir-parse ops; }
@test "golden: calls of functions, before and after their definition" { golden ir-parse calls; }
@test "golden: call_lowered with one and several results" { golden ir-parse call_lowered; }
@test "golden: on_device with every option combination" { golden ir-parse on_device; }
@test "golden: device_copy with scopes; TVM scope aliases print canonically" { golden ir-parse device_copy; }
@test "golden: tuples and projections" { golden ir-parse tuples; }
@test "golden: constants of every element type, inf, nan, files" { golden ir-parse consts; }
@test "golden: nested ifs" { golden ir-parse ifs; }
@test "golden: type and placement annotations" { golden ir-parse annotations; }
@test "golden: prim loops, ifs, lets, loads and stores" { golden ir-parse prim_loops; }
@test "golden: kernels, thread bindings, barriers, allocs, textures, lanes" { golden ir-parse prim_kernel; }
@test "golden: image allocations and lanes that are not literals" { golden ir-parse prim_image; }
@test "golden: loop-level expressions and precedence" { golden ir-parse prim_exprs; }
@test "golden: prim attributes and alloc annotations of any shape" { golden ir-parse prim_attrs; }
@test "golden: loc(...) on every kind of line" { golden ir-parse locs; }
@test "golden: comments, blank lines and wrapped lists" { golden ir-parse wrap; }
@test "golden: an empty module prints nothing" { golden ir-parse empty; }
@test "golden: names that look like keywords, numbers and dotted globals" { golden ir-parse names; }
@test "golden: a small network" { golden ir-parse network; }

# --- lexical errors ---------------------------------------------------------------

@test "error: a NUL byte is an error at its position, not the end of input" {
	printf 'device @cpu = cpu(0)\ndevice @g\0pu = gpu(0)\n' > "$BATS_TEST_TMPDIR/nul.ir"
	rejects_file 2:10 'unexpected NUL byte' "$BATS_TEST_TMPDIR/nul.ir"
}

@test "invalid-lexical.ir: lexical errors" { expect_diagnostics ir-parse invalid-lexical.ir; }

@test "error: a byte outside ASCII" {
	printf 'device @cpu = cpu(0) \x80\n' > "$BATS_TEST_TMPDIR/b.ir"
	rejects_file 1:22 'unexpected byte 0x80' "$BATS_TEST_TMPDIR/b.ir"
}

# --- syntax errors ----------------------------------------------------------------

@test "invalid-syntax.ir: syntax errors" { expect_diagnostics ir-parse invalid-syntax.ir; }

# --- structure: blocks and names ----------------------------------------------------

@test "invalid-structure.ir: blocks and names" { expect_diagnostics ir-parse invalid-structure.ir; }

@test "names: redefinition of a local, with a note at the first definition" {
	rejects 3:3 "redefinition of '%a'" <<'IR'
fn @f(%x: f32[4]) {
  %a = negative(%x)
  %a = negative(%x)
  return %a
}
IR
	stderr_line 1 '  %a = negative(%x)'
	stderr_line 2 '  ^'
	stderr_line 3 "<stdin>:2:3: note: previous definition of '%a' is here"
	stderr_line 4 '  %a = negative(%x)'
	stderr_line 5 '  ^'
}

@test "names: redefinition of a function, with a note at the first" {
	rejects 5:4 "redefinition of '@f'" <<'IR'
fn @f() -> () {
  %a = ()
  return %a
}
fn @f() -> () {
  %a = ()
  return %a
}
IR
	stderr_line 1 'fn @f() -> () {'
	stderr_line 2 '   ^'
	stderr_line 3 '<stdin>:1:1: note: previous definition is here'
}

# --- declarations, types, attributes, constants -----------------------------------------

@test "invalid-decls.ir: declarations, types, attributes and constants" { expect_diagnostics ir-parse invalid-decls.ir; }

@test "depth: an expression nested deeper than 256" {
	# 300 unary minuses: no brackets, so only the expression depth limit
	awk 'BEGIN {
		print "device @cpu = cpu(0)"; print "prim @p(%A: i32[1] @cpu) {"
		s = "  %A[0] = "; for (i = 0; i < 300; i++) s = s "-"; print s "%A[0]"; print "}"
	}' > "$BATS_TEST_TMPDIR/deep.ir"
	# %A[0] is 2 deep, so the 256th minus from the right (column 56) is 257 deep
	rejects_file 3:56 'expression nested deeper than 256' "$BATS_TEST_TMPDIR/deep.ir"
	errors_count 1
}

@test "depth: ten thousand unary - or ! give the depth limit's message, not Bison's" {
	# so many that Bison's stack (YYMAXDEPTH) runs out before any reduction
	awk 'BEGIN {
		print "device @cpu = cpu(0)"; print "prim @p(%A: i32[1] @cpu) {"
		s = "  %A[0] = "; for (i = 0; i < 10000; i++) s = s "-"; print s "%A[0]"; print "}"
	}' > "$BATS_TEST_TMPDIR/deep.ir"
	rejects_file 3:10003 'expression nested deeper than 256' "$BATS_TEST_TMPDIR/deep.ir"
	errors_count 1
	[[ "$stderr" != *'memory exhausted'* ]]
	sed -i 's/-/!/g; s/%A\[0\]$/true/' "$BATS_TEST_TMPDIR/deep.ir"
	rejects_file 3:10003 'expression nested deeper than 256' "$BATS_TEST_TMPDIR/deep.ir"
	errors_count 1
}

@test "depth: brackets nested deeper than 256" {
	awk 'BEGIN {
		s = "pool @p {size=1, x="; for (i = 0; i < 300; i++) s = s "["
		for (i = 0; i < 300; i++) s = s "]"; print s "}"
	}' > "$BATS_TEST_TMPDIR/deep.ir"
	# 'pool @p {size=1, x=' is 19 columns; the 257th '[' is at 20 + 256
	rejects_file 1:276 'brackets nested deeper than 256' "$BATS_TEST_TMPDIR/deep.ir"
}

@test "depth: 256 brackets are allowed" {
	awk 'BEGIN {
		s = "prim @p() {"; for (i = 0; i < 256; i++) s = s "["
		for (i = 0; i < 256; i++) s = s "]"; print s "} {"; print "}"
	}' > "$BATS_TEST_TMPDIR/deep.ir"
	# the first line is "prim @p() {x=[[...]]} {" once printed
	sed -i 's/^prim @p() {/prim @p() {x=/' "$BATS_TEST_TMPDIR/deep.ir"
	run -0 ir-parse "$BATS_TEST_TMPDIR/deep.ir"
	ir-parse "$BATS_TEST_TMPDIR/deep.ir" > "$BATS_TEST_TMPDIR/a.ir"
	ir-parse "$BATS_TEST_TMPDIR/a.ir" | cmp - "$BATS_TEST_TMPDIR/a.ir"
}

# tuple_chain N: @main with %t0 = (%x,) and %tI = (%tI-1,) up to %tN-1, so
# %tI's type nests I+1 deep; each line nests one level more than the last.
tuple_chain() {
	awk -v n="$1" 'BEGIN {
		print "fn @main(%x: f32[4]) -> f32[4] {"; print "  %t0 = (%x,)"
		for (i = 1; i < n; i++) printf "  %%t%d = (%%t%d,)\n", i, i - 1
		print "  return %x"; print "}"
	}'
}

@test "depth: tuple types built a level a binding stop at 64, in every tool" {
	# issue 24: 10,000 such lines overflowed the stack of every tool in
	# type_print, and from 257 on printed what no tool could read back
	tuple_chain 10000 > "$BATS_TEST_TMPDIR/deep.ir"
	# %t64 would nest 65 deep: line 66
	rejects_file 66:3 "the type of '%t64' is too large: tuple types nest deeper than 64" \
		"$BATS_TEST_TMPDIR/deep.ir"
	errors_count 1
	local tool
	for tool in ir-plan-devices ir-lower ir-fold-constants ir-alter-layout; do
		run -1 --separate-stderr "$tool" "$BATS_TEST_TMPDIR/deep.ir"
		assert_equal "$output" ""
		assert_equal "${stderr_lines[0]}" \
			"$BATS_TEST_TMPDIR/deep.ir:66:3: error: the type of '%t64' is too large: tuple types nest deeper than 64"
	done
}

@test "depth: 64 deep tuple types print, on a small stack, and read back" {
	tuple_chain 64 > "$BATS_TEST_TMPDIR/deep.ir"
	# a small stack (type_print keeps its own, so any depth would do)
	(ulimit -s 256 && ir-parse "$BATS_TEST_TMPDIR/deep.ir") > "$BATS_TEST_TMPDIR/a.ir"
	ir-parse "$BATS_TEST_TMPDIR/a.ir" | cmp - "$BATS_TEST_TMPDIR/a.ir"
	run grep -c '^  %t63: (((' "$BATS_TEST_TMPDIR/a.ir"
	assert_output 1
	# the printed type, written: 64 deep is read, 65 is refused at its '('
	awk 'BEGIN {
		s = "fn @main(%x: "; for (i = 0; i < 65; i++) s = s "("
		s = s "f32[4]"; for (i = 0; i < 65; i++) s = s ",)"; print s ") {"
		print "  %y = const f32[] 1.0"; print "  return %y"; print "}"
	}' > "$BATS_TEST_TMPDIR/w.ir"
	rejects_file 1:14 'tuple types nest deeper than 64' "$BATS_TEST_TMPDIR/w.ir"
	errors_count 1
	sed -i '1s/^fn @main(%x: (/fn @main(%x: /; 1s/,)) {$/) {/' "$BATS_TEST_TMPDIR/w.ir"
	run -0 ir-parse "$BATS_TEST_TMPDIR/w.ir"
}

@test "size: a tuple type holds at most 65536 tensors" {
	# each binding doubles the last: 2^40 tensors in %t39's type
	awk 'BEGIN {
		print "fn @main(%x: f32[4]) -> f32[4] {"; print "  %t0 = (%x, %x)"
		for (i = 1; i < 40; i++) printf "  %%t%d = (%%t%d, %%t%d)\n", i, i - 1, i - 1
		print "  return %x"; print "}"
	}' > "$BATS_TEST_TMPDIR/wide.ir"
	# %t15 holds 2^16 tensors, %t16 2^17
	rejects_file 18:3 "the type of '%t16' is too large: a tuple type holds more than 65536 tensors" \
		"$BATS_TEST_TMPDIR/wide.ir"
	errors_count 1
}

# --- verifier ---------------------------------------------------------------------

@test "invalid-verify.ir: the verifier" { expect_diagnostics ir-parse invalid-verify.ir; }

@test "verify: lane with a literal lane number and with an integer one" {
	# the errors are in invalid-verify.ir
	printf 'device @cpu = cpu(0)\nprim @p(%%B: i16[8] @cpu, %%n: u8) {\n  %%B[0] = lane(%%B[0:8], 7)\n  %%B[1] = lane(%%B[0:8], %%n %% 8)\n}\n' |
		ir-parse > "$BATS_TEST_TMPDIR/ok.ir"
	run -0 cat "$BATS_TEST_TMPDIR/ok.ir"
	assert_output --partial '%B[0] = lane(%B[0:8], 7)'
	assert_output --partial '%B[1] = lane(%B[0:8], %n % 8)'
}

@test "verify: atomic_add, mem_fence and the zeroed and coherent annotations read back byte for byte (issue 23)" {
	cat > "$BATS_TEST_TMPDIR/a.ir" <<'IR'
device @gpu = gpu(0)

prim @p(%B: f32[4] @gpu:global) {
  alloc %ps: f32[4] @gpu:global {coherent=true}
  alloc %c: i32[2] @gpu:global {zeroed=true}
  alloc %d: i32[2] @gpu {coherent=false, zeroed=true}
  kernel @k {
    for %bx in 0..2 bind(blockIdx.x) {
      for %tx in 0..2 bind(threadIdx.x) {
        %ps[%bx * 2 + %tx] = %B[%bx * 2 + %tx]
        mem_fence()
        let %n: i32 = atomic_add(%c[%bx], 1)
        atomic_add(%d[%tx], %n - 1)
        if %n == 1 {
          %c[%bx] = 0
        }
      }
    }
  }
}
IR
	run -0 ir-parse "$BATS_TEST_TMPDIR/a.ir"
	assert_equal "$output" "$(cat "$BATS_TEST_TMPDIR/a.ir")"
}

@test "verify: atomic_add on one i32 element of a global buffer, in a kernel; mem_fence a statement of a kernel; zeroed and coherent true or false, of global buffers" {
	k() { printf 'device @gpu = gpu(0)\nprim @p(%%F: f32[2] @gpu, %%n: i32) {\n  alloc %%C: i32[2] @gpu:global%s\n  alloc %%S: i32[2] @gpu:shared\n  %s\n  kernel @k {\n    for %%tx in 0..2 bind(threadIdx.x) {\n      %s\n    }\n  }\n}\n' "$1" "$2" "$3"; }
	k '' '' 'let %o: i32 = atomic_add(%F[0], 1)' |
		rejects 8:32 "'atomic_add' needs one i32 element, not f32"
	k '' '' 'let %o: i32 = atomic_add(%C[0:2], 1)' |
		rejects 8:32 "'atomic_add' needs one i32 element, not i32x2"
	k '' '' 'let %o: i32 = atomic_add(%S[0], 1)' |
		rejects 8:32 "'atomic_add' needs a buffer in global memory; '%S' is in shared memory"
	k '' '' 'let %o: i32 = atomic_add(%n, 1)' |
		rejects 8:32 "'atomic_add' needs an element of a buffer such as %B[i] first"
	k '' '' 'let %o: i32 = atomic_add(%C[0], 1.5)' |
		rejects 8:21 "operands have different types: i32 and f32"
	k '' 'let %o: i32 = atomic_add(%C[0], 1)' '' |
		rejects 5:17 "'atomic_add' must be inside a kernel"
	k '' '' 'let %o: i32 = mem_fence()' |
		rejects 8:21 "'mem_fence()' is a statement of its own, not a value"
	k '' '' 'mem_fence(%n)' |
		rejects 8:7 "'mem_fence' takes no arguments, 1 given"
	k '' 'mem_fence()' '' |
		rejects 5:3 "'mem_fence' must be inside a kernel"
	k ' {zeroed=1}' '' '' |
		rejects 3:40 "'zeroed' is true or false"
	printf 'device @gpu = gpu(0)\nprim @p() {\n  alloc %%S: i32[2] @gpu:shared {coherent=true}\n}\n' |
		rejects 3:33 "'coherent' needs a buffer in global memory; '%S' is in shared memory"
}

# --- how errors are shown -----------------------------------------------------------

@test "report: errors in a file argument are reported with the file's name" {
	mkdir -p "$BATS_TEST_TMPDIR/sub"
	printf 'device @cpu = cpu(0)\ndevice @d = tpu(0)\n' > "$BATS_TEST_TMPDIR/sub/m.ir"
	cd "$BATS_TEST_TMPDIR"
	run -1 --separate-stderr ir-parse sub/m.ir
	assert_equal "$output" ""
	stderr_line 0 "sub/m.ir:2:13: error: unknown device kind 'tpu' (expected cpu, gpu or accel)"
	stderr_line 1 'device @d = tpu(0)'
	stderr_line 2 '            ^'
	# and '-' is standard input
	run -1 --separate-stderr ir-parse - < sub/m.ir
	stderr_line 0 "<stdin>:2:13: error: unknown device kind 'tpu' (expected cpu, gpu or accel)"
}

@test "report: an error on a line with loc(...) is reported where loc says" {
	cd "$BATS_TEST_TMPDIR"
	rejects 2:3 "'%a' is written as f32[5] but its value has type f32[4]" <<'IR'
fn @f(%x: f32[4]) {
  %a: f32[5] = negative(%x)
  return %a
}
IR
	rejects 7:3 "'%a' is written as f32[5] but its value has type f32[4]" <<'IR'
fn @f(%x: f32[4]) {
  %a: f32[5] = negative(%x) loc("<stdin>":7:3)
  return %a
}
IR
	run -1 --separate-stderr ir-parse <<'IR'
fn @f(%x: f32[4]) {
  %a: f32[5] = negative(%x) loc("model.ir":7:3)
  return %a
}
IR
	stderr_line 0 "model.ir:7:3: error: '%a' is written as f32[5] but its value has type f32[4]"
}

@test "report: the caret is under the column of the error" {
	rejects 4:16 "unknown element type 'f31'" <<'IR'
device @cpu = cpu(0)
fn @f(%x: f32[4]) {
  %a = const f32[] 1.0
  %b: (f32[4], f31[2]) = (%x, %a)
  return %b
}
IR
	stderr_line 1 '  %b: (f32[4], f31[2]) = (%x, %a)'
	stderr_line 2 '               ^'
	assert_equal "${#stderr_lines[2]}" 16
}

@test "report: several errors in one file are all reported, in order" {
	rejects 2:23 "unknown element type 'f33'" <<'IR'
device @cpu = cpu(0)
fn @f(%x: f32[4], %y: f33[4]) {
  %a = frobnicate(%x)
  %b = negative(%nope)
  return %x
}
device @d = tpu(0)
IR
	errors_count 4
	run -1 --separate-stderr ir-parse < "$BATS_TEST_TMPDIR/rejects.ir"
	run grep -o '^<stdin>:[0-9:]*: error' <<< "$stderr"
	assert_output - <<'OUT'
<stdin>:2:23: error
<stdin>:3:8: error
<stdin>:4:17: error
<stdin>:7:13: error
OUT
}

@test "report: after 20 errors the rest are dropped with one line saying so" {
	for i in $(seq 30); do echo "%x$i = ()"; done > "$BATS_TEST_TMPDIR/many.ir"
	run -1 --separate-stderr ir-parse "$BATS_TEST_TMPDIR/many.ir"
	assert_equal "$output" ""
	errors_count 21
	run grep -c "^$BATS_TEST_TMPDIR/many.ir:[0-9]*:1: error: binding outside a function body\$" <<< "$stderr"
	assert_output 20
	assert_equal "${stderr_lines[${#stderr_lines[@]} - 1]}" 'ir-parse: error: too many errors emitted, stopping now'
	# the last one reported is the 20th
	assert_equal "${stderr_lines[${#stderr_lines[@]} - 4]}" "$BATS_TEST_TMPDIR/many.ir:20:1: error: binding outside a function body"
}

@test "report: 20 errors exactly do not trigger the limit line" {
	for i in $(seq 20); do echo "%x$i = ()"; done > "$BATS_TEST_TMPDIR/many.ir"
	run -1 --separate-stderr ir-parse "$BATS_TEST_TMPDIR/many.ir"
	errors_count 20
	[[ $stderr != *'too many errors'* ]]
}

@test "report: errors of different kinds in independent places are all reported in one run" {
	# issue 28, item 10: the parser's error (a device attribute) used to
	# hide the verifier's, and an operand's error the device of the
	# on_device that used it
	parse <<'IR'
device @cpu = cpu(0) {textur=true}
fn @main(%x: f32[1,3,8,8], %w: f32[4,3,3,3], %a: f32[4], %b: f32[5]) -> f32[4] {
  %0 = nn.conv2d(%x, %w) {paddin=[0,0,0,0]}
  %1 = on_device(%0, @gpu)
  %2 = add(%a, %b)
  return %2
}
IR
	rejected 1:23 "unknown device attribute 'textur'"
	errors_count 4
	run grep ': error: ' <<< "$stderr"
	assert_output - <<'OUT'
<stdin>:1:23: error: unknown device attribute 'textur'
<stdin>:3:27: error: unknown attribute 'paddin' for nn.conv2d
<stdin>:4:3: error: unknown device '@gpu'
<stdin>:5:3: error: add: shapes do not broadcast: f32[4] and f32[5] (4 vs 5 at axis 0 of the result)
OUT
}

@test "report: an error is not reported again where what it made is used" {
	# each failed item once; what uses it is skipped, what does not is
	# still checked (the undeclared device, the last shape error)
	parse <<'IR'
device @cpu = cpu(0)
fn @f(%x: f32[4], %y: f32[5]) -> f32[4] {
  %a = frobnicate(%x)
  %b = nn.relu(%a)
  %c = add(%b, %y)
  %d = add(%x, %x +)
  %e = add(%d, %y)
  %g = @nowhere(%e)
  %h = add(%g, %y)
  %i = nn.relu(%x) {alhpa=1}
  %j = add(%i, %y)
  %k = on_device(%j, @tpu)
  %l = add(%x, %y)
  return %k
}
fn @broken(%x: f32[4]) -> f32[4] {
  %a = if %x {
    yield %x
  }
  return %a
}
fn @main(%x: f32[4], %y: f32[5]) -> f32[4] {
  %r = @broken(%x)
  %s = @f(%r, %y)
  return %s
}
IR
	rejected 3:8 "unknown operator 'frobnicate'"
	run grep ': error: ' <<< "$stderr"
	assert_output - <<'OUT'
<stdin>:3:8: error: unknown operator 'frobnicate'
<stdin>:6:19: error: unexpected '+', expected ')' or ','
<stdin>:19:3: error: 'if' needs an 'else' arm: '} else {'
<stdin>:8:3: error: call of undefined function '@nowhere'
<stdin>:10:21: error: unknown attribute 'alhpa' for nn.relu
<stdin>:12:3: error: unknown device '@tpu'
<stdin>:13:3: error: add: shapes do not broadcast: f32[4] and f32[5] (4 vs 5 at axis 0 of the result)
OUT
}

@test "report: a binding of a vector type is reported once, not again where it is used" {
	parse <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[4]) -> f32[4] {
  %a: f32x4[4] = negative(%x)
  %b = negative(%a)
  return %x
}
IR
	rejected 3:3 "vector element type f32x4 is for loop-level buffers, not graph-level tensors"
	errors_count 1
}

@test "report: a global whose line has a syntax error stays declared: its uses are not errors" {
	parse <<'IR'
device @gpu = gpu(0 {texture=true}
fn @g(%x: f32[4] -> f32[4] {
  return %x
}
fn @main(%x: f32[4]) -> f32[4] {
  %a = on_device(%x, @gpu)
  %b = @g(%a)
  return %b
}
IR
	rejected 1:21 "unexpected '{', expected ')'"
	errors_count 2
	assert_regex "${stderr_lines[*]}" "<stdin>:2:18: error"
}

@test "report: verifier errors stop at 20 too, with the line saying so" {
	{
		echo 'device @cpu = cpu(0)'
		echo 'fn @main(%x: f32[4]) -> f32[4] {'
		for i in $(seq 25); do echo "  %a$i = on_device(%x, @gpu$i)"; done
		echo '  return %x'
		echo '}'
	} > "$BATS_TEST_TMPDIR/many.ir"
	run -1 --separate-stderr ir-parse "$BATS_TEST_TMPDIR/many.ir"
	assert_equal "$output" ""
	errors_count 21
	assert_equal "${stderr_lines[${#stderr_lines[@]} - 1]}" 'ir-parse: error: too many errors emitted, stopping now'
	assert_equal "${stderr_lines[${#stderr_lines[@]} - 4]}" "$BATS_TEST_TMPDIR/many.ir:22:3: error: unknown device '@gpu20'"
}

@test "invalid-recovery.ir: recovery after an error" { expect_diagnostics ir-parse invalid-recovery.ir; }

# --- deep nesting and size ----------------------------------------------------------

@test "scale: ifs nested 10,000 deep parse, and print to a fixed point" {
	awk 'BEGIN {
		n = 10000
		print "fn @main(%c: bool[], %x: f32[4]) {"
		for (i = 0; i < n; i++) printf "%%r%d = if %%c {\n", i
		print "%v = negative(%x)"; print "yield %v"
		for (i = n - 1; i >= 0; i--) {
			print "} else {"; print "yield %x"; print "}"
			if (i > 0) printf "yield %%r%d\n", i
		}
		print "return %r0"; print "}"
	}' > "$BATS_TEST_TMPDIR/deep.ir"
	ir-parse "$BATS_TEST_TMPDIR/deep.ir" > "$BATS_TEST_TMPDIR/a.ir"
	ir-parse "$BATS_TEST_TMPDIR/a.ir" > "$BATS_TEST_TMPDIR/b.ir"
	cmp "$BATS_TEST_TMPDIR/a.ir" "$BATS_TEST_TMPDIR/b.ir"
	run grep -c ' = if %c {$' "$BATS_TEST_TMPDIR/a.ir"
	assert_output 10000
	run tail -n 2 "$BATS_TEST_TMPDIR/a.ir"
	assert_output $'  return %r0\n}'
}

@test "scale: loops nested 10,000 deep in a prim parse, and print to a fixed point" {
	awk 'BEGIN {
		n = 10000
		print "device @cpu = cpu(0)"; print "prim @p(%A: i32[4] @cpu) {"
		for (i = 0; i < n; i++) printf "for %%i%d in 0..4 {\n", i
		printf "%%A[%%i%d] = %%i0 + %%i%d\n", n - 1, n / 2
		for (i = 0; i < n; i++) print "}"
		print "}"
	}' > "$BATS_TEST_TMPDIR/deep.ir"
	ir-parse "$BATS_TEST_TMPDIR/deep.ir" > "$BATS_TEST_TMPDIR/a.ir"
	ir-parse "$BATS_TEST_TMPDIR/a.ir" > "$BATS_TEST_TMPDIR/b.ir"
	cmp "$BATS_TEST_TMPDIR/a.ir" "$BATS_TEST_TMPDIR/b.ir"
	run grep -c '^ *for %i[0-9]* in 0\.\.4 {$' "$BATS_TEST_TMPDIR/a.ir"
	assert_output 10000
	run grep -c '^ *}$' "$BATS_TEST_TMPDIR/a.ir"
	assert_output 10001
}

@test "scale: an if nested 10,000 deep in a prim, with else arms" {
	awk 'BEGIN {
		n = 10000
		print "device @cpu = cpu(0)"; print "prim @p(%A: i32[4] @cpu, %n: i32) {"
		for (i = 0; i < n; i++) print "if %n > " i " {"
		print "%A[0] = 1"
		for (i = 0; i < n; i++) { print "} else {"; print "%A[1] = " i; print "}" }
		print "}"
	}' > "$BATS_TEST_TMPDIR/deep.ir"
	ir-parse "$BATS_TEST_TMPDIR/deep.ir" > "$BATS_TEST_TMPDIR/a.ir"
	ir-parse "$BATS_TEST_TMPDIR/a.ir" | cmp - "$BATS_TEST_TMPDIR/a.ir"
	run grep -c '} else {$' "$BATS_TEST_TMPDIR/a.ir"
	assert_output 10000
}

@test "scale: a function of 1,000,000 bindings" {
	awk 'BEGIN {
		n = 1000000
		print "fn @main(%x: f32[4]) {"
		print "  %v0 = negative(%x)"
		for (i = 1; i < n; i++) printf "  %%v%d = negative(%%v%d)\n", i, i - 1
		printf "  return %%v%d\n}\n", n - 1
	}' > "$BATS_TEST_TMPDIR/big.ir"
	ir-parse "$BATS_TEST_TMPDIR/big.ir" > "$BATS_TEST_TMPDIR/big.out"
	run grep -c '^  %v[0-9]*: f32\[4\] = negative(%' "$BATS_TEST_TMPDIR/big.out"
	assert_output 1000000
	run tail -n 2 "$BATS_TEST_TMPDIR/big.out"
	assert_output $'  return %v999999\n}'
}

# --- type inference, one binding form at a time -----------------------------------------

@test "infer: a function call has the callee's result type" {
	infers '  %r: (f32[4], i32[]) = @g(%x)' <<'IR'
fn @g(%a: f32[4]) -> (f32[4], i32[]) {
  %t = (%a, 1)
  return %t
}
fn @f(%x: f32[4]) {
  %r = @g(%x)
  return %r
}
IR
	assert_line 'fn @f(%x: f32[4]) -> (f32[4], i32[]) {'
}

@test "infer: a function's result type is inferred from its return" {
	infers 'fn @g(%a: f32[4], %b: i8[2,2]) -> i8[2,2] {' <<'IR'
fn @g(%a: f32[4], %b: i8[2,2]) {
  return %b
}
IR
}

@test "infer: a function returning a literal" {
	infers 'fn @g() -> bool[] {' <<'IR'
fn @g() {
  return true
}
IR
}

@test "infer: call_lowered with one result has that buffer's type" {
	infers '  %r: i32[2,3] = call_lowered @k(%x)' <<'IR'
device @cpu = cpu(0)
prim @k(%A: f32[4] @cpu, %B: i32[2,3] @cpu) {
}
fn @f(%x: f32[4]) {
  %r = call_lowered @k(%x)
  return %r
}
IR
}

@test "infer: call_lowered with several results is a tuple" {
	infers '  %r: (i32[2,3], f16[1]) = call_lowered @k(%x)' <<'IR'
device @cpu = cpu(0)
prim @k(%A: f32[4] @cpu, %B: i32[2,3] @cpu, %C: f16[1] @cpu:global) {
}
fn @f(%x: f32[4]) {
  %r = call_lowered @k(%x)
  return %r
}
IR
}

@test "infer: on_device and device_copy have their operand's type" {
	infers '  %a: (f32[4], u8[]) = on_device(%t, @cpu, constrain_result=true)' <<'IR'
device @cpu = cpu(0)
fn @f(%t: (f32[4], u8[])) {
  %a = on_device(%t, @cpu, constrain_result=true)
  %b = device_copy(%a, @cpu -> @cpu:global)
  %c = on_device(2, @cpu)
  return %b
}
IR
	assert_line '  %b: (f32[4], u8[]) = device_copy(%a, @cpu -> @cpu:global)'
	assert_line '  %c: i32[] = on_device(2, @cpu)'
}

@test "infer: tuples of values and literals" {
	infers '  %t: (f32[4], i32[], f32[], bool[]) = (%x, 7, -2.5, false)' <<'IR'
fn @f(%x: f32[4]) {
  %t = (%x, 7, -2.5, false)
  %e = ()
  %o = (%x,)
  %n = (%o, %e)
  return %n
}
IR
	assert_line '  %e: () = ()'
	assert_line '  %o: (f32[4],) = (%x,)'
	assert_line '  %n: ((f32[4],), ()) = (%o, %e)'
}

@test "infer: a projection has the field's type" {
	infers '  %p: (i64[3],) = %t.1' <<'IR'
fn @f(%t: (f32[4], (i64[3],))) {
  %p = %t.1
  %q = %p.0
  return %q
}
IR
	assert_line '  %q: i64[3] = %p.0'
}

@test "infer: a constant has its written type" {
	infers '  %c: f64[2,1] = const f64[2,1] [1.0, 2.0]' <<'IR'
fn @f() {
  %c = const f64[2,1] [1, 2]
  %d = const u16[] file="d.npy"
  %e = (%c, %d)
  return %e
}
IR
	assert_line '  %d: u16[] = const u16[] file="d.npy"'
}

@test "infer: an if has the type its arms yield" {
	infers '  %r: (f32[4], bool[]) = if %c {' <<'IR'
fn @f(%c: bool[], %x: f32[4]) {
  %r = if %c {
    %t = (%x, %c)
    yield %t
  } else {
    %u = (%x, true)
    yield %u
  }
  %l = if %c {
    yield 1.5
  } else {
    yield 2.5
  }
  return %r
}
IR
	assert_line '  %l: f32[] = if %c {'
}

@test "infer: a let takes the type of its value" {
	infers '    let %a: f32x4 = %B[%i, 0:4]' <<'IR'
device @cpu = cpu(0)
prim @p(%B: f32[4,8] @cpu, %n: u16) {
  for %i in 0..4 {
    let %a = %B[%i, 0:4]
    let %b = %a > broadcast<f32x4>(0.0)
    let %c = %n + 1
    let %d = 1
    let %e = 2.0
    let %f = cast<f16>(%e)
  }
}
IR
	assert_line '    let %b: boolx4 = %a > broadcast<f32x4>(0.0)'
	assert_line '    let %c: u16 = %n + 1'
	assert_line '    let %d: i32 = 1'
	assert_line '    let %e: f32 = 2.0'
	assert_line '    let %f: f16 = cast<f16>(%e)'
}

@test "infer: a literal takes the type its context gives it" {
	infers '  let %x: f64 = 1' <<'IR'
device @cpu = cpu(0)
prim @p(%B: i8[4] @cpu) {
  let %x: f64 = 1
  %B[0] = 3
  let %y: i8 = %B[1] * 2
}
IR
	assert_line '  let %y: i8 = %B[1] * 2'
}

# --- canonical printing ------------------------------------------------------------

@test "print: attributes are sorted by key" {
	run -0 ir-parse <<'IR'
device @d = gpu(0) {max_work_group_size=64, texture=true, image2d_max=[1, 2]}
pool @p {size=8, kind="k", devices=[@d], alignment=4}
IR
	assert_line 'device @d = gpu(0) {image2d_max=[1, 2], max_work_group_size=64, texture=true}'
	assert_line 'pool @p {alignment=4, devices=[@d], kind="k", size=8}'
}

@test "print: floats in the shortest form that reads back" {
	run -0 ir-parse <<'IR'
fn @f() {
  %a = const f32[9] [0.1, 1, 1e20, -0.0, 2.5e-3, 0.30000000000000004, 1e-7, 1.25E+0, 123456789]
  %b = const f64[3] [inf, -inf, nan]
  %c = (%a, %b)
  return %c
}
IR
	assert_line '  %a: f32[9] = const f32[9] [0.1, 1.0, 1e+20, -0.0, 0.0025, 0.30000000000000004, 1e-07, 1.25, 123456789.0]'
	assert_line '  %b: f64[3] = const f64[3] [inf, -inf, nan]'
}

@test "print: whole floats print positionally, as 10.0, not 1e+01" {
	run -0 ir-parse <<'IR'
fn @f(%x: f32[4]) {
  %a = clip(%x) {a_min=0.0, a_max=10.0}
  %b = const f32[5] [100, 1000.0, 70000, 1.5E+3, 1e15]
  %c = (%a, %b)
  return %c
}
IR
	assert_line '  %a: f32[4] = clip(%x) {a_max=10.0, a_min=0.0}'
	assert_line '  %b: f32[5] = const f32[5] [100.0, 1000.0, 70000.0, 1500.0, 1000000000000000.0]'
}

@test "print: a float operand keeps its point; an int operand has none" {
	run -0 ir-parse <<'IR'
fn @f(%x: f32[4]) {
  %a = add(%x, 1)
  %b = add(%a, 1.0)
  %c = add(%b, -0.5)
  return %c
}
IR
	assert_line '  %a: f32[4] = add(%x, 1)'
	assert_line '  %b: f32[4] = add(%a, 1.0)'
	assert_line '  %c: f32[4] = add(%b, -0.5)'
}

@test "print: a one-field tuple and its type print with a trailing comma" {
	run -0 ir-parse <<'IR'
fn @f(%a: f32[4]) {
  %t = (%a)
  return %t
}
IR
	assert_line 'fn @f(%a: f32[4]) -> (f32[4],) {'
	assert_line '  %t: (f32[4],) = (%a,)'
}

@test "print: on_device prints only the options that differ from the defaults" {
	run -0 ir-parse <<'IR'
device @d = cpu(0)
fn @f(%x: f32[4]) {
  %a = on_device(%x, @d, constrain_body=true, constrain_result=false)
  %b = on_device(%a, @d, constrain_result=true, constrain_body=false)
  return %b
}
IR
	assert_line '  %a: f32[4] = on_device(%x, @d)'
	assert_line '  %b: f32[4] = on_device(%a, @d, constrain_body=false, constrain_result=true)'
}

@test "print: TVM scope spellings print canonically everywhere" {
	run -0 ir-parse <<'IR'
device @g = gpu(0)
fn @f(%x: f32[1,1,1,1,4] on @g:global.texture) -> f32[1,1,1,1,4] on @g:global.texture-nhwc {
  %a on @g:global.texture-weight = device_copy(%x, @g:global.texture -> @g:global.sram)
  return %a
}
prim @p(%A: f32[4] @g:global.texture-nhwc) {
  alloc %B: f32[4] @g:global.my_pool
}
IR
	assert_line 'fn @f(%x: f32[1,1,1,1,4] on @g:texture) -> f32[1,1,1,1,4] on @g:texture:nhwc {'
	assert_line '  %a: f32[1,1,1,1,4] on @g:texture:weight = device_copy(%x, @g:texture -> @g:global-sram)'
	assert_line 'prim @p(%A: f32[4] @g:texture:nhwc) {'
	assert_line '  alloc %B: f32[4] @g:global-my_pool'
}

@test "print: a scope global.-NAME is no alias (global--NAME would not read back)" {
	run -0 ir-parse <<'IR'
device @g = gpu(0)
prim @p(%A: f32[4] @g:global.-x, %B: f32[4] @g:global.x-y) {
}
IR
	assert_line 'prim @p(%A: f32[4] @g:global.-x, %B: f32[4] @g:global-x-y) {'
	printf '%s\n' "$output" | ir-parse > /dev/null
}

@test "print: indentation stops growing at 32 levels" {
	awk 'BEGIN {
		n = 40
		print "fn @main(%c: bool[], %x: f32[4]) {"
		for (i = 0; i < n; i++) printf "%%r%d = if %%c {\n", i
		print "yield %x"
		for (i = n - 1; i >= 0; i--) {
			print "} else {"; print "yield %x"; print "}"
			if (i > 0) printf "yield %%r%d\n", i
		}
		print "return %r0"; print "}"
	}' > "$BATS_TEST_TMPDIR/deep.ir"
	run -0 ir-parse "$BATS_TEST_TMPDIR/deep.ir"
	local s32
	s32=$(printf '%64s' '')
	assert_line "${s32:2}%r30: f32[4] = if %c {"
	assert_line "$s32%r31: f32[4] = if %c {"
	assert_line "$s32%r32: f32[4] = if %c {"
	assert_line "$s32%r39: f32[4] = if %c {"
	assert_line "${s32}yield %x"
	refute_line --regexp "^$s32 "
}

@test "print: only the parentheses the precedence needs" {
	run -0 ir-parse <<'IR'
device @cpu = cpu(0)
prim @p(%n: i32, %b: bool) {
  let %a = ((%n + 1)) * (2 - %n) - (%n - 1) - (-%n)
  let %c = ((%n < 1) && (%b || %b)) || !(%b)
  let %d = %n - (1 + 2) + (3 * 4) / (5 % 6)
}
IR
	assert_line '  let %a: i32 = (%n + 1) * (2 - %n) - (%n - 1) - -%n'
	assert_line '  let %c: bool = %n < 1 && (%b || %b) || !%b'
	assert_line '  let %d: i32 = %n - (1 + 2) + 3 * 4 / (5 % 6)'
}

@test "print: types on every binding, one blank line between functions and prims" {
	run -0 ir-parse <<'IR'
device @cpu = cpu(0)
fn @f(%x: f32[4]) {
  return %x
}
prim @p() {
}
fn @g(%x: f32[4]) {
  return %x
}
IR
	assert_output - <<'OUT'
device @cpu = cpu(0)

prim @p() {
}

fn @f(%x: f32[4]) -> f32[4] {
  return %x
}

fn @g(%x: f32[4]) -> f32[4] {
  return %x
}
OUT
}

@test "print: carriage returns are blanks; the output has none" {
	printf 'device @cpu = cpu(0)\r\nfn @f(%%x: f32[4]) {\r\n  return %%x\r\n}\r\n' > "$BATS_TEST_TMPDIR/crlf.ir"
	run -0 ir-parse "$BATS_TEST_TMPDIR/crlf.ir"
	assert_output $'device @cpu = cpu(0)\n\nfn @f(%x: f32[4]) -> f32[4] {\n  return %x\n}'
}

@test "print: the input may end without a newline" {
	printf 'device @cpu = cpu(0)' > "$BATS_TEST_TMPDIR/nonl.ir"
	run -0 ir-parse "$BATS_TEST_TMPDIR/nonl.ir"
	assert_output 'device @cpu = cpu(0)'
}

# --- found by this suite: fixed, kept as regression tests ----------------------------

@test "const: the limits of each integer type are accepted" {
	run -0 ir-parse <<'IR'
fn @f() {
  %a = const i8[2] [-128, 127]
  %b = const u8[2] [0, 255]
  %c = const i16[2] [-32768, 32767]
  %d = const u32[1] [4294967295]
  %e = const u64[2] [18446744073709551615, 9223372036854775808]
  %t = (%a, %b, %c, %d, %e)
  return %t
}
IR
	assert_line '  %a: i8[2] = const i8[2] [-128, 127]'
	assert_line '  %e: u64[2] = const u64[2] [18446744073709551615, 9223372036854775808]'
}

@test "invalid-regressions.ir: errors found by this suite, kept as regression tests" { expect_diagnostics ir-parse invalid-regressions.ir; }

@test "invalid-u64.ir: integers out of the range of u64 and i64, as written" { expect_diagnostics ir-parse invalid-u64.ir; }

# found by tests/gen (ALLOW_U64_LITERAL_ABOVE_I64): a literal operand above
# INT64_MAX was refused, though a u64 holds it
@test "u64: literals above INT64_MAX, operands and loop level, print as written and read back" {
	cat > "$BATS_TEST_TMPDIR/u.ir" <<'IR'
device @cpu = cpu(0)
prim @p(%B: u64[3] @cpu, %F: f32[1] @cpu) {
  let %x: u64 = 18446744073709551615
  %B[0] = %x - 1
  %B[1] = %B[0] * 2 + 9223372036854775808
  %B[2] = select(%x > 9223372036854775809, -(9223372036854775808), %x)
  %F[0] = 18446744073709551615
}
fn @main(%x: u64[4]) -> (bool[4], u64[4], u64[]) {
  %a = greater(%x, 9223372036854775808)
  %b = where(%a, 18446744073709551615, %x)
  %c = @id(18446744073709551615)
  %t = (%a, %b, %c)
  return %t
}
fn @id(%v: u64[]) -> u64[] {
  return %v
}
IR
	run -0 ir-parse "$BATS_TEST_TMPDIR/u.ir"
	assert_line '  let %x: u64 = 18446744073709551615'
	assert_line '  %B[1] = %B[0] * 2 + 9223372036854775808'
	assert_line '  %B[2] = select(%x > 9223372036854775809, -(9223372036854775808), %x)'
	assert_line '  %F[0] = 18446744073709551615'
	assert_line '  %a: bool[4] = greater(%x, 9223372036854775808)'
	assert_line '  %b: u64[4] = where(%a, 18446744073709551615, %x)'
	assert_line '  %c: u64[] = @id(18446744073709551615)'
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/a.ir"
	ir-parse "$BATS_TEST_TMPDIR/a.ir" | cmp - "$BATS_TEST_TMPDIR/a.ir"
}

@test "const: an integer beyond 64 bits in a float constant is the float it spells" {
	run -0 ir-parse <<'IR'
fn @f() -> f64[2] {
  %a = const f64[2] [100000000000000000000, -18446744073709551616]
  return %a
}
IR
	assert_line '  %a: f64[2] = const f64[2] [1e+20, -1.8446744073709552e+19]'
}

@test "const: a float that rounds to the type's largest finite value fits; one that rounds to infinity does not" {
	# 3.4028235e38 is FLT_MAX's shortest text, a double just above FLT_MAX
	run -0 ir-parse <<'IR'
fn @f() -> (f32[2], f16[]) {
  %a = const f32[2] [3.4028235e38, -3.4028235e38]
  %b = const f16[] 65519.0
  %c = maximum(%a, 3.4028235e38)
  %t = (%c, %b)
  return %t
}
IR
	assert_line '  %a: f32[2] = const f32[2] [3.4028235e+38, -3.4028235e+38]'
	run -1 --separate-stderr ir-parse <<'IR'
fn @f() -> f32[] {
  %a = const f32[] 3.4028236e38
  return %a
}
IR
	assert_equal "${stderr_lines[0]}" "<stdin>:2:20: error: 3.40282e+38 is out of the range of f32"
	run -1 --separate-stderr ir-parse <<'IR'
fn @f() -> f16[] {
  %a = const f16[] 65520.0
  return %a
}
IR
	assert_equal "${stderr_lines[0]}" "<stdin>:2:20: error: 65520 is out of the range of f16"
}

@test "loop: the smallest i64 can be written in an expression" {
	run -0 ir-parse <<'IR'
device @cpu = cpu(0)
prim @p(%B: i64[1] @cpu) {
  %B[0] = -9223372036854775808
}
IR
	assert_line '  %B[0] = -9223372036854775808'
}

@test "print: a loc(...) file name with control characters prints escaped" {
	printf 'device @cpu = cpu(0) loc("a\\nb\\x01.ir":3:4)\n' > "$BATS_TEST_TMPDIR/nl.ir"
	run -0 ir-parse "$BATS_TEST_TMPDIR/nl.ir"
	assert_output 'device @cpu = cpu(0) loc("a\nb\x01.ir":3:4)'
	ir-parse "$BATS_TEST_TMPDIR/nl.ir" > "$BATS_TEST_TMPDIR/a.ir"
	ir-parse "$BATS_TEST_TMPDIR/a.ir" | cmp - "$BATS_TEST_TMPDIR/a.ir"
}

@test "print: a negated integer zero prints to a fixed point" {
	run -0 ir-parse <<'IR'
device @cpu = cpu(0)
prim @p(%A: i32[4] @cpu) {
  let %x = -(0)
  let %y = - 0
  for %i in -(0)..4 {
    %A[%i] = %x + %y
  }
}
IR
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/a.ir"
	run -0 ir-parse "$BATS_TEST_TMPDIR/a.ir"
	assert_output "$(cat "$BATS_TEST_TMPDIR/a.ir")"
}

@test "verify: a literal too big for i32 outside an operator call is an i64" {
	run -0 ir-parse <<'IR'
fn @f() {
  return 5000000000
}
IR
	assert_line 'fn @f() -> i64[] {'
}
