#!/usr/bin/env bats
# The command line every ir-* tool shares (tools/driver.c), through ir-parse:
# --help/--version, input and output discipline, exit statuses, -o written
# atomically, colour, --split-input-file and --verify-diagnostics.
# bats file_tags=cli

setup() {
	load test_helper
	# a directory of our own: bats keeps its files in BATS_TEST_TMPDIR
	mkdir "$BATS_TEST_TMPDIR/w" && cd "$BATS_TEST_TMPDIR/w" || return 1
	cat > ok.ir <<'IR'
device @cpu = cpu(0)
fn @main(%x: f32[4]) {
  %0 = add(%x, %x)
  return %0
}
IR
	cat > ok.want <<'IR'
device @cpu = cpu(0)

fn @main(%x: f32[4]) -> f32[4] {
  %0: f32[4] = add(%x, %x)
  return %0
}
IR
	cat > undef.ir <<'IR'
fn @main(%x: f32[4]) {
  %0 = add(%x, %y)
  return %0
}
IR
	printf 'fn @main( {\n' > syntax.ir
}

# The files in the current directory other than those setup() made.
extra_files() {
	ls -A | grep -v -x -e ok.ir -e ok.want -e undef.ir -e syntax.ir "$@"
}

# stderr_has TEXT: some line of $stderr (from run --separate-stderr)
# contains TEXT.
stderr_has() {
	if ! printf '%s\n' "$stderr" | grep -qF -- "$1"; then
		printf '%s\n' "$stderr" | batslib_decorate "no stderr line contains: $1" | fail
	fi
}

# --- --help, --version, usage errors ----------------------------------------

@test "cli: --help and -h print the usage to stdout and exit 0" {
	run -0 --separate-stderr ir-parse --help
	assert_line --index 0 'Usage: ir-parse [OPTION]... [FILE]'
	assert_line --partial -- '--output=FILE'
	assert_line --partial -- '--split-input-file'
	assert_line --partial -- '--verify-diagnostics'
	assert_equal "$stderr" ''
	local help=$output
	run -0 ir-parse -h
	assert_equal "$output" "$help"
}

@test "cli: --version and -V print the version to stdout and exit 0" {
	run -0 --separate-stderr ir-parse --version
	assert_output --regexp '^ir-parse \(irpipe\) [0-9]+\.[0-9]+\.[0-9]+'
	assert_equal "${#lines[@]}" 1
	assert_equal "$stderr" ''
	run -0 ir-parse -V
	assert_output --regexp '^ir-parse \(irpipe\) '
}

@test "cli: --help wins over a bad input file" {
	run -0 ir-parse --help nosuch.ir
	assert_line --index 0 'Usage: ir-parse [OPTION]... [FILE]'
}

@test "cli: an unknown long option exits 2 with nothing on stdout" {
	run -2 --separate-stderr ir-parse --foo ok.ir
	assert_output ''
	assert_equal "${stderr_lines[0]}" "ir-parse: unknown option '--foo'"
	assert_equal "${stderr_lines[1]}" "Try 'ir-parse --help'."
}

@test "cli: an unknown short option exits 2" {
	run -2 --separate-stderr ir-parse -x ok.ir
	assert_output ''
	assert_equal "${stderr_lines[0]}" "ir-parse: unknown option '-x'"
	assert_equal "${stderr_lines[1]}" "Try 'ir-parse --help'."
}

@test "cli: a bad short option in a cluster is named, not the option before" {
	run -2 --separate-stderr ir-parse --locations -xh ok.ir
	assert_output ''
	assert_equal "${stderr_lines[0]}" "ir-parse: unknown option '-x'"
}

@test "cli: an empty -o file name exits 2" {
	run -2 --separate-stderr ir-parse -o '' ok.ir
	assert_output ''
	assert_equal "${stderr_lines[0]}" "ir-parse: empty file name for '-o'"
	assert_equal "$(extra_files)" ''
}

@test "cli: an argument to an option that takes none exits 2" {
	run -2 --separate-stderr ir-parse --locations=yes ok.ir
	assert_equal "${stderr_lines[0]}" "ir-parse: option '--locations' takes no argument"
}

@test "cli: a missing option argument exits 2" {
	run -2 --separate-stderr ir-parse ok.ir -o
	assert_output ''
	assert_equal "${stderr_lines[0]}" "ir-parse: option '-o' requires an argument"
	assert_equal "${stderr_lines[1]}" "Try 'ir-parse --help'."
	run -2 --separate-stderr ir-parse ok.ir --output
	assert_equal "${stderr_lines[0]}" "ir-parse: option '--output' requires an argument"
}

@test "cli: two input files exit 2" {
	run -2 --separate-stderr ir-parse ok.ir ok.ir
	assert_output ''
	assert_equal "${stderr_lines[0]}" "ir-parse: more than one input file: 'ok.ir'"
	assert_equal "${stderr_lines[1]}" "Try 'ir-parse --help'."
}

@test "cli: a bad --color value exits 2" {
	run -2 --separate-stderr ir-parse --color=sometimes ok.ir
	assert_output ''
	assert_equal "${stderr_lines[0]}" "ir-parse: --color takes auto, always or never, not 'sometimes'"
}

@test "cli: options may follow the file, and -- ends them" {
	run -0 ir-parse ok.ir --locations
	assert_output --partial 'loc("ok.ir":1:1)'
	cp ok.ir ./-x.ir
	run -0 ir-parse -- -x.ir
	assert_output "$(cat ok.want)"
}

# --- input ---------------------------------------------------------------------

@test "cli: a missing file exits 1 with the reason" {
	run -1 --separate-stderr ir-parse nosuch.ir
	assert_output ''
	assert_equal "$stderr" "ir-parse: cannot open 'nosuch.ir': No such file or directory"
}

@test "cli: a directory as input exits 1" {
	mkdir d
	run -1 --separate-stderr ir-parse d
	assert_output ''
	assert_equal "$stderr" "ir-parse: cannot read 'd': Is a directory"
}

@test "cli: - and no argument read stdin" {
	run -0 ir-parse - < ok.ir
	assert_output "$(cat ok.want)"
	run -0 ir-parse < ok.ir
	assert_output "$(cat ok.want)"
	run -0 bash -c 'cat ok.ir | ir-parse -'
	assert_output "$(cat ok.want)"
}

@test "cli: an empty input is an empty module" {
	run -0 --separate-stderr ir-parse - < /dev/null
	assert_output ''
	assert_equal "$stderr" ''
}

@test "cli: the output is canonical and parses to the same bytes" {
	ir-parse ok.ir > a.ir
	diff -u ok.want a.ir
	ir-parse a.ir | diff -u a.ir -
}

@test "cli: a NUL byte is a diagnosed input error, not the end of the input" {
	printf 'device @cpu = cpu(0)\n\0\n' > nul.ir
	run -1 --separate-stderr ir-parse nul.ir
	assert_output ''
	assert_equal "${stderr_lines[0]:0:11}" 'nul.ir:2:1:'
}

# --- diagnostics -----------------------------------------------------------------

@test "cli: an error shows file:line:col, the line and a caret, nothing on stdout" {
	run -1 --separate-stderr ir-parse undef.ir
	assert_output ''
	assert_equal "${stderr_lines[0]}" "undef.ir:2:16: error: use of undefined value '%y'"
	assert_equal "${stderr_lines[1]}" '  %0 = add(%x, %y)'
	assert_equal "${stderr_lines[2]}" '               ^'
}

@test "cli: stdin is named <stdin>" {
	run -1 --separate-stderr ir-parse < syntax.ir
	assert_output ''
	assert_equal "${stderr_lines[0]:0:14}" '<stdin>:1:11: '
}

@test "cli: tabs before the column are kept in the caret line" {
	printf 'fn @main(%%x: f32[4]) {\n\t%%0 = add(%%x, %%y)\n\treturn %%0\n}\n' > tab.ir
	run -1 --separate-stderr ir-parse tab.ir
	assert_equal "${stderr_lines[0]}" "tab.ir:2:15: error: use of undefined value '%y'"
	assert_equal "${stderr_lines[2]}" "$(printf '\t             ^')"
}

@test "cli: a column past 65535 is reported as it is, also through loc(...)" {
	local pad
	pad=$(printf '%70000s' '')
	printf 'fn @main(%%x: f32[4]) {\n  %%0 = add(%%x,%s%%y)\n  return %%0\n}\n' "$pad" > wide.ir
	run -1 --separate-stderr ir-parse wide.ir
	assert_equal "${stderr_lines[0]}" "wide.ir:2:70015: error: use of undefined value '%y'"
	# the caret stays under the name, in a window of the line
	[[ "${stderr_lines[1]}" == *"%y)" ]]
	[ "${#stderr_lines[2]}" -eq $((${#stderr_lines[1]} - 2)) ]
	printf 'fn @main(%%x: f32[4], %%b: f32[3]) {\n  %%0 = add(%%x, %%b) loc("m.ir":7:4294967295)\n  return %%0\n}\n' > wide.ir
	run -1 --separate-stderr ir-parse wide.ir
	assert_equal "${stderr_lines[0]:0:37}" "m.ir:7:4294967295: error: add: shapes"
	printf 'fn @main(%%x: f32[4]) {\n  %%0 = negative(%%x) loc("m.ir":7:70001)\n  return %%0\n}\n' > wide.ir
	run -0 ir-parse wide.ir
	assert_line '  %0: f32[4] = negative(%x) loc("m.ir":7:70001)'
	printf 'fn @main(%%x: f32[4]) {\n  %%0 = negative(%%x) loc("m.ir":7:4294967296)\n  return %%0\n}\n' > wide.ir
	run -1 --separate-stderr ir-parse wide.ir
	assert_equal "${stderr_lines[0]}" "wide.ir:2:34: error: column number out of range"
}

@test "cli: after 20 errors the rest are dropped" {
	for i in $(seq 30); do echo "fn @f$i( {"; done > many.ir
	run -1 --separate-stderr ir-parse many.ir
	assert_output ''
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -c ': error: ')" 21
	assert_equal "${stderr_lines[${#stderr_lines[@]} - 1]}" \
		'ir-parse: error: too many errors emitted, stopping now'
}

@test "cli: --locations; a later stage reports the lines of the first input" {
	run -0 ir-parse --locations ok.ir
	assert_line '  %0: f32[4] = add(%x, %x) loc("ok.ir":3:3)'
	# a broken node downstream points at ok.ir:3:3 and quotes that line
	ir-parse --locations ok.ir | sed 's/^  %0: f32\[4\] = add(%x, %x)/  %0 = add(%x, %x, %x)/' > mid.ir
	run -1 --separate-stderr ir-parse - < mid.ir
	assert_output ''
	assert_equal "${stderr_lines[0]:0:16}" 'ok.ir:3:3: error'
	assert_equal "${stderr_lines[1]}" '  %0 = add(%x, %x)'
	assert_equal "${stderr_lines[2]}" '  ^'
}

# --- colour --------------------------------------------------------------------

@test "cli: no colour by default when stderr is not a terminal" {
	run -1 --separate-stderr env -u NO_COLOR TERM=xterm ir-parse undef.ir
	refute [ -n "$(printf '%s' "$stderr" | grep $'\033')" ]
}

@test "cli: --color=always colours even with NO_COLOR set; never does not" {
	run -1 --separate-stderr env NO_COLOR=1 ir-parse --color=always undef.ir
	assert_equal "${stderr_lines[0]}" \
		$'\033[1mundef.ir:2:16: \033[1;31merror: \033[0m\033[1muse of undefined value \'%y\'\033[0m'
	assert_equal "${stderr_lines[2]}" $'               \033[1;32m^\033[0m'
	run -1 --separate-stderr env -u NO_COLOR ir-parse --color=never undef.ir
	assert_equal "${stderr_lines[0]}" "undef.ir:2:16: error: use of undefined value '%y'"
}

@test "cli: the last --color wins" {
	run -1 --separate-stderr ir-parse --color=always --color=auto undef.ir
	assert_equal "${stderr_lines[0]}" "undef.ir:2:16: error: use of undefined value '%y'"
}

# --- output ----------------------------------------------------------------------

@test "cli: -o writes the file and nothing on stdout" {
	run -0 --separate-stderr ir-parse -o out.ir ok.ir
	assert_output ''
	assert_equal "$stderr" ''
	diff -u ok.want out.ir
	assert_equal "$(extra_files -e out.ir)" ''
}

@test "cli: -o - is stdout" {
	run -0 ir-parse -o - ok.ir
	assert_output "$(cat ok.want)"
}

@test "cli: -o may name the input file" {
	cp ok.ir same.ir
	run -0 ir-parse -o same.ir same.ir
	diff -u ok.want same.ir
}

@test "cli: -o makes a new file with the mode the umask gives, and keeps an existing file's" {
	(umask 027 && ir-parse -o m.ir ok.ir)
	assert_equal "$(stat -c %a m.ir)" 640
	(umask 022 && ir-parse -o m.ir ok.ir)
	assert_equal "$(stat -c %a m.ir)" 640
	rm m.ir
	(umask 022 && ir-parse -o m.ir ok.ir)
	assert_equal "$(stat -c %a m.ir)" 644
}

@test "cli: -o through a symlink replaces the file it points to" {
	echo old > target.ir
	ln -s target.ir link.ir
	run -0 ir-parse -o link.ir ok.ir
	assert [ -L link.ir ]
	diff -u ok.want target.ir
}

@test "cli: -o through a dangling symlink makes the file it names" {
	mkdir sub
	ln -s ../made.ir sub/link.ir
	ln -s sub/link.ir top.ir
	run -0 ir-parse -o top.ir ok.ir
	assert [ -L top.ir ]
	assert [ -L sub/link.ir ]
	diff -u ok.want made.ir
}

@test "cli: -o /dev/null is written, not replaced" {
	run -0 ir-parse -o /dev/null ok.ir
	assert_output ''
	assert [ -c /dev/null ]
}

@test "cli: -o into a missing directory exits 1 and leaves nothing" {
	run -1 --separate-stderr ir-parse -o nodir/out.ir ok.ir
	assert_output ''
	assert_equal "$stderr" "ir-parse: cannot create 'nodir/out.ir': No such file or directory"
	assert_equal "$(extra_files)" ''
}

@test "cli: -o into an unwritable directory exits 1 and leaves no temporary" {
	mkdir ro
	echo plain > notadir
	run -1 --separate-stderr ir-parse -o notadir/out.ir ok.ir
	assert_output ''
	assert_equal "$stderr" "ir-parse: cannot create 'notadir/out.ir': Not a directory"
	if [ "$(id -u)" -eq 0 ]; then
		skip "root can write into a read-only directory"
	fi
	chmod 555 ro
	run -1 --separate-stderr ir-parse -o ro/out.ir ok.ir
	chmod 755 ro
	assert_output ''
	assert_equal "$stderr" "ir-parse: cannot create 'ro/out.ir': Permission denied"
	assert_equal "$(ls -A ro)" ''
}

@test "cli: a failing input leaves an existing -o target untouched" {
	echo 'previous contents' > out.ir
	run -1 --separate-stderr ir-parse -o out.ir undef.ir
	assert_output ''
	assert_equal "$(cat out.ir)" 'previous contents'
	assert_equal "$(extra_files -e out.ir)" ''
	run -1 ir-parse --split-input-file -o out.ir undef.ir
	assert_equal "$(cat out.ir)" 'previous contents'
	assert_equal "$(extra_files -e out.ir)" ''
}

@test "cli: a write error exits 1" {
	[ -w /dev/full ] || skip "no /dev/full"
	run -1 --separate-stderr ir-parse -o /dev/full ok.ir
	assert_equal "$stderr" "ir-parse: write error: '/dev/full': No space left on device"
	run -1 --separate-stderr bash -c 'ir-parse ok.ir > /dev/full'
	assert_equal "$stderr" 'ir-parse: write error: No space left on device'
	run -1 bash -c 'ir-parse --help > /dev/full'
}

# --- --split-input-file -----------------------------------------------------------

@test "cli: --split-input-file processes each part and joins the outputs" {
	cat > split.ir <<'IR'
device @cpu = cpu(0)
// -----
fn @main(%x: f32[4]) {
  %0 = add(%x, %x)
  return %0
}
// -----   
// ----- not a separator
device @gpu = gpu(0)
IR
	run -0 --separate-stderr ir-parse --split-input-file split.ir
	assert_equal "$stderr" ''
	assert_output "$(cat <<'OUT'
device @cpu = cpu(0)
// -----
fn @main(%x: f32[4]) -> f32[4] {
  %0: f32[4] = add(%x, %x)
  return %0
}
// -----
device @gpu = gpu(0)
OUT
)"
	# each part is its own module: the same name in two parts is fine
	printf 'device @cpu = cpu(0)\n// -----\ndevice @cpu = cpu(0)\n' > twice.ir
	run -0 ir-parse --split-input-file twice.ir
	run -1 ir-parse twice.ir
}

@test "cli: --split-input-file: one failing part fails the run, with whole-file lines" {
	{ cat ok.ir; echo '// -----'; cat undef.ir; echo '// -----'; cat ok.ir; } > split.ir
	run -1 --separate-stderr ir-parse --split-input-file split.ir
	assert_output ''
	assert_equal "${stderr_lines[0]}" "split.ir:8:16: error: use of undefined value '%y'"
	assert_equal "${#stderr_lines[@]}" 3
}

@test "cli: --split-input-file: every failing part is reported" {
	{ cat syntax.ir; echo '// -----'; cat undef.ir; } > split.ir
	run -1 --separate-stderr ir-parse --split-input-file split.ir
	assert_output ''
	stderr_has "split.ir:1:11: error: "
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -c '^split.ir:4:16: error: ')" 1
}

@test "cli: --keep-going writes the parts that succeeded, a failed one's place empty and named by its line, and exits 1" {
	# the second part names another file in loc(...), which the driver
	# registers while the parts run
	{ cat ok.ir; echo '// -----'
	  echo 'device @cpu = cpu(0) loc("elsewhere.ir":3:1)'; echo '// -----'
	  cat undef.ir; echo '// -----'; cat ok.ir; } > split.ir
	run -1 --separate-stderr ir-parse --split-input-file --keep-going split.ir
	assert_output "$(cat ok.want; echo '// -----'
		echo 'device @cpu = cpu(0) loc("elsewhere.ir":3:1)'; echo '// -----'; echo '// -----'
		cat ok.want)"
	assert_equal "${stderr_lines[0]}" "split.ir:10:16: error: use of undefined value '%y'"
	assert_equal "${stderr_lines[-1]}" "ir-parse: split.ir:9: part 3 of 4, from this line, failed"
	# -o too; without --keep-going nothing is written
	run -1 ir-parse --split-input-file --keep-going -o out.ir split.ir
	assert_equal "$(cat out.ir)" "$(ir-parse --split-input-file --keep-going split.ir 2> /dev/null)"
	run -1 --separate-stderr ir-parse --split-input-file split.ir
	assert_output ''
	[[ "$stderr" != *"from this line, failed"* ]]
	run -2 --separate-stderr ir-parse --keep-going ok.ir
	assert_equal "${stderr_lines[0]}" "ir-parse: --keep-going goes with --split-input-file"
}

# --- --verify-diagnostics ---------------------------------------------------------

@test "cli: --verify-diagnostics: matched errors exit 0; good parts are printed" {
	cat > v.ir <<'IR'
fn @main(%x: f32[4]) {
  // expected-error@+1 {{use of undefined value '%y'}}
  %0 = add(%x, %y)
  return %0
}
// -----
fn @main(%x: f32[4], %y: f32[3]) {
  %0 = add(%x, %y) // expected-error {{shapes do not broadcast}}
  return %0
}
// -----
fn @main(%x: f32[4]) {
  %0 = add(%x, %z)
  // expected-error @-1 {{undefined value '%z'}}
  return %0
}
// -----
device @cpu = cpu(0)
IR
	run -0 --separate-stderr ir-parse --split-input-file --verify-diagnostics v.ir
	assert_equal "$stderr" ''
	assert_output "$(printf '// -----\n// -----\n// -----\ndevice @cpu = cpu(0)')"
}

@test "cli: --verify-diagnostics: an unexpected diagnostic fails at its place" {
	run -1 --separate-stderr ir-parse --verify-diagnostics undef.ir
	assert_output ''
	assert_equal "${stderr_lines[0]}" "undef.ir:2:16: error: unexpected error: use of undefined value '%y'"
	assert_equal "${stderr_lines[1]}" '  %0 = add(%x, %y)'
}

@test "cli: --verify-diagnostics: an expected diagnostic not produced fails at the comment" {
	cat > v.ir <<'IR'
device @cpu = cpu(0) // expected-error {{no such thing}}
IR
	run -1 --separate-stderr ir-parse --verify-diagnostics v.ir
	assert_output ''
	assert_equal "${stderr_lines[0]}" 'v.ir:1:25: error: expected error "no such thing" was not produced'
}

@test "cli: --verify-diagnostics: the message, severity and line must all match" {
	printf 'fn @main(%%x: f32[4]) {\n  %%0 = add(%%x, %%y) // expected-error {{nope}}\n  return %%0\n}\n' > v.ir
	run -1 ir-parse --verify-diagnostics v.ir
	printf 'fn @main(%%x: f32[4]) {\n  %%0 = add(%%x, %%y) // expected-warning {{undefined}}\n  return %%0\n}\n' > v.ir
	run -1 ir-parse --verify-diagnostics v.ir
	printf 'fn @main(%%x: f32[4]) {\n  // expected-error {{undefined}}\n  %%0 = add(%%x, %%y)\n  return %%0\n}\n' > v.ir
	run -1 ir-parse --verify-diagnostics v.ir
	printf 'fn @main(%%x: f32[4]) {\n  // expected-error@+1 {{undefined}}\n  %%0 = add(%%x, %%y)\n  return %%0\n}\n' > v.ir
	run -0 ir-parse --verify-diagnostics v.ir
}

@test "cli: --verify-diagnostics: a column after ':' must match too" {
	printf 'fn @main(%%x: f32[4]) {\n  // expected-error@+1:16 {{undefined}}\n  %%0 = add(%%x, %%y)\n  return %%0\n}\n' > v.ir
	run -0 ir-parse --verify-diagnostics v.ir
	printf 'fn @main(%%x: f32[4]) {\n  %%0 = add(%%x, %%y) // expected-error:16 {{undefined}}\n  return %%0\n}\n' > v.ir
	run -0 ir-parse --verify-diagnostics v.ir
	printf 'fn @main(%%x: f32[4]) {\n  // expected-error@+1:15 {{undefined}}\n  %%0 = add(%%x, %%y)\n  return %%0\n}\n' > v.ir
	run -1 --separate-stderr ir-parse --verify-diagnostics v.ir
	assert_equal "${stderr_lines[0]}" "v.ir:3:16: error: unexpected error: use of undefined value '%y'"
	stderr_has 'v.ir:2:6: error: expected error "undefined" at column 15 was not produced'
	printf 'device @cpu = cpu(0) // expected-error:x {{oops}}\n' > v.ir
	run -1 --separate-stderr ir-parse --verify-diagnostics v.ir
	assert_equal "${stderr_lines[0]}" "v.ir:1:25: error: expected a column from 1 after ':' in 'expected-error'"
	printf 'device @cpu = cpu(0) // expected-error@unknown:1 {{oops}}\n' > v.ir
	run -1 --separate-stderr ir-parse --verify-diagnostics v.ir
	assert_equal "${stderr_lines[0]}" "v.ir:1:25: error: '@unknown' has no column, in 'expected-error'"
}

@test "cli: --verify-diagnostics: notes must be expected too" {
	# an empty {{}} matches any message
	cat > v.ir <<'IR'
fn @f() { // expected-note {{}}
} // expected-error {{}}
IR
	run -0 --separate-stderr ir-parse --verify-diagnostics v.ir
	assert_equal "$stderr" ''
	cat > v.ir <<'IR'
fn @f() {
} // expected-error {{}}
IR
	run -1 --separate-stderr ir-parse --verify-diagnostics v.ir
	assert_output ''
	assert_equal "${stderr_lines[0]:0:33}" 'v.ir:1:1: error: unexpected note:'
}

@test "cli: --verify-diagnostics: @unknown is a diagnostic with no position" {
	# ir-parse reports none itself; a message with a position does not match
	printf 'device @cpu = cpu(0) // expected-error@unknown {{}}\n' > v.ir
	run -1 --separate-stderr ir-parse --verify-diagnostics v.ir
	assert_equal "${stderr_lines[0]}" 'v.ir:1:25: error: expected error "" was not produced'
}

@test "cli: --verify-diagnostics: a malformed directive is an error" {
	printf 'device @cpu = cpu(0) // expected-error {{oops}\n' > v.ir
	run -1 --separate-stderr ir-parse --verify-diagnostics v.ir
	assert_equal "${stderr_lines[0]}" "v.ir:1:25: error: expected '}}' to end the message of 'expected-error'"
	printf 'device @cpu = cpu(0) // expected-error@above {{oops}}\n' > v.ir
	run -1 --separate-stderr ir-parse --verify-diagnostics v.ir
	assert_equal "${stderr_lines[0]}" "v.ir:1:25: error: expected @+N, @-N or @unknown after 'expected-error'"
	printf 'device @cpu = cpu(0) // expected-error@-3 {{oops}}\n' > v.ir
	run -1 --separate-stderr ir-parse --verify-diagnostics v.ir
	assert_equal "${stderr_lines[0]}" "v.ir:1:25: error: expected-error@-3 is line -2, outside the file"
}

@test "cli: --verify-diagnostics without errors prints the module" {
	run -0 --separate-stderr ir-parse --verify-diagnostics ok.ir
	assert_equal "$stderr" ''
	assert_output "$(cat ok.want)"
}

@test "cli: --verify-diagnostics checks each part on its own" {
	# the expectation is in the first part, the error in the second
	cat > v.ir <<'IR'
device @cpu = cpu(0)
// expected-error@+3 {{undefined value '%y'}}
// -----
fn @main(%x: f32[4]) {
  %0 = add(%x, %y)
  return %0
}
IR
	run -1 --separate-stderr ir-parse --split-input-file --verify-diagnostics v.ir
	assert_output ''
	stderr_has "v.ir:5:16: error: unexpected error: use of undefined value '%y'"
	stderr_has "v.ir:2:4: error: expected error \"undefined value '%y'\" was not produced"
	# without the split it is one module, and the expectation matches
	run -0 ir-parse --verify-diagnostics v.ir
}
