#!/usr/bin/env bash
# tests/run.sh: the test runner behind `make check`.
#
#   bash tests/run.sh [BUILD_DIR]...        (default: build)
#
# Lints the man pages once, then runs, for every build directory, the unit
# tests ($BUILD/tests/unit/*) and every bats file under tests/ with
# IRPIPE_BIN=$BUILD/bin: all builds' files in one pool of IRPIPE_JOBS
# workers (default: the number of CPUs, at most 4), the slowest first,
# printing each file's result line (labelled [BUILD] when there are several
# builds) and its failures as soon as that file ends (so in the order they
# end); then the ten jobs that took longest, with their wall time
# (IRPIPE_SLOWEST: how many); the list of failures comes again at the
# end.  Sanitizer reports
# (AddressSanitizer and LeakSanitizer write them to files here) count as
# failures.  The last line
# is always "N passed, N failed" (", N skipped" is added when tests were
# skipped).  Exit status 0 when nothing failed, else 1.

set -u
cd "$(dirname "$0")/.." || exit 2
root=$PWD

[ $# -gt 0 ] || set -- build

jobs=${IRPIPE_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$jobs" -le 4 ] 2>/dev/null || jobs=4

tmp=$(mktemp -d "${TMPDIR:-/tmp}/irpipe-check.XXXXXX") || exit 2
py_pid=
trap '[ -z "$py_pid" ] || { kill "$py_pid"; wait "$py_pid"; } 2>/dev/null; rm -rf "$tmp"' EXIT

pass=0 fail=0 skip=0
failed=()

# result ok|fail NAME [OUTPUT_FILE]: one test case outside bats.
result() {
	if [ "$1" = ok ]; then
		pass=$((pass + 1))
		printf 'ok      %s\n' "$2"
	else
		fail=$((fail + 1))
		failed+=("$2")
		printf 'FAIL    %s\n' "$2"
		[ -z "${3-}" ] || [ ! -s "$3" ] || tail -n 60 "$3" | sed 's/^/#   /'
	fi
}

# --- man pages, once ---------------------------------------------------------
shopt -s nullglob
man=(man/*.[157])
if [ ${#man[@]} -gt 0 ]; then
	if command -v mandoc >/dev/null 2>&1; then
		if mandoc -Tlint -Wwarning "${man[@]}" >"$tmp/mandoc" 2>&1; then
			result ok "mandoc -Tlint man/ (${#man[@]} pages)"
		else
			result fail "mandoc -Tlint man/" "$tmp/mandoc"
		fi
	else
		echo "mandoc not found" >"$tmp/mandoc"
		result fail "mandoc -Tlint man/" "$tmp/mandoc"
	fi
fi

mapfile -t bats_files < <(find tests -name '*.bats' -type f | LC_ALL=C sort)

# parse_tap LABEL FILE TAPOUT RC: count one bats file's TAP output.
parse_tap() {
	local label=$1 file=$2 out=$3 rc=$4
	local plan=-1 n=0 p=0 f=0 s=0 show=0 line detail=
	while IFS= read -r line; do
		case $line in
		1..*)
			plan=${line#1..} ;;
		'not ok '*)
			n=$((n + 1)); f=$((f + 1)); show=1
			failed+=("$file: ${line#not ok } [$label]")
			detail+="$line"$'\n' ;;
		'ok '*)
			n=$((n + 1)); show=0
			case $line in
			*' # skip'*|*' # SKIP'*) s=$((s + 1)) ;;
			*) p=$((p + 1)) ;;
			esac ;;
		'#'*)
			[ $show -eq 0 ] || detail+="$line"$'\n' ;;
		'')
			;;
		*)	# not TAP: bats warnings, stray output; always shown
			detail+="#   $line"$'\n' ;;
		esac
	done <"$out"
	if [ "$plan" -gt "$n" ] 2>/dev/null; then
		f=$((f + plan - n))
		failed+=("$file: $((plan - n)) tests did not report [$label]")
		detail+="# $((plan - n)) of $plan tests did not report"$'\n'
	elif [ "$rc" -ne 0 ] && [ $f -eq 0 ]; then
		f=$((f + 1))
		failed+=("$file: bats exited with status $rc [$label]")
		detail+="# bats exited with status $rc"$'\n'
		[ "$plan" -ge 0 ] || detail+=$(sed 's/^/#   /' "$out")$'\n'
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	local msg="$p passed" name=$file
	[ $s -eq 0 ] || msg+=", $s skipped"
	[ -z "$many" ] || name+=" [$label]"
	if [ $f -eq 0 ]; then
		printf 'ok      %s (%s)\n' "$name" "$msg"
	else
		printf 'FAIL    %s (%s, %d failed)\n' "$name" "$msg" "$f"
	fi
	printf '%s' "$detail"
}

# --- every build's unit tests and bats files, in one pool ---------------------
# One queue for all builds (make check: the normal one and the sanitizer
# one), so that no pass waits for the other's slowest file, with the files
# that take longest first (a 2-core machine spends most of its time in a
# few of them, several times longer under the sanitizers): the pool then
# ends with short files instead of one long file running alone.  The order
# changes how long the whole takes, never what runs; a file missing from
# this list simply starts later.  It is by wall time under make check
# (tests/run.sh's jobs, both builds, 2 cores): the files that drive the
# tools from python (onnx_conformance, fold, random) spend their time in
# the python server, not in bats; onnx_conformance, with 2 workers of its
# own, is the longest job of all under the sanitizers.  Every build's
# slow files come before the next build's (see below).
slow_first="onnx_conformance run_ocl run_ocl_cache fold codegen onnx_models random
	run_ocl_exec plan_memory parse alter_onnx plan_devices alter_layout random_ocl
	onnx lower roundtrip flatten_texture clone fuzz"

if [ ${#bats_files[@]} -gt 0 ] && ! command -v bats >/dev/null 2>&1; then
	result fail "bats not found (sh scripts/deps.sh installs it)"
	bats_files=()
fi

# A job is a line "BUILD unit|bats PATH".  Later builds first: make check
# names the sanitizer build last, and it is the slower one.  The unit
# tests, seconds each, go first.
jobs_list=$tmp/jobs
builds=()
for build in "$@"; do
	case $build in /*) bin=$build/bin ;; *) bin=$root/$build/bin ;; esac
	if [ ! -d "$bin" ] && [ ! -d "$build/tests/unit" ]; then
		result fail "$build: nothing built ($build/bin is missing: no tools/ir-*.c yet?)"
		continue
	fi
	builds=("$build" "${builds[@]}")
	mkdir -p "$tmp/$build/san" "$tmp/$build/out"
done
# IRPIPE_CHECK_SHARED: a folder for what one job learns and another of
# the same run may use (tests/codegen.bats: the programs that built;
# test_helper.bash's made_once: torch's exports, generated models)
mkdir -p "$tmp/shared"
{
	for build in "${builds[@]}"; do
		for t in "$build"/tests/unit/*; do
			case $t in *.o|*.d) continue ;; esac
			[ -f "$t" ] && [ -x "$t" ] && echo "$build unit $t"
		done
	done
	# every build's slow files before the next build's: the sanitizer
	# build's (the longest jobs) first, and a file's two jobs far apart,
	# so that the second finds what the first left in IRPIPE_CHECK_SHARED
	for build in "${builds[@]}"; do
		for s in $slow_first; do
			[ -f "tests/$s.bats" ] && echo "$build bats tests/$s.bats"
		done
	done
	for f in "${bats_files[@]}"; do
		case " $(echo $slow_first) " in *" $(basename "$f" .bats) "*) continue ;; esac
		for build in "${builds[@]}"; do echo "$build bats $f"; done
	done
} >"$jobs_list"

# --- python3, started once ------------------------------------------------------
# The bats files start python3 (numpy, onnx, torch) about a thousand times
# a build; tests/helpers/pyserver.py imports those once (torch in a
# second server, for the few programs that name it) and runs each
# program in a fork of itself for py-client (tests/helpers/py-client.c),
# which test_helper.bash's $PY is while IRPIPE_PYSERVER is set.  The first
# build's client serves both builds: it is a test helper, and python3 is
# not sanitized.  A client that finds no server runs python3 itself.
for build in "${builds[@]}"; do
	case $build in /*) bin=$build/bin ;; *) bin=$root/$build/bin ;; esac
	[ -x "$bin/../tests/bin/py-client" ] && export IRPIPE_PYCLIENT=$bin/../tests/bin/py-client
	# tests/codegen.bats builds OpenCL C with it: POCL's work, not ours
	[ -x "$bin/../tests/bin/ocl-build" ] && export IRPIPE_OCL_BUILD=$bin/../tests/bin/ocl-build
done
if [ -n "${IRPIPE_PYCLIENT:-}" ] && [ -f tests/helpers/pyserver.py ] && [ -x /usr/bin/python3 ]; then
	export IRPIPE_PYSERVER=$tmp/py.sock
	/usr/bin/python3 tests/helpers/pyserver.py "$IRPIPE_PYSERVER" </dev/null >"$tmp/pyserver.log" 2>&1 &
	py_pid=$!
fi

# run_job BUILD TYPE PATH, in a worker: the job's output to
# $tmp/BUILD/out/NAME, its exit status to NAME.rc, then the job's line,
# NUL-ended, to the pipe (far shorter than PIPE_BUF: the lines of jobs
# ending together never mix).
run_job() {
	local build=$1 type=$2 path=$3 o bin
	o=$tmp/$build/out/$(printf %s "$path" | tr / _)
	case $build in /*) bin=$build/bin ;; *) bin=$root/$build/bin ;; esac
	export IRPIPE_BIN=$bin IRPIPE_CHECK_SHARED=$tmp/shared
	export ASAN_OPTIONS="detect_leaks=1:exitcode=86:check_initialization_order=1:strict_string_checks=1:log_path=$tmp/$build/san/asan"
	export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87"
	export LSAN_OPTIONS="exitcode=86"
	local t0=${EPOCHREALTIME/,/.}
	if [ "$type" = unit ]; then
		timeout "${IRPIPE_UNIT_TIMEOUT:-600}" "$path" >"$o" 2>&1 </dev/null
	else
		bats --tap "$path" >"$o" 2>&1 </dev/null
	fi
	echo $? >"$o.rc"
	echo "$t0 ${EPOCHREALTIME/,/.}" >"$o.time"
	printf '%s %s %s\0' "$build" "$type" "$path"
}
export -f run_job
export tmp root

# each line labelled with its build when there are several
[ ${#builds[@]} -gt 1 ] && many=1 || many=

queued=$(wc -l <"$jobs_list") reported=0
while IFS=' ' read -r -d '' build type path; do
	o=$tmp/$build/out/$(printf %s "$path" | tr / _)
	rc=$(cat "$o.rc" 2>/dev/null || echo 99)
	reported=$((reported + 1))
	if [ "$type" = bats ]; then
		parse_tap "$build" "$path" "$o" "$rc"
	elif [ "$rc" -eq 0 ]; then
		result ok "${path#"$build"/} [$build]"
	else
		echo "# exit status $rc" >>"$o"
		result fail "${path#"$build"/} [$build]" "$o"
	fi
done < <(xargs -L 1 -P "$jobs" bash -c 'run_job "$@"' run_job <"$jobs_list")
if [ "$reported" -ne "$queued" ]; then
	result fail "$((queued - reported)) of $queued test jobs did not report"
fi

# The jobs that took longest, in wall seconds (both workers busy): where
# the check's time goes, for slow_first above and for whoever makes the
# suite faster.
slowest=$tmp/slowest
: >"$slowest"
while IFS=' ' read -r build type path; do
	o=$tmp/$build/out/$(printf %s "$path" | tr / _)
	[ -s "$o.time" ] || continue
	read -r t0 t1 <"$o.time"
	awk -v a="$t0" -v b="$t1" -v n="${path#"$build"/}${many:+ [$build]}" \
		'BEGIN { printf "%8.1f s  %s\n", b - a, n }' >>"$slowest"
done <"$jobs_list"
if [ -s "$slowest" ]; then
	echo "slowest jobs (wall time, ${jobs} at once):"
	sort -rn "$slowest" | head -n "${IRPIPE_SLOWEST:-10}"
fi

# the python3 server's own errors (those of the programs it ran went to the tests)
if [ -s "$tmp/pyserver.log" ]; then
	result fail "tests/helpers/pyserver.py" "$tmp/pyserver.log"
fi

# --- sanitizer reports written to files -----------------------------------------
for build in "${builds[@]}"; do
	for r in "$tmp/$build/san"/*; do
		[ -s "$r" ] || continue
		result fail "sanitizer report from a run under $build" "$r"
	done
done

if [ ${#failed[@]} -gt 0 ]; then
	echo
	echo "Failed:"
	printf '  %s\n' "${failed[@]}"
fi
summary="$pass passed, $fail failed"
[ $skip -eq 0 ] || summary+=", $skip skipped"
echo "$summary"
[ $fail -eq 0 ]
