#!/usr/bin/env bats
# Canonical printing is a fixed point: for every valid module under tests/,
# printing what ir-parse printed gives the same bytes, with and without
# --locations.
#
# Which .ir files are valid modules: all of them except
#   - files under a bad/ directory or named *.bad.ir (inputs meant to fail),
#   - files under tests/fuzz/ (a fuzzing corpus: anything goes),
#   - files with expected-error/-warning/-note comments (--verify-diagnostics
#     inputs, meant to fail).
# A file with '// -----' separator lines is read with --split-input-file.

setup() {
	load test_helper
	cd "$BATS_TEST_DIRNAME/.." || return 1
}

# Prints the valid modules under tests/, one path per line, sorted.
valid_modules() {
	find tests -name '*.ir' -type f \
		! -path '*/bad/*' ! -name '*.bad.ir' ! -path 'tests/fuzz/*' |
		LC_ALL=C sort |
		while IFS= read -r f; do
			grep -q -E 'expected-(error|warning|note)' "$f" || printf '%s\n' "$f"
		done
}

# split_opt FILE: sets opt to the options FILE needs: --split-input-file
# when it has '// -----' separator lines.
split_opt() {
	opt=()
	if grep -q -E '^// -----[[:space:]]*$' "$1"; then
		opt=(--split-input-file)
	fi
}

# roundtrip [OPTION]...: checks every valid module, first all at once
# (roundtrip_all), and only when that fails each file on its own
# (roundtrip_each), which lists every file that fails, not just the first.
roundtrip() {
	roundtrip_all "$@" || roundtrip_each "$@"
}

# roundtrip_all [OPTION]...: every valid module as a part of one
# --split-input-file input prints to a fixed point: two starts of ir-parse,
# not two a file (a start under ASan costs 8 ms of CPU).  The parts are
# the files' modules, each printed as alone (a file's own '// -----'
# parts are parts here too).
roundtrip_all() {
	local all=$BATS_TEST_TMPDIR/all files
	mapfile -t files < <(valid_modules)
	[ "${#files[@]}" -ge 20 ] &&
		join_parts "${files[@]}" > "$all.ir" &&
		ir-parse --split-input-file "$@" "$all.ir" > "$all.a" 2> /dev/null &&
		ir-parse --split-input-file "$@" "$all.a" > "$all.b" 2> /dev/null &&
		cmp -s "$all.a" "$all.b"
}

# roundtrip_each [OPTION]...: checks every valid module file by file.
roundtrip_each() {
	local f a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b bad='' n=0
	local -a opt
	while IFS= read -r f; do
		n=$((n + 1))
		split_opt "$f"
		if ! ir-parse "${opt[@]}" "$@" "$f" > "$a" 2> "$BATS_TEST_TMPDIR/err"; then
			bad+="$f: ir-parse failed: $(head -n 1 "$BATS_TEST_TMPDIR/err")"$'\n'
			continue
		fi
		if ! ir-parse "${opt[@]}" "$@" "$a" > "$b" 2> "$BATS_TEST_TMPDIR/err"; then
			bad+="$f: its output does not parse: $(head -n 1 "$BATS_TEST_TMPDIR/err")"$'\n'
			continue
		fi
		cmp -s "$a" "$b" || bad+="$f: printing the output again changes it"$'\n'$(diff -u "$a" "$b" | head -n 20)$'\n'
	done < <(valid_modules)
	# the fixtures of tests/ir-parse alone are 20 files
	[ "$n" -ge 20 ] || bad+="only $n modules found"$'\n'
	if [ -n "$bad" ]; then
		printf '%s' "$bad" >&2
		return 1
	fi
}

@test "roundtrip: the fixtures are found, and bad inputs are left out" {
	run valid_modules
	assert_line tests/ir-parse/decls.ir
	assert_line tests/ir-parse/prim_kernel.ir
	assert_line tests/ir-parse/split.ir
	refute_line --regexp '/bad/|\.bad\.ir$'
	refute_line tests/ir-plan-devices/errors.ir
}

@test "roundtrip: every valid module prints to a fixed point" {
	untraced roundtrip
}

@test "roundtrip: every valid module prints to a fixed point with --locations" {
	untraced roundtrip --locations
}

# locations_only: every valid module without loc(...) prints the same
# with --locations once its loc(...) are removed: all at once (two starts
# of ir-parse, as roundtrip_all), then, only if that fails, file by file,
# which names them
locations_only() {
	local f bad='' all=$BATS_TEST_TMPDIR/all files=()
	while IFS= read -r f; do
		# files that carry loc(...) already print them either way
		grep -q 'loc(' "$f" || files+=("$f")
	done < <(valid_modules)
	if join_parts "${files[@]}" > "$all.ir" &&
		ir-parse --split-input-file "$all.ir" > "$all.plain" 2> /dev/null &&
		ir-parse --split-input-file --locations "$all.ir" 2> /dev/null |
			sed -E 's/ loc\("[^"]*":[0-9]+:[0-9]+\)//g' > "$all.stripped" &&
		cmp -s "$all.plain" "$all.stripped"; then
		return 0
	fi
	local -a opt
	while IFS= read -r f; do
		# files that carry loc(...) already print them either way
		grep -q 'loc(' "$f" && continue
		split_opt "$f"
		ir-parse "${opt[@]}" "$f" > "$BATS_TEST_TMPDIR/plain"
		ir-parse "${opt[@]}" --locations "$f" |
			sed -E 's/ loc\("[^"]*":[0-9]+:[0-9]+\)//g' > "$BATS_TEST_TMPDIR/stripped"
		cmp -s "$BATS_TEST_TMPDIR/plain" "$BATS_TEST_TMPDIR/stripped" || bad+="$f"$'\n'
	done < <(valid_modules)
	[ -z "$bad" ] || { printf 'differ once loc(...) is removed:\n%s' "$bad" >&2; return 1; }
}

@test "roundtrip: --locations adds only loc(...) to the canonical text" {
	untraced locations_only
}

@test "roundtrip: --locations output names the input file and its lines" {
	run -0 ir-parse --locations tests/ir-parse/network.ir
	assert_line --index 0 'device @cpu = cpu(0) loc("tests/ir-parse/network.ir":3:1)'
	assert_line '  %0: f32[1,16,30,30] = nn.conv2d(%x, %w1) {channels=16, kernel_size=[3, 3], padding=[0, 0, 0, 0], strides=[1, 1]} loc("tests/ir-parse/network.ir":9:3)'
	assert_line '  return %7 loc("tests/ir-parse/network.ir":17:3)'
	# a later stage keeps the first input's positions, not its own
	ir-parse --locations tests/ir-parse/network.ir > "$BATS_TEST_TMPDIR/a.ir"
	run -0 ir-parse "$BATS_TEST_TMPDIR/a.ir"
	assert_line '  return %7 loc("tests/ir-parse/network.ir":17:3)'
}

# Every tool's output is a module the tools read back, canonical: for each
# valid module, each stage of the pipeline below prints what ir-parse
# prints again byte for byte.  Some stages may refuse what they are given
# with a located error (exit 1, nothing on stdout), and the chain ends
# there: the first planning, for a module written for ir-parse alone (no
# device declared, conflicting annotations), and ir-flatten-texture and
# ir-codegen-ocl, for hand-written prims they do not take (a statement
# outside a kernel, an image of rank 2).  Between the first planning and
# the second lowering every stage must succeed: a tool that refuses what
# an earlier one wrote is a bug (ir-lower's rank-0 `%p[]` was one, and so
# was its own split binding).
# every_stage: every module through the stages all at once, a start of
# each tool and one of ir-parse a stage for all (--split-input-file
# --keep-going, each file's parts the parts of one input), and file by file
# (every_stage_each) only where that cannot say: a file whose part fails a
# stage runs that stage alone on its own input, as every_stage_each runs
# it, to see whether it may end there; if a stage's output does not
# re-parse to itself, or the batch goes wrong otherwise, every_stage_each
# checks every file, naming those that fail.
every_stage() {
	local d=$BATS_TEST_TMPDIR/batch f t i j rc bad='' in out err
	local -a files parts live ins next failed opt stages=(ir-parse ir-plan-devices ir-lower
		ir-plan-devices ir-lower ir-flatten-texture ir-codegen-ocl)
	mkdir -p "$d"
	mapfile -t files < <(valid_modules)
	for j in "${!files[@]}"; do
		cp "${files[$j]}" "$d/$j.in"
		parts[j]=$(($(grep -c -E '^// -----[[:space:]]*$' "${files[$j]}" || true) + 1))
	done
	live=("${!files[@]}")
	for i in "${!stages[@]}"; do
		t=${stages[$i]}
		[ ${#live[@]} -gt 0 ] || break
		ins=()
		for j in "${live[@]}"; do ins+=("$d/$j.in"); done
		join_parts "${ins[@]}" > "$d/all.ir"
		rc=0
		"$t" --split-input-file --keep-going "$d/all.ir" > "$d/all.out" 2> "$d/all.err" || rc=$?
		case $rc in 0|1) ;; *) every_stage_each; return ;; esac
		ir-parse --split-input-file "$d/all.out" 2> /dev/null | cmp -s "$d/all.out" - ||
			{ every_stage_each; return; }
		# the files of the failed parts, to $d/failed; each other file's
		# output, its parts joined again, to $d/J.out
		mapfile -t failed < <(sed -n 's/.*: part \([0-9]*\) of [0-9]*, from this line, failed$/\1/p' "$d/all.err")
		rm -f "$d/failed"
		for j in "${live[@]}"; do printf '%s %s\n' "$j" "${parts[$j]}"; done |
			awk -v dir="$d" -v all="$d/all.out" -v bad="${failed[*]}" '
				BEGIN { nb = split(bad, b, " ") }
				{ file[NR] = $1; np[NR] = $2 }
				END {
					q = 1
					for (k = 1; k <= NR; k++) {
						for (x = 1; x <= nb; x++)
							if (b[x] + 0 >= q && b[x] + 0 < q + np[k])
								print file[k] > (dir "/failed")
						q += np[k]
					}
					r = 1; left = np[1]; f = dir "/" file[1] ".out"
					printf "" > f
					while ((getline line < all) > 0) {
						if (line == "// -----" && --left == 0) {
							close(f)
							if (++r > NR)
								exit 1
							left = np[r]; f = dir "/" file[r] ".out"
							printf "" > f
							continue
						}
						print line > f
					}
					exit r != NR
				}' || { every_stage_each; return; }
		next=()
		for j in "${live[@]}"; do
			if ! grep -qx "$j" "$d/failed" 2> /dev/null; then
				mv "$d/$j.out" "$d/$j.in"
				next+=("$j")
				continue
			fi
			# as every_stage_each runs it: alone, on its own input
			f=${files[$j]}
			split_opt "$f"
			in=$d/$j.in out=$d/$j.alone err=$d/$j.err
			if "$t" "${opt[@]}" "$in" > "$out" 2> "$err"; then
				every_stage_each
				return
			fi
			if { [ "$i" -eq 1 ] || [ "$i" -ge 5 ]; } && [ ! -s "$out" ] &&
				grep -q -E '^[^ ]+:[0-9]+:[0-9]+: error: ' "$err"; then
				continue
			fi
			bad+="$f: stage $((i + 1)) ($t) failed: $(head -n 1 "$err")"$'\n'
		done
		live=("${next[@]}")
	done
	# most fixtures of tests/ir-plan-devices and tests/ir-lower get through
	[ "${#live[@]}" -ge 40 ] || bad+="only ${#live[@]} modules went through every stage"$'\n'
	if [ -n "$bad" ]; then
		printf '%s' "$bad" >&2
		return 1
	fi
}

every_stage_each() {
	local f t i bad='' n=0 out err=$BATS_TEST_TMPDIR/err
	local -a opt stages=(ir-parse ir-plan-devices ir-lower ir-plan-devices ir-lower
		ir-flatten-texture ir-codegen-ocl)
	while IFS= read -r f; do
		split_opt "$f"
		local in=$f
		for i in "${!stages[@]}"; do
			t=${stages[$i]}
			out=$BATS_TEST_TMPDIR/s$i.ir
			if ! "$t" "${opt[@]}" "$in" > "$out" 2> "$err"; then
				if { [ "$i" -eq 1 ] || [ "$i" -ge 5 ]; } && [ ! -s "$out" ] &&
					grep -q -E '^[^ ]+:[0-9]+:[0-9]+: error: ' "$err"; then
					break
				fi
				bad+="$f: stage $((i + 1)) ($t) failed: $(head -n 1 "$err")"$'\n'
				break
			fi
			if ! ir-parse "${opt[@]}" "$out" 2> "$err" | cmp -s "$out" -; then
				bad+="$f: the output of stage $((i + 1)) ($t) does not re-parse to the same bytes: $(head -n 1 "$err")"$'\n'
				break
			fi
			in=$out
			[ "$i" -eq 6 ] && n=$((n + 1))
		done
	done < <(valid_modules)
	# most fixtures of tests/ir-plan-devices and tests/ir-lower get through
	[ "$n" -ge 40 ] || bad+="only $n modules went through every stage"$'\n'
	if [ -n "$bad" ]; then
		printf '%s' "$bad" >&2
		return 1
	fi
}

@test "roundtrip: every stage of parse | plan | lower | plan | lower | flatten | codegen re-parses to the same bytes" {
	untraced every_stage
}
