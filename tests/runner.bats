#!/usr/bin/env bats
# tests/run.sh (make check's runner) on a tree of three small bats files:
# a file's result line and its failures come out as soon as that file
# ends, while a slower one still runs; the summary, the list of failures at
# the end and the check for sanitizer reports stay as they were; the
# slowest jobs are listed with their wall time.

setup() {
	load test_helper
	t=$BATS_TEST_TMPDIR/tree
	mkdir -p "$t/tests" "$t/build/bin"
	cp "$BATS_TEST_DIRNAME/run.sh" "$t/tests/run.sh"
	# (the files say TEST for bats' keyword, which bats would read in this
	# file's heredocs too)
	# slow: ends only once the test has seen fast's result (or after 120 s)
	cat > "$t/tests/slow.bats" <<-'B'
		TEST "slow waits for go" {
			for i in $(seq 1200); do [ -e "$GO" ] && break; sleep 0.1; done
			[ -e "$GO" ]
		}
	B
	cat > "$t/tests/fast.bats" <<-'B'
		TEST "fast passes" { true; }
		TEST "fast fails" { echo boom; false; }
	B
	# san: a sanitizer report, written where ASAN_OPTIONS's log_path says
	cat > "$t/tests/san.bats" <<-'B'
		TEST "san writes a report" {
			p=${ASAN_OPTIONS#*log_path=}; p=${p%%:*}
			echo "ERROR: AddressSanitizer: heap-use-after-free" > "$p.42"
		}
	B
	sed -i 's/^TEST /@test /' "$t"/tests/*.bats
}

@test "run.sh: each bats file's result and failures come as soon as it ends; the summary is unchanged" {
	GO=$BATS_TEST_TMPDIR/go
	log=$BATS_TEST_TMPDIR/log
	# a clean environment, and a PATH without bats's own libexec, where
	# `bats` is the inner script that needs the outer one's set-up
	path=$(printf %s "$PATH" | tr : '\n' | grep -vxF "$BATS_LIBEXEC" | paste -sd:)
	env -i PATH="$path" HOME="$HOME" GO="$GO" IRPIPE_JOBS=3 \
		bash "$t/tests/run.sh" build > "$log" 2>&1 &
	pid=$!
	for i in $(seq 1200); do
		grep -q '^FAIL    tests/fast.bats' "$log" && break
		sleep 0.1
	done
	cat "$log"
	# fast's line, its failure and its output, while slow still waits
	grep -qx 'FAIL    tests/fast.bats (1 passed, 1 failed)' "$log"
	grep -qx 'not ok 2 fast fails' "$log"
	grep -qx '# boom' "$log"
	run -1 grep -c 'tests/slow.bats' "$log"
	touch "$GO"
	rc=0
	wait "$pid" || rc=$?
	cat "$log"
	[ "$rc" -eq 1 ]
	grep -qx 'ok      tests/slow.bats (1 passed)' "$log"
	grep -qx 'FAIL    sanitizer report from a run under build' "$log"
	grep -q '^#   ERROR: AddressSanitizer: heap-use-after-free' "$log"
	# the failures again at the end, then the summary, last
	sed -n '/^Failed:$/,$p' "$log" > "$BATS_TEST_TMPDIR/tail"
	grep -qx '  tests/fast.bats: 2 fast fails \[build\]' "$BATS_TEST_TMPDIR/tail"
	grep -qx '  sanitizer report from a run under build' "$BATS_TEST_TMPDIR/tail"
	[ "$(tail -n 1 "$log")" = "3 passed, 2 failed" ]
	# the jobs by wall time, longest first: slow (which waited for fast)
	# above the others, each labelled as its result line
	sed -n '/^slowest jobs (wall time, 3 at once):$/,/^Failed:$/p' "$log" > "$BATS_TEST_TMPDIR/slow"
	cat "$BATS_TEST_TMPDIR/slow"
	[ "$(sed -n 2p "$BATS_TEST_TMPDIR/slow" | awk '{ print $3 }')" = tests/slow.bats ]
	[ "$(grep -cE '^ +[0-9]+\.[0-9] s  tests/(slow|fast|san)\.bats$' "$BATS_TEST_TMPDIR/slow")" -eq 3 ]
}

@test "no_leak_check (the OpenCL tests) turns ASan's leak checker off and keeps run.sh's exit code and report folder" {
	# sourced outside bats: its complaints on stderr are not the point
	run -0 --separate-stderr env ASAN_OPTIONS="detect_leaks=1:exitcode=86:log_path=/r/asan" \
		bash -c '. "$1"; no_leak_check; echo "$ASAN_OPTIONS"' _ "$BATS_TEST_DIRNAME/test_helper.bash"
	assert_output "detect_leaks=1:exitcode=86:log_path=/r/asan:detect_leaks=0"
	run -0 --separate-stderr env -u ASAN_OPTIONS \
		bash -c '. "$1"; no_leak_check; echo "$ASAN_OPTIONS"' _ "$BATS_TEST_DIRNAME/test_helper.bash"
	assert_output "detect_leaks=0"
}
