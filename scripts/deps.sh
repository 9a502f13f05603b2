#!/bin/sh
# scripts/deps.sh: make sure the Debian packages that irpipe's build, tests,
# demo and fuzzing need are installed.  Quick and silent when they are.
#
# As root (CI) it installs what is missing with apt-get, waiting for a lock
# another apt or dpkg holds (IRPIPE_APT_WAIT seconds, default 600);
# otherwise it stops and prints the apt-get line to run.  IRPIPE_NO_DEPS=1
# skips the check.
#
#   sh scripts/deps.sh           check, and install as root
#   sh scripts/deps.sh --list    print the package list and exit

set -u

# Build: compiler, generators, OpenCL; ir-import-onnx: protobuf-c and the
# onnx.proto of python3-onnx (whose onnx.helper its tests build models with).  Tests: bats, mandoc, POCL, numpy,
# graphviz (ir-dot's output is checked with dot -Tsvg; the demo draws).
# ONNX conformance and real models: ONNX's backend tests (libonnx-testdata),
# torch and torchvision (tests/onnx_*.bats, bench/onnx.sh).
# Fuzzing: clang with its libFuzzer and sanitizer runtimes.
PACKAGES="make gcc libc6-dev re2c bison pkg-config
ocl-icd-opencl-dev opencl-headers pocl-opencl-icd
libprotobuf-c-dev protobuf-c-compiler python3-onnx
bats bats-assert bats-support mandoc python3-numpy graphviz
libonnx-testdata python3-torch python3-torchvision
clang libclang-rt-14-dev"

case ${1-} in
--list) echo $PACKAGES; exit 0 ;;  # one line
"") ;;
*) echo "usage: sh scripts/deps.sh [--list]" >&2; exit 2 ;;
esac

[ "${IRPIPE_NO_DEPS-}" != 1 ] || exit 0

missing=
if command -v dpkg-query >/dev/null 2>&1; then
	# One dpkg-query call for all packages; unknown ones print nothing.
	# shellcheck disable=SC2086
	installed=$(dpkg-query -W -f='${Package} ${Status}\n' $PACKAGES 2>/dev/null |
		awk '$NF == "installed" { sub(/:.*/, "", $1); printf "%s ", $1 }')
	for p in $PACKAGES; do
		case " $installed " in
		*" $p "*) ;;
		*) missing="$missing $p" ;;
		esac
	done
else
	# Not Debian: check the commands only, and say so.
	for t in cc re2c bison pkg-config bats mandoc clang python3; do
		command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
	done
	if [ -n "$missing" ]; then
		echo "deps.sh: not a Debian system (no dpkg-query); missing commands:$missing" >&2
		echo "deps.sh: install their equivalents, or set IRPIPE_NO_DEPS=1 to skip this check" >&2
		exit 1
	fi
	exit 0
fi

[ -n "$missing" ] || exit 0

line="apt-get install -y$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing Debian packages:$missing" >&2
	echo "deps.sh: install them as root with:" >&2
	echo "" >&2
	echo "  $line" >&2
	echo "" >&2
	exit 1
fi

echo "deps.sh: installing missing packages:$missing"
export DEBIAN_FRONTEND=noninteractive
# Another apt or dpkg (an unattended upgrade, a second make) may hold the
# package locks: wait for it, up to IRPIPE_APT_WAIT seconds (default 600),
# rather than fail at once; apt-get says what it waits for.
wait_s=${IRPIPE_APT_WAIT:-600}
echo "deps.sh: if another apt or dpkg holds the package locks, waiting up to $wait_s s for it"
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout="$wait_s" update </dev/null &&
apt-get -o DPkg::Lock::Timeout="$wait_s" install -y$missing </dev/null || {
	echo "deps.sh: apt-get failed; the command was: $line" >&2
	exit 1
}
