# Loaded by every .bats file: bats libraries and the tools on PATH.
bats_require_minimum_version 1.5.0

# load_libraries NAME...: the bats libraries NAME (bats-support,
# bats-assert) without most of their cost.  A library's load.bash names
# each of its files as `source "$(dirname "${BASH_SOURCE[0]}")/FILE"`, a
# process each, and bats traces every command a test runs: loading
# bats-support and bats-assert took 35 ms of CPU before every test, two
# minutes of make check.  The first test of a bats run writes the list of
# the files that load.bash sources (library_files) to BATS_RUN_TMPDIR, and,
# since most tests call no assert_*, a stub for each function those files
# define, which sources the list and calls the function: a test that
# calls none loads nothing (9 ms a test less).  A load.bash of any other
# form, or none, is left to bats_load_library, loaded before every test.
load_libraries() {
	local list=$BATS_RUN_TMPDIR/irpipe-libraries.bash
	local stubs=$BATS_RUN_TMPDIR/irpipe-library-stubs.bash
	if [ ! -f "$stubs" ]; then
		local lib
		if {
			for lib in "$@"; do library_files "$lib" || exit 1; done
		} >"$list.$$" && library_stubs "$list.$$" >"$stubs.$$"; then
			mv -f "$list.$$" "$list"
			mv -f "$stubs.$$" "$stubs"
		else
			rm -f "$list.$$" "$stubs.$$"
			for lib in "$@"; do bats_load_library "$lib"; done
			return
		fi
	fi
	# shellcheck disable=SC1090
	source "$stubs"
}

# library_files NAME: `source FILE` for each file that NAME's load.bash
# sources, or status 1 if it does anything else.
library_files() {
	local d f= line
	local re='^source "\$\(dirname "\$\{BASH_SOURCE\[0\]\}"\)/([^"$`]+)"$'
	local IFS=:
	for d in ${BATS_LIB_PATH:-/usr/lib/bats}; do
		if [ -f "$d/$1/load.bash" ]; then f=$d/$1/load.bash; break; fi
	done
	IFS=$' \t\n'
	[ -n "$f" ] || return 1
	while IFS= read -r line; do
		case $line in '' | '#'*) continue ;; esac
		[[ $line =~ $re ]] || return 1
		printf 'source %q\n' "${f%/load.bash}/${BASH_REMATCH[1]}"
	done <"$f"
}

# library_stubs LIST: for each function the files of LIST (written by
# library_files) define, NAME() { source LIST; NAME "$@"; }: sourcing LIST
# replaces every stub with the library's function.  Status 1 if the files
# hold anything but function definitions (then they load eagerly).  One
# awk: bats traces every command, and a loop in bash over the files' lines
# took a second.
library_stubs() {
	local files=() _ f
	while read -r _ f; do
		eval "files+=($f)"
	done <"$1"
	awk -v list="$(printf %q "${1%.$$}")" '
		/^$/ || /^#/ || /^[ \t]/ || /^}$/ { next }
		/^[A-Za-z_][A-Za-z_0-9]*\(\) \{$/ { n++; name[n] = substr($0, 1, index($0, "(") - 1); next }
		{ bad = 1 }
		END {
			if (bad || !n) exit 1
			for (i = 1; i <= n; i++)
				printf "%s() { source %s; %s \"$@\"; }\n", name[i], list, name[i]
		}' "${files[@]}"
}
load_libraries bats-support bats-assert

# have_python MODULE...: Debian's python3 has every MODULE.  Found, not
# imported: tests skip without them, and importing torch before every
# test cost 1.5 s of CPU each time; asked once a bats run (the answer in
# BATS_RUN_TMPDIR), not before every test.
have_python() {
	local f=$BATS_RUN_TMPDIR/irpipe-have-python-${*// /-} r
	if [ ! -f "$f" ]; then
		/usr/bin/python3 -c 'import sys, importlib.util as u
sys.exit(not all(u.find_spec(m) for m in sys.argv[1:]))' "$@" 2>/dev/null
		echo $? >"$f.$$" && mv -f "$f.$$" "$f"
	fi
	read -r r <"$f" && [ "$r" = 0 ]
}

# PY: python3 for the tests (Debian's: it has numpy, onnx and torch), or,
# under tests/run.sh, py-client, which runs the same command line in the
# server that run.sh started with those modules imported once (0.1 to 1.5
# s of CPU a start less).
PY=/usr/bin/python3
if [ -n "${IRPIPE_PYSERVER:-}" ] && [ -x "${IRPIPE_PYCLIENT:-}" ]; then
	PY=$IRPIPE_PYCLIENT
fi

IRPIPE_BIN=${IRPIPE_BIN:-$BATS_TEST_DIRNAME/../build/bin}
# absolute, as tests/run.sh gives it: kept, without a subshell before
# every test (1.5 ms of CPU each, 2 s a make check); else made so
case $IRPIPE_BIN in
/*/ | *//* | */./* | */../* | */. | */.. | [!/]*) IRPIPE_BIN=$(cd "$IRPIPE_BIN" && pwd) ;;
*) [ -d "$IRPIPE_BIN" ] || IRPIPE_BIN=$(cd "$IRPIPE_BIN" && pwd) ;;
esac
PATH="$IRPIPE_BIN:$PATH"
export LC_ALL=C NO_COLOR=1

# untraced FUNCTION [ARG...]: FUNCTION in a subshell without bats's trace.
# Bats runs a function of its own (a DEBUG trap) before every command of a
# test: a loop over every test module spent 4 ms of CPU a pass in it, more
# than the tools it ran.  Nothing else changes: set -e holds, so the first
# command that fails ends FUNCTION and fails the test (at the line of the
# untraced call: FUNCTION says what failed).
untraced() {
	( trap - DEBUG; "$@" )
}

# expect_diagnostics TOOL FILE: TOOL --split-input-file --verify-diagnostics
# accepts tests/TOOL/FILE: every part produced exactly the diagnostics its
# expected-* comments name (line, column, message), and every part was
# rejected, so stdout holds nothing but the '// -----' separators.
expect_diagnostics() {
	run -0 --separate-stderr "$1" --split-input-file --verify-diagnostics \
		"$BATS_TEST_DIRNAME/$1/$2"
	assert_equal "$stderr" ''
	local printed
	printed=$(printf '%s\n' "$output" | grep -v -x -e '// -----' -e '' || true)
	assert_equal "$printed" ''
}

# golden [--from=PRE]... TOOL NAME [OPTION...]: TOOL OPTION... on
# tests/TOOL/NAME.ir (or on what the PRE tools, in order, made of it:
# ir-lower's inputs are planned first) prints tests/TOOL/NAME.out;
# UPDATE_GOLDEN=1 rewrites that file instead.  The output parses back to
# the same bytes, and TOOL run on it again changes nothing.  Runs in
# tests/TOOL/, so a loc(...) names the input as NAME.ir.
golden() {
	local -a from=()
	while [[ $1 == --from=* ]]; do
		from+=("${1#--from=}")
		shift
	done
	local tool=$1 name=$2 pre i=0
	shift 2
	cd "$BATS_TEST_DIRNAME/$tool" || return 1
	local in=$name.ir got=$BATS_TEST_TMPDIR/$name.out
	for pre in "${from[@]}"; do
		i=$((i + 1))
		"$pre" "$in" > "$BATS_TEST_TMPDIR/$name.in$i.ir"
		in=$BATS_TEST_TMPDIR/$name.in$i.ir
	done
	"$tool" "$@" "$in" > "$got"
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$got" "$name.out"
	fi
	diff -u "$name.out" "$got"
	ir-parse "$got" | diff -u "$got" -
	if [ "$tool" != ir-parse ]; then
		"$tool" "$@" "$got" | diff -u "$got" -
	fi
}

# made_once NAME DIR COMMAND...: what `COMMAND... FOLDER` writes into
# FOLDER, in DIR.  Under tests/run.sh ($IRPIPE_CHECK_SHARED) FOLDER is
# shared by the jobs of every build: the first job that gets here runs
# COMMAND (the others wait for it) and every job copies the result, so
# work that no tool of the build takes part in (torch exporting a model,
# its output) is done once a make check, not once a build.  A COMMAND
# that fails leaves nothing behind: the next job runs it again.
made_once() {
	local name=$1 dir=$2 shared=${IRPIPE_CHECK_SHARED:-} fd
	shift 2
	if [ -z "$shared" ]; then
		"$@" "$dir"
		return
	fi
	exec {fd}>"$shared/$name.lock"
	flock "$fd"
	if [ ! -d "$shared/$name" ]; then
		rm -rf "$shared/$name.part"
		mkdir "$shared/$name.part"
		"$@" "$shared/$name.part" && mv "$shared/$name.part" "$shared/$name"
	fi
	exec {fd}>&-
	[ -d "$shared/$name" ] && cp -R "$shared/$name/." "$dir/"
}

# ocl_setup: for the suites that run ir-run on OpenCL (POCL here) and
# compare with the interpreter: H, the helper tests/ir-run-ocl/npyio.py
# (run by $PY) that writes inputs and compares outputs, or the
# test skipped without numpy; ASan's leak checker off, since it cannot
# tell an OpenCL driver's lasting allocations from ours.
ocl_setup() {
	H="$BATS_TEST_DIRNAME/ir-run-ocl/npyio.py"
	have_python numpy || skip "python3-numpy is not installed"
	no_leak_check
}

# no_leak_check: ASan's leak checker off for the rest of the test (an
# OpenCL driver's lasting allocations), run.sh's other ASan options kept:
# replacing them dropped exitcode=86 and log_path, so a report in an
# OpenCL test exited 1, which a test expecting a failure took for one.
# NO_LEAK_CHECK is the same options for one command's environment.
no_leak_check() {
	export ASAN_OPTIONS=$NO_LEAK_CHECK
}
NO_LEAK_CHECK=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

# chain_model N FILE: a cpu model of 2N elementwise calls, compiled
# (--no-fuse) to FILE.ocl.ir: v_i = exp(u_(i-1)), u_i = v_i + u_(i-1), so
# two f32[64,64] values are made per step, each dead two steps later.
chain_model() {
	local n=$1 f=$2 i
	{
		printf 'device @cpu = cpu(0)\nfn @main(%%u0: f32[64,64]) -> f32[64,64] {\n'
		for i in $(seq 1 "$n"); do
			printf '  %%v%d = exp(%%u%d)\n  %%u%d = add(%%v%d, %%u%d)\n' $i $((i - 1)) $i $i $((i - 1))
		done
		printf '  return %%u%d\n}\n' "$n"
	} > "$f"
	ir-plan-devices "$f" | ir-lower --no-fuse | ir-plan-devices | ir-flatten-texture \
		| ir-codegen-ocl > "${f%.ir}.ocl.ir"
}

# retarget DEV FILE: the module with every device declared as a cpu, a gpu
# without images, or (tex) a gpu with images.
retarget() {
	local to
	case $1 in
	cpu) to='cpu(\2)' ;;
	gpu) to='gpu(\2)' ;;
	tex) to='gpu(\2) {texture=true}' ;;
	esac
	sed -E "s/= (cpu|gpu)\(([0-9]+)\)( \{[^}]*\})?/= $to/" "$2"
}

# compiled IN OUT [ir-lower option]: IN through the whole pipeline to
# OpenCL C, into OUT.
compiled() {
	ir-plan-devices "$1" | ir-lower ${3:-} | ir-plan-devices | ir-flatten-texture \
		| ir-codegen-ocl > "$2"
}

# join_parts FILE...: the modules FILE... as one input of
# --split-input-file, a '// -----' line between two (an empty FILE is an
# empty part).
join_parts() {
	awk 'BEGIN {
		for (i = 1; i < ARGC; i++) {
			if (i > 1)
				print "// -----"
			while ((r = (getline line < ARGV[i])) > 0)
				print line
			if (r < 0) {
				print "join_parts: cannot read " ARGV[i] > "/dev/stderr"
				exit 2
			}
			close(ARGV[i])
		}
	}' "$@"
}

# split_parts FILE SUFFIX IN...: the parts of FILE (a tool's
# --split-input-file output, one part an IN) into files named as IN less
# .ir with SUFFIX; status 1 if FILE has more or fewer parts.
split_parts() {
	local all=$1 suffix=$2
	shift 2
	printf '%s\n' "${@%.ir}" | awk -v suffix="$suffix" -v all="$all" '
		{ out[n++] = $0 suffix }
		END {
			f = out[i = 0]
			printf "" > f
			while ((getline line < all) > 0) {
				if (line == "// -----") {
					close(f)
					if (++i == n)
						exit 1
					printf "" > (f = out[i])
				} else {
					print line > f
				}
			}
			exit i != n - 1
		}'
}

# ran_each OUT ARGS IN...: `ir-run ARGS` (a string, split into words) of
# every IN, in one start of ir-run for all (--split-input-file, a part an
# IN, the joined input beside the first IN, whose folder the constant
# files are read from as for each IN), IN number i's result in the folder
# OUT as i.npy, or i/ for a tuple.  If that fails, each IN runs alone into
# the same place, so that the error names it (on stdout, with "IN: fails").
ran_each() {
	local out=$1 args=$2 f i=0 r all
	shift 2
	all=$(mktemp "${1%/*}/parts.XXXXXX.ir")
	join_parts "$@" > "$all"
	# shellcheck disable=SC2086
	if ir-run --split-input-file $args -o "$out" "$all" 2> "$all.err"; then
		return 0
	fi
	for f in "$@"; do
		r=$out/$i.npy
		grep -q -- '-> (' "$f" && r=$out/$i
		# shellcheck disable=SC2086
		ir-run $args -o "$r" "$f" 2> "$all.err" || { cat "$all.err"; echo "$f: fails"; return 1; }
		i=$((i + 1))
	done
	echo "ran_each: --split-input-file failed where every module runs alone:"
	cat "$all.err"
	return 1
}

# compiled_each OPTION SUFFIX IN...: what `compiled IN OUT OPTION` writes
# for each IN, into IN less .ir with SUFFIX, each tool of the pipeline
# started once for every IN (--split-input-file, a part a module: the
# same bytes, and a start under ASan costs 8 ms of CPU).  If that fails,
# each IN goes through compiled on its own, so that the error names it.
compiled_each() {
	local opt=$1 suffix=$2 dir f
	shift 2
	dir=$(mktemp -d "$BATS_TEST_TMPDIR/parts.XXXXXX")
	join_parts "$@" > "$dir/in.ir"
	if ( set -o pipefail
		ir-plan-devices --split-input-file "$dir/in.ir" | ir-lower --split-input-file $opt \
			| ir-plan-devices --split-input-file | ir-flatten-texture --split-input-file \
			| ir-codegen-ocl --split-input-file > "$dir/out.ir" ) 2> "$dir/err" &&
		split_parts "$dir/out.ir" "$suffix" "$@"; then
		return 0
	fi
	for f in "$@"; do
		compiled "$f" "${f%.ir}$suffix" $opt || { echo "$f: does not compile"; return 1; }
	done
	echo "compiled_each: --split-input-file failed where every module compiles alone:"
	cat "$dir/err"
	return 1
}
