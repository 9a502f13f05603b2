#!/usr/bin/env bats
# README.md against what it describes: every manual page is in its list;
# every command of its tour runs, in a copy of demo/ as the tour says (the
# output lines it shows come out); its whole pipeline is the one
# `make demo` runs (demo/demo.sh's PIPELINE), with ir-fold-constants, and
# has the tools of irpipe(7)'s standard pipeline in the same order.

setup() {
	load test_helper
	root=$BATS_TEST_DIRNAME/..
	readme=$root/README.md
}

# section TITLE: the lines of README's "## TITLE" section
section() {
	awk -v t="## $1" '$0 == t { on = 1; next } /^## / { on = 0 } on' "$readme"
}

# commands: the tour's code blocks (4-space indented) as one command a
# line, continuation lines joined and spaces squeezed; a block's line that
# starts no command is output the command before it shows, printed
# "OUT<TAB>line".
commands() {
	section 'A short tour' | awk '
		/^    / { l = substr($0, 5); sub(/[ \t]+$/, "", l)
			if (cont) { cur = cur " " l }
			else if (l ~ /^(ir-[a-z-]+|diff|mkdir|export|cp|cd) /) { if (cur != "") print cur; cur = l }
			else { if (cur != "") print cur; cur = ""; print "OUT\t" l; next }
			cont = (cur ~ /\\$/); if (cont) sub(/[ \t]*\\$/, "", cur); next }
		{ if (cur != "" && !cont) { print cur; cur = "" } }
		END { if (cur != "") print cur }' | tr -s ' '
}

@test "readme: every manual page in man/ is in the README's list" {
	list=$(section 'Manual pages')
	n=0
	for page in "$root"/man/*.[157]; do
		name=${page##*/}
		[[ "$list" == *"\`man man/$name\`"* ]] || { echo "README's list lacks man/$name"; false; }
		n=$((n + 1))
	done
	[ "$n" -ge 13 ]
}

@test "readme: the whole pipeline is make demo's, with ir-fold-constants, and it runs" {
	readme_pipe=$(commands | grep -m 1 -- '^ir-parse cnn.ir |')
	[[ "$readme_pipe" == *'| ir-fold-constants |'* ]]
	[[ "$readme_pipe" == *'| ir-run '* ]]
	demo_pipe=$(sed -n "s/^PIPELINE='\(.*\)'\$/\1/p" "$root/demo/demo.sh")
	assert_equal "$readme_pipe" "$demo_pipe"
	# the tools in the order of irpipe(7)'s standard pipeline
	tools() { grep -o 'ir-[a-z-]*' | tr '\n' ' '; }
	man_pipe=$(sed -n '/^\.Ss The standard pipeline/,/^\.Ed/p' "$root/man/irpipe.7" | tools)
	assert_equal "$(printf %s "$readme_pipe" | tools)" "$man_pipe"
	# demo.sh runs it: eval "$PIPELINE", in a copy of demo/
	grep -q '^	eval "\$PIPELINE"$' "$root/demo/demo.sh"
	mkdir "$BATS_TEST_TMPDIR/tour"
	cp "$root"/demo/* "$BATS_TEST_TMPDIR/tour/"
	cd "$BATS_TEST_TMPDIR/tour"
	run -0 --separate-stderr bash -c "set -o pipefail; $readme_pipe"
	[[ "$stderr" == *"ir-run: 20 runs, median"* ]]
	[ -s y.npy ]
	# folding changed the module: the convolutions (16 output channels,
	# cpus only) read weights in panels of 16
	ir-parse cnn.ir | ir-fold-constants | grep -q 'kernel_layout="OIHW16o"'
}

@test "readme: every command of the tour runs in a copy of demo/, and shows what the README shows" {
	t=$BATS_TEST_TMPDIR
	commands > "$t/cmds"
	cat "$t/cmds"
	[ "$(grep -c '' "$t/cmds")" -ge 15 ]
	# start in an empty folder, so that a command that runs before the
	# tour's cd writes nothing into the checkout
	mkdir "$t/start"
	cd "$t/start"
	last=
	while IFS= read -r c; do
		case $c in
		OUT$'\t'*)
			# the output the README shows for the command before
			want=${c#OUT$'\t'}
			[[ "$lastout" == *"$want"* ]] || { echo "'$last' did not print '$want':"; echo "$lastout"; false; }
			continue ;;
		'export PATH='*) continue ;;      # the test's PATH has the tools already
		*.onnx*|*m/resnet18.ir*) continue ;; # no ONNX model here (onnx_models.bats)
		esac
		c=${c//\/tmp\/tour/$t/tour}
		c=${c//cp demo\//cp $root/demo/}
		last=$c
		rc=0
		lastout=$(bash -c "set -o pipefail; $c" 2>&1) || rc=$?
		case $c in
		*'| diff '*|'diff '*) [ $rc -le 1 ] ;;  # diff says 1 when they differ
		*conflict.ir*) [ $rc -eq 1 ] ;;      # the error example
		*) [ $rc -eq 0 ] || { echo "'$c' exited $rc:"; echo "$lastout"; false; } ;;
		esac
		# a cd (alone or last in a list) goes on for the commands after it
		case $c in cd\ *|*'&& cd '*) cd "${c##*cd }" ;; esac
	done < "$t/cmds"
	# the fold example shows the weights folded, the diff example the edit
	cd "$t/tour"
	ir-fold-constants c.ir | diff -u c.ir - | grep -q '^+.*%w_oihw16o'
	diff -u a.ir b.ir | grep -q '^+ *%bias_cpu: .* = on_device'
}
