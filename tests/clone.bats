#!/usr/bin/env bats
# module_clone (lib/module_clone.c): a module copied in memory prints as
# the module itself.  tests/bin/clone-print copies each module twice,
# freeing the first copy (under ASan a node shared with it is a use after
# free), and prints the second; ir-parse prints the original.  The modules
# are every input and golden output of the tools' tests that parses whole:
# graph and loop level, memory plans (places), OpenCL programs and
# launches, ifs, calls, constants in files, loc(...).

setup() {
	load test_helper
	cd "$BATS_TEST_DIRNAME/.." || return 1
	clone_print=$IRPIPE_BIN/../tests/bin/clone-print
}

# Every file under tests/ir-*/ that ir-parse accepts whole is copied; the
# corpus holds what a clone must carry.  The loop runs in a bash of its own
# (under bats' trap it would take seconds more).
@test "a clone prints as the module, with and without locations" {
	cat >"$BATS_TEST_TMPDIR/each.sh" <<'SH'
n=0 bad=0 all=
for f in $(find tests/ir-* -type f \( -name '*.ir' -o -name '*.out' \) | LC_ALL=C sort); do
	grep -q -e '^// -----' "$f" && continue
	want=$(ir-parse "$f" 2>/dev/null) || continue
	for opt in "" --locations; do
		want=$(ir-parse $opt "$f")
		got=$("$1" $opt "$f") || { echo "$f $opt: exit $?"; bad=1; continue; }
		[ "$want" = "$got" ] || { echo "$f $opt: differs"; bad=1; }
	done
	all+=$want
	n=$((n + 1))
done
[ "$n" -ge 100 ] || { echo "only $n modules"; bad=1; }
for what in ' in @' 'program @' 'launch(' ' = if ' 'prim @' 'call_lowered' 'file="' 'loc("'; do
	grep -q -F -e "$what" <<<"$all" || { echo "no module has '$what'"; bad=1; }
done
exit $bad
SH
	run -0 bash "$BATS_TEST_TMPDIR/each.sh" "$clone_print"
	assert_output ''
}

@test "a nest of ifs far deeper than a C stack is copied" {
	# (awk: a shell loop under bats' trap would take a minute)
	awk -v n=20000 'BEGIN {
		print "device @cpu = cpu(0)"
		print "fn @main(%c: bool[], %x: f32[2]) {"
		for (i = 0; i < n; i++) print "%v" i " = if %c {"
		print "%y = exp(%x)"; print "yield %y"
		for (i = n - 1; i >= 0; i--) {
			print "} else {"; print "yield %x"; print "}"
			if (i) print "yield %v" i
		}
		print "return %v0"; print "}"
	}' >"$BATS_TEST_TMPDIR/deep.ir"
	ir-parse "$BATS_TEST_TMPDIR/deep.ir" >"$BATS_TEST_TMPDIR/want"
	"$clone_print" "$BATS_TEST_TMPDIR/deep.ir" >"$BATS_TEST_TMPDIR/got"
	cmp "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
}
