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
	# first every module at once: one start of ir-parse and of clone-print
	# for all, a file a part (exit 3 if they differ: each.sh then names
	# the files)
	cat >"$BATS_TEST_TMPDIR/all.sh" <<'SH'
t=$2 files=() ok=() i=0
for f in $(find tests/ir-* -type f \( -name '*.ir' -o -name '*.out' \) | LC_ALL=C sort); do
	grep -q -e '^// -----' "$f" || files+=("$f")
done
join() {
	awk 'BEGIN { for (i = 1; i < ARGC; i++) { if (i > 1) print "// -----"
		while ((r = (getline l < ARGV[i])) > 0) print l
		if (r < 0) exit 2; close(ARGV[i]) } }' "$@"
}
join "${files[@]}" > "$t/cand.ir" || exit 3
# the files that parse whole: the parts --keep-going does not name
ir-parse --split-input-file --keep-going "$t/cand.ir" > /dev/null 2> "$t/err"
[ $? -le 1 ] || exit 3
sed -n 's/^ir-parse: .*: part \([0-9]*\) of [0-9]*, from this line, failed$/\1/p' "$t/err" > "$t/failed"
for f in "${files[@]}"; do
	i=$((i + 1))
	grep -q -x "$i" "$t/failed" || ok+=("$f")
done
join "${ok[@]}" > "$t/all.ir" || exit 3
for opt in "" --locations; do
	ir-parse --split-input-file $opt "$t/all.ir" > "$t/want" 2> /dev/null || exit 3
	"$1" --split-input-file $opt "$t/all.ir" > "$t/got" 2> /dev/null || exit 3
	cmp -s "$t/want" "$t/got" || exit 3
done
[ "${#ok[@]}" -ge 100 ] || { echo "only ${#ok[@]} modules"; exit 1; }
for what in ' in @' 'program @' 'launch(' ' = if ' 'prim @' 'call_lowered' 'file="' 'loc("'; do
	grep -q -F -e "$what" "$t/want" || { echo "no module has '$what'"; exit 1; }
done
SH
	run bash "$BATS_TEST_TMPDIR/all.sh" "$clone_print" "$BATS_TEST_TMPDIR"
	if [ "$status" -ne 3 ]; then
		assert_success
		assert_output ''
		return
	fi
	run -0 bash "$BATS_TEST_TMPDIR/each.sh" "$clone_print"
	assert_output ''
	echo "all at once differs where every module alone prints as its clone"
	return 1
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
