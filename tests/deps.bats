#!/usr/bin/env bats
# scripts/deps.sh against a fake apt: as root it installs what dpkg says is
# missing, and waits for another apt's lock instead of failing at once.

setup() {
	load test_helper
	bats_require_minimum_version 1.5.0
	fake=$BATS_TEST_TMPDIR/bin
	mkdir -p "$fake"
	# root, nothing installed, and an apt-get that records its arguments
	printf '#!/bin/sh\necho 0\n' > "$fake/id"
	printf '#!/bin/sh\nexit 0\n' > "$fake/dpkg-query"
	printf '#!/bin/sh\necho "$*" >> "%s/apt.log"\n' "$BATS_TEST_TMPDIR" > "$fake/apt-get"
	chmod +x "$fake"/*
}

@test "deps: as root, apt-get waits for another apt's lock (DPkg::Lock::Timeout), and says so" {
	run -0 env -u IRPIPE_NO_DEPS PATH="$fake:$PATH" sh "$BATS_TEST_DIRNAME/../scripts/deps.sh"
	[[ "$output" == *"deps.sh: if another apt or dpkg holds the package locks, waiting up to 600 s for it"* ]]
	grep -qx -- '-o DPkg::Lock::Timeout=600 update' "$BATS_TEST_TMPDIR/apt.log"
	grep -q -- '^-o DPkg::Lock::Timeout=600 install -y make gcc ' "$BATS_TEST_TMPDIR/apt.log"
	rm "$BATS_TEST_TMPDIR/apt.log"
	run -0 env -u IRPIPE_NO_DEPS IRPIPE_APT_WAIT=5 PATH="$fake:$PATH" sh "$BATS_TEST_DIRNAME/../scripts/deps.sh"
	grep -qx -- '-o DPkg::Lock::Timeout=5 update' "$BATS_TEST_TMPDIR/apt.log"
}
