#!/usr/bin/env bats
# tests/helpers/pyserver.py and py-client, python3 for the tests under
# tests/run.sh: a command line run through them does what python3 does
# with it (output, exit status, stdin, arguments, working directory,
# environment, __file__), and the client runs python3 itself when there is
# no server.

setup() {
	load test_helper
	client=$IRPIPE_BIN/../tests/bin/py-client
	[ -x "$client" ] || skip "py-client is not built"
	sock=$BATS_TEST_TMPDIR/py.sock
	# (importing only sys: the programs here need nothing else)
	/usr/bin/python3 "$BATS_TEST_DIRNAME/helpers/pyserver.py" "$sock" sys 3>&- &
	server=$!
	for i in $(seq 300); do [ -S "$sock" ] && break; sleep 0.1; done
	[ -S "$sock" ]
	cd "$BATS_TEST_TMPDIR"
	cat > script.py <<-'P'
		import os, sys
		print("script", sys.argv, __name__, __file__ == os.path.abspath("script.py"))
		print("path0", sys.path[0] == os.path.dirname(os.path.abspath("script.py")))
	P
}

teardown() {
	[ -z "${server:-}" ] || { kill "$server"; wait "$server"; } 2>/dev/null || true
}

# both ARG...: python3 ARG... and py-client ARG... (stdin from in) print
# the same, to stdout and to stderr, and exit with the same status
both() {
	local want got t=$BATS_TEST_TMPDIR
	want=$(/usr/bin/python3 "$@" < "$t/in" 2> "$t/want.err"; echo "status $?")
	got=$(IRPIPE_PYSERVER=$sock "$client" "$@" < "$t/in" 2> "$t/got.err"; echo "status $?")
	assert_equal "$got" "$want"
	diff "$t/want.err" "$t/got.err"
}

@test "pyserver: -c, - and a script print, read stdin and exit as python3 does" {
	echo 'import sys; print("stdin", sys.argv, sys.stdin.read().split())' > in
	both -c 'import sys; print("c", sys.argv, __name__)' a 'b c'
	both - x y
	both script.py 1 2
	both -c 'import sys; sys.exit(3)'
	both -c 'import sys; print("out"); sys.exit("a message")'
	both -c 'raise ValueError("an exception")'
	both -c 'import os; os.kill(os.getpid(), 9)'
	both -c 'import atexit; atexit.register(lambda: print("at exit")); print("first")'
	grep -q 'ValueError: an exception' <(IRPIPE_PYSERVER=$sock "$client" -c 'raise ValueError("an exception")' 2>&1)
}

@test "pyserver: a script is compiled once and run again from the server's copy until it changes; a script that does not compile fails" {
	: > in
	both script.py 1
	both script.py 2
	# the same size, another text: run as it is now
	sed -i 's/"script"/"SCRIPT"/' script.py
	both script.py 3
	[[ "$(IRPIPE_PYSERVER=$sock "$client" script.py 4)" == "SCRIPT "* ]]
	# a script of another directory under the same name
	mkdir other
	echo 'print("other")' > other/script.py
	(cd other && both script.py)
	echo 'print(1' > bad.py
	run -1 env IRPIPE_PYSERVER="$sock" "$client" bad.py
	[[ "$output" == *"SyntaxError"* ]]
}

@test "pyserver: the program runs in the client's directory, with its environment; output appends where the client's does" {
	mkdir sub
	: > in
	(cd sub && X=1 both -c 'import os; print(os.getcwd(), os.environ["X"], "PWD" in os.environ)')
	{
		IRPIPE_PYSERVER=$sock "$client" -c 'print(1)'
		IRPIPE_PYSERVER=$sock "$client" -c 'import sys; print(2, file=sys.stderr)'
		IRPIPE_PYSERVER=$sock "$client" -c 'print(3)'
	} > log 2>&1
	assert_equal "$(cat log)" "$(printf '1\n2\n3')"
}

@test "pyserver: without a server the client is python3" {
	echo 'import sys; print("stdin", sys.argv)' > in
	kill "$server"
	wait "$server" || true
	server=
	both - x
	run -0 env -u IRPIPE_PYSERVER "$client" -c 'print("unset")'
	assert_output unset
}

@test "pyserver: a program that names a heavy module runs in the second server, which imported it, as python3 would run it" {
	kill "$server"
	wait "$server" || true
	# json heavy: imported by the second server only
	sock=$BATS_TEST_TMPDIR/heavy.sock
	/usr/bin/python3 "$BATS_TEST_DIRNAME/helpers/pyserver.py" "$sock" sys --heavy json 3>&- &
	server=$!
	for i in $(seq 300); do [ -S "$sock.heavy" ] && break; sleep 0.1; done
	[ -S "$sock.heavy" ]
	# where each runs: json already there only where the program names it
	run -0 env IRPIPE_PYSERVER="$sock" "$client" -c 'import sys; print("json" in sys.modules)'
	assert_output True
	run -0 env IRPIPE_PYSERVER="$sock" "$client" -c 'import sys; print("js" "on" in sys.modules)'
	assert_output False
	# handed on, -c, - (the program read from stdin) and a script print,
	# read stdin, exit and die as python3 does
	echo 'import sys, json; print("stdin", sys.argv, json.dumps(sys.stdin.read().split()))' > in
	both -c 'import sys, json; print("c", sys.argv, __name__, json.dumps(sys.stdin.read()))' a 'b c'
	both - x y
	printf 'import json, os, sys\nprint("script", sys.argv, __name__, __file__ == os.path.abspath("heavy.py"))\n' > heavy.py
	both heavy.py 1 2
	both -c 'import json, sys; sys.exit(3)'
	both -c 'import json, os; os.kill(os.getpid(), 9)'
	both -c 'import json; raise ValueError("an exception")'
	mkdir sub
	(cd sub && X=1 both -c 'import json, os; print(os.getcwd(), os.environ["X"])')
}
