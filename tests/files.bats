#!/usr/bin/env bats
# The contracts around files (issue 24): the .npy files a tool writes
# into a data folder change together or not at all, a symlink there is
# replaced and never written through, a constant's file= stays inside the
# data folder unless --allow-outside-data, a signal leaves no temporary,
# and -o keeps the mode of the file it replaces.

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR" || return 1
	# two constants folded to files main.na.npy and main.nb.npy
	cat > two.ir <<'EOF'
device @cpu = cpu(0)
fn @main(%x: f32[4]) -> f32[4] {
  %a = const f32[4] [1, 2, 3, 4]
  %na = negative(%a)
  %b = const f32[4] [5, 7, 8, 9]
  %nb = negative(%b)
  %s = add(%x, %na)
  %y = add(%s, %nb)
  return %y
}
EOF
}

# temporaries DIR: the temporaries left in DIR, if any
temporaries() {
	find "$1" -name '*.tmp*'
}

need_onnx() {
	have_python onnx numpy || skip "python3-onnx is not installed"
}

# --- all or nothing ---------------------------------------------------------------

@test "files: ir-fold-constants replaces none of the data folder's files when one cannot be written" {
	echo old > main.na.npy
	mkdir main.nb.npy
	echo 'old module' > out.ir
	run -1 --separate-stderr ir-fold-constants --inline-max=0 -o out.ir two.ir
	assert_output ''
	[[ "$stderr" == *"main.nb.npy: "*"directory"* ]]
	# the first file was written, but not renamed over the user's
	[ "$(cat main.na.npy)" = old ]
	[ "$(cat out.ir)" = 'old module' ]
	assert_equal "$(temporaries .)" ''
	# once the way is clear, both are written, and the module with them
	rmdir main.nb.npy
	run -0 ir-fold-constants --inline-max=0 -o out.ir two.ir
	grep -q 'file="main.nb.npy"' out.ir
	run -0 ir-run --interp --input=x=main.na.npy out.ir
	assert_output "f32[4] [-7.0, -11.0, -14.0, -17.0]"
}

@test "files: ir-import-onnx replaces none of the data folder's files when one cannot be written" {
	need_onnx
	$PY "$BATS_TEST_DIRNAME/onnx/cases.py" make conv_relu_add_gemm m
	mkdir d
	echo old > d/W.npy
	mkdir d/G.npy
	echo 'old module' > d/m.ir
	run -1 --separate-stderr ir-import-onnx --data-dir=d -o d/m.ir m/model.onnx
	assert_output ''
	[[ "$stderr" == *"G.npy: "*"directory"* ]]
	[ "$(cat d/W.npy)" = old ]
	[ "$(cat d/m.ir)" = 'old module' ]
	assert_equal "$(temporaries d)" ''
	# the same to standard output
	run -1 --separate-stderr ir-import-onnx --data-dir=d m/model.onnx
	assert_output ''
	[ "$(cat d/W.npy)" = old ]
	assert_equal "$(temporaries d)" ''
}

# --- symlinks and paths -------------------------------------------------------------

@test "files: a symlink in the data folder is replaced by the new file, never written through" {
	mkdir d
	echo victim > victim
	ln -s ../victim d/main.na.npy
	ln -s ../nowhere.npy d/main.nb.npy
	run -0 ir-fold-constants --inline-max=0 --data-dir=d two.ir
	[ "$(cat victim)" = victim ]
	[ ! -e nowhere.npy ] && [ ! -L nowhere.npy ]
	[ -f d/main.na.npy ] && [ ! -L d/main.na.npy ]
	[ -f d/main.nb.npy ] && [ ! -L d/main.nb.npy ]
	printf '%s\n' "$output" > d/m.ir
	run -0 ir-run --interp --input=x=d/main.na.npy d/m.ir
	assert_output "f32[4] [-7.0, -11.0, -14.0, -17.0]"
	# anything else that is not a regular file is refused, not opened
	rm d/main.nb.npy
	mkfifo d/main.nb.npy
	run -1 --separate-stderr ir-fold-constants --inline-max=0 --data-dir=d two.ir
	[[ "$stderr" == *"main.nb.npy: exists and is not a regular file"* ]]
	assert_equal "$(temporaries d)" ''
}

@test "files: ir-import-onnx replaces a symlink in the data folder, never writes through it" {
	need_onnx
	$PY "$BATS_TEST_DIRNAME/onnx/cases.py" make conv_relu_add_gemm m
	mkdir d
	echo victim > victim
	ln -s ../victim d/W.npy
	ln -s ../nowhere.npy d/G.npy
	run -0 ir-import-onnx --data-dir=d -o m.ir m/model.onnx
	[ "$(cat victim)" = victim ]
	[ ! -e nowhere.npy ] && [ ! -L nowhere.npy ]
	[ -f d/W.npy ] && [ ! -L d/W.npy ] && [ -f d/G.npy ] && [ ! -L d/G.npy ]
	run -0 ir-run --interp --data-dir=d --input=x=m/x.npy m.ir
}

@test "files: a constant's file= outside the data folder is refused, unless --allow-outside-data" {
	mkdir d d/w sub
	ir-fold-constants --inline-max=0 --data-dir=sub two.ir > /dev/null
	mv sub/main.na.npy c.npy
	for p in ../c.npy "$PWD/c.npy" 'w/../../c.npy'; do
		printf 'device @cpu = cpu(0)\nfn @main() -> f32[4] {\n  %%w = const f32[4] file="%s"\n  %%n = negative(%%w)\n  return %%n\n}\n' "$p" > d/m.ir
		run -1 --separate-stderr ir-run --interp d/m.ir
		assert_output ''
		assert_equal "${stderr_lines[0]}" "d/m.ir:3:3: error: the constant '%w' names '$p', outside the data folder (an absolute path or a '..'); --allow-outside-data lets it be read"
		run -1 --separate-stderr ir-fold-constants d/m.ir
		assert_output ''
		assert_equal "${stderr_lines[0]}" "d/m.ir:3:3: error: the constant '%w' names '$p', outside the data folder (an absolute path or a '..'); --allow-outside-data lets it be read"
		run -0 ir-run --interp --allow-outside-data d/m.ir
		assert_output "f32[4] [1.0, 2.0, 3.0, 4.0]"
		run -0 ir-fold-constants --allow-outside-data d/m.ir
		assert_line '  %n: f32[4] = const f32[4] [1.0, 2.0, 3.0, 4.0]'
	done
	# a folder inside, and a name with dots, are inside
	cp c.npy d/w/..c.npy
	printf 'device @cpu = cpu(0)\nfn @main() -> f32[4] {\n  %%w = const f32[4] file="w/..c.npy"\n  return %%w\n}\n' > d/m.ir
	run -0 ir-run --interp d/m.ir
	assert_output "f32[4] [-1.0, -2.0, -3.0, -4.0]"
}

# --- signals ----------------------------------------------------------------------

@test "files: SIGTERM, SIGINT or SIGHUP while temporaries are open removes them" {
	# @f's folded constant is staged and -o's module is open when @main's
	# constant, a FIFO nobody writes, blocks the run
	cat > m.ir <<'EOF'
device @cpu = cpu(0)
fn @f() -> f32[4] {
  %a = const f32[4] [1, 2, 3, 4]
  %n = negative(%a)
  return %n
}
fn @main(%x: f32[4]) -> f32[4] {
  %w = const f32[4] file="fifo.npy"
  %n = negative(%w)
  %y = add(%x, %n)
  return %y
}
EOF
	mkfifo fifo.npy
	local sig num pid k st
	for sig in TERM INT HUP; do
		num=$(kill -l "$sig")
		# (a background job of a script ignores SIGINT: undo that)
		env --default-signal="$sig" ir-fold-constants --inline-max=0 -o out.ir m.ir &
		pid=$!
		for ((k = 0; k < 200; k++)); do
			[ -n "$(find . -name 'out.ir.tmp*')" ] && [ -n "$(find . -name 'f.n.npy.tmp*')" ] && break
			sleep 0.05
		done
		[ "$k" -lt 200 ] || { kill -KILL "$pid"; echo "no temporaries appeared"; false; }
		kill -"$sig" "$pid"
		st=0
		wait "$pid" || st=$?
		assert_equal "$st" $((128 + num))
		assert_equal "$(temporaries .)" ''
		[ ! -e out.ir ] && [ ! -e f.n.npy ]
	done
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
