#!/usr/bin/env bats
# The contracts around files (issue 24): -o keeps the mode of the file
# it replaces.

setup() {
	load test_helper
	PY=/usr/bin/python3
	cd "$BATS_TEST_TMPDIR" || return 1
}

# --- modes ------------------------------------------------------------------------

@test "files: -o keeps the mode of the file it replaces; a read-only one is refused to a user who may not write it" {
	printf 'device @cpu = cpu(0)\nfn @main() -> f32[2] {\n  %%c = const f32[2] [1, 2]\n  return %%c\n}\n' > c.ir
	echo old > y.npy
	chmod 640 y.npy
	run -0 ir-run --interp -o y.npy c.ir
	assert_equal "$(stat -c %a y.npy)" 640
	echo old > m.ir
	chmod 600 m.ir
	run -0 ir-parse -o m.ir c.ir
	assert_equal "$(stat -c %a m.ir)" 600
	chmod 444 y.npy m.ir
	if [ "$(id -u)" -eq 0 ]; then
		# root may write it, as with `>`: it is replaced, still read-only
		run -0 ir-run --interp -o y.npy c.ir
		assert_equal "$(stat -c %a y.npy)" 444
		run -0 ir-parse -o m.ir c.ir
		assert_equal "$(stat -c %a m.ir)" 444
		grep -q 'const f32\[2\]' m.ir
		return 0   # (root may write a read-only file)
	fi
	run -1 --separate-stderr ir-run --interp -o y.npy c.ir
	assert_equal "$stderr" "ir-run: cannot open 'y.npy': Permission denied"
	[ "$(cat y.npy)" = old ]
	run -1 --separate-stderr ir-parse -o m.ir c.ir
	assert_equal "$stderr" "ir-parse: cannot open 'm.ir': Permission denied"
}
