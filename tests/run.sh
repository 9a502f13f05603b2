#!/usr/bin/env bash
# tests/run.sh: the test runner behind `make check`.
#
#   bash tests/run.sh [BUILD_DIR]...        (default: build)
#
# Lints the man pages once, then for each build directory runs the unit
# tests ($BUILD/tests/unit/*) and every bats file under tests/ with
# IRPIPE_BIN=$BUILD/bin, bats files in parallel (IRPIPE_JOBS, default: the
# number of CPUs, at most 4), printing each file's result line and its
# failures as soon as that file ends (so in the order they end); the list
# of failures comes again at the end.  Sanitizer reports (AddressSanitizer and
# LeakSanitizer write them to files here) count as failures.  The last line
# is always "N passed, N failed" (", N skipped" is added when tests were
# skipped).  Exit status 0 when nothing failed, else 1.

set -u
cd "$(dirname "$0")/.." || exit 2
root=$PWD

[ $# -gt 0 ] || set -- build

jobs=${IRPIPE_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$jobs" -le 4 ] 2>/dev/null || jobs=4

tmp=$(mktemp -d "${TMPDIR:-/tmp}/irpipe-check.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

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
	local msg="$p passed"
	[ $s -eq 0 ] || msg+=", $s skipped"
	if [ $f -eq 0 ]; then
		printf 'ok      %s (%s)\n' "$file" "$msg"
	else
		printf 'FAIL    %s (%s, %d failed)\n' "$file" "$msg" "$f"
	fi
	printf '%s' "$detail"
}

for build in "$@"; do
	case $build in /*) bin=$build/bin ;; *) bin=$root/$build/bin ;; esac
	label=$build
	echo "== $build"
	if [ ! -d "$bin" ] && [ ! -d "$build/tests/unit" ]; then
		result fail "$build: nothing built ($build/bin is missing: no tools/ir-*.c yet?)"
		continue
	fi
	logs=$tmp/$build/san
	mkdir -p "$logs"
	export IRPIPE_BIN=$bin
	export ASAN_OPTIONS="detect_leaks=1:exitcode=86:check_initialization_order=1:strict_string_checks=1:log_path=$logs/asan"
	export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87"
	export LSAN_OPTIONS="exitcode=86"

	# --- unit tests ----------------------------------------------------------
	for t in "$build"/tests/unit/*; do
		case $t in *.o|*.d) continue ;; esac
		[ -f "$t" ] && [ -x "$t" ] || continue
		name=${t#"$build"/}
		if timeout "${IRPIPE_UNIT_TIMEOUT:-600}" "$t" >"$tmp/unit.out" 2>&1; then
			result ok "$name [$label]"
		else
			echo "# exit status $?" >>"$tmp/unit.out"
			result fail "$name [$label]" "$tmp/unit.out"
		fi
	done

	# --- bats, files in parallel, each reported as soon as it ends --------------
	# (a build's pass takes an hour on a loaded machine: nothing waits for
	# the slowest file).  Each worker writes its file's name, NUL-ended, to
	# the pipe once its TAP output and status are on disk; a name is far
	# shorter than PIPE_BUF, so names of files ending together never mix.
	if [ ${#bats_files[@]} -gt 0 ]; then
		if ! command -v bats >/dev/null 2>&1; then
			result fail "bats not found (sh scripts/deps.sh installs it)"
		else
			out=$tmp/$build/tap
			mkdir -p "$out"
			reported=0
			while IFS= read -r -d '' file; do
				o=$out/$(printf %s "$file" | tr / _)
				parse_tap "$label" "$file" "$o" "$(cat "$o.rc" 2>/dev/null || echo 99)"
				reported=$((reported + 1))
			done < <(printf '%s\0' "${bats_files[@]}" |
				xargs -0 -P "$jobs" -n 1 sh -c '
					o=$1/$(printf %s "$2" | tr / _)
					bats --tap "$2" >"$o" 2>&1 </dev/null
					echo $? >"$o.rc"
					printf "%s\0" "$2"' sh "$out")
			if [ "$reported" -ne ${#bats_files[@]} ]; then
				result fail "$build: $((${#bats_files[@]} - reported)) bats files did not report"
			fi
		fi
	fi

	# --- sanitizer reports written to files -----------------------------------
	for r in "$logs"/*; do
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
