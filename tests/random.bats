#!/usr/bin/env bats
# Random models (tests/gen/gen.py) through the whole pipeline, checked by
# tests/gen/check.py: every stage re-parses to itself, planning is
# idempotent, and the lowered module computes what the graph level does.
# IRPIPE_RANDOM_SEED and IRPIPE_RANDOM_COUNT pick other models; `make fuzz`
# runs thousands.  Below them, the defects the generator found.

setup() {
	load test_helper
	G="$BATS_TEST_DIRNAME/gen"
	export TMPDIR=$BATS_TEST_TMPDIR    # the folders of failed models
}

need_numpy() {
	have_python numpy || skip "python3-numpy is not installed"
}

@test "random: models through parse, plan, lower, plan equal the graph level" {
	need_numpy
	run "$PY" "$G/check.py" --bin "$IRPIPE_BIN" --seed "${IRPIPE_RANDOM_SEED:-1}" \
		--count "${IRPIPE_RANDOM_COUNT:-200}" --jobs 2
	echo "$output"
	[ "$status" -eq 0 ]
}

# The next three tests are of tests/gen/gen.py alone (python3, no tool of
# a build): what it writes is made once a make check (made_once), and
# every job compares it.

# generated DIR: gen.py's outputs that the next three tests compare, in DIR
generated() {
	"$PY" "$G/gen.py" 77 "$1/a77" || return 1
	"$PY" "$G/gen.py" 77 "$1/b77" || return 1
	"$PY" "$G/gen.py" 78 "$1/c78" || return 1
	"$PY" "$G/gen.py" --list-ops 1000 > "$1/ops" || return 1
	"$PY" "$G/gen.py" --legacy --list-ops 300 > "$1/legacy" || return 1
	"$PY" "$G/gen.py" --legacy 5095 "$1/legacy5095" || return 1
	"$PY" "$G/gen.py" 5095 "$1/new5095" || return 1
}

# gen_outputs: generated's outputs in $BATS_TEST_TMPDIR/gen (made by the
# first test of the file that asks)
gen_outputs() {
	if [ ! -d "$BATS_FILE_TMPDIR/gen" ]; then
		mkdir "$BATS_FILE_TMPDIR/gen"
		made_once random-generated "$BATS_FILE_TMPDIR/gen" generated
	fi
	ln -s "$BATS_FILE_TMPDIR/gen" "$BATS_TEST_TMPDIR/gen"
}

@test "random: a model is a function of its seed" {
	gen_outputs
	local g=$BATS_TEST_TMPDIR/gen
	[ -s "$g/a77/model.ir" ]
	diff -r "$g/a77" "$g/b77"
	! cmp -s "$g/a77/model.ir" "$g/c78/model.ir"
}

@test "random: the models use every operator of the registry (lib/ops/ops.def)" {
	# a new operator fails this until tests/gen/gen.py generates it
	sed -n 's/^OP([A-Z_0-9]*, "\([^"]*\)".*/\1/p' "$BATS_TEST_DIRNAME/../lib/ops/ops.def" |
		LC_ALL=C sort > "$BATS_TEST_TMPDIR/registry"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/registry")" -ge 50 ]
	gen_outputs
	LC_ALL=C sort "$BATS_TEST_TMPDIR/gen/ops" > "$BATS_TEST_TMPDIR/generated"
	diff "$BATS_TEST_TMPDIR/registry" "$BATS_TEST_TMPDIR/generated"
}

@test "random: --legacy gives the models of before comparisons, slices and pads (older tests' seeds)" {
	gen_outputs
	local g=$BATS_TEST_TMPDIR/gen
	! grep -qx -e where -e strided_slice -e nn.pad -e argmax -e equal -e max "$g/legacy"
	grep -qx nn.conv2d "$g/legacy"
	[ -s "$g/legacy5095/model.ir" ]
	! cmp -s "$g/legacy5095/model.ir" "$g/new5095/model.ir"
}

@test "random: a lowering that computes something else fails, with the seed" {
	need_numpy
	# ir-lower that turns the first product into a sum
	mkdir "$BATS_TEST_TMPDIR/bin"
	for t in "$IRPIPE_BIN"/ir-*; do
		[ "${t##*/}" = ir-lower ] || ln -s "$t" "$BATS_TEST_TMPDIR/bin/"
	done
	printf '#!/bin/sh\n"%s/ir-lower" "$@" | sed "s/ \\* / + /"\n' "$IRPIPE_BIN" > "$BATS_TEST_TMPDIR/bin/ir-lower"
	chmod +x "$BATS_TEST_TMPDIR/bin/ir-lower"
	run "$PY" "$G/check.py" --bin "$BATS_TEST_TMPDIR/bin" --seed 1 --count 20 --jobs 2
	[ "$status" -eq 1 ]
	[[ "$output" == *"random: FAIL seed "*"elements differ; at "* ]]
	[[ "$output" == *"reproduce: "*"check.py --seed "*" --count 1 --bin "* ]]
}

# --- defects found by the generator ------------------------------------------

@test "random: ir-lower of a located module locates every line of its prims (also fixed on main)" {
	printf 'device @cpu = cpu(0)\nfn @main(%%x: f32[4]) {\n  %%0 = negative(%%x)\n  return %%0\n}\n' > "$BATS_TEST_TMPDIR/l.ir"
	ir-parse --locations "$BATS_TEST_TMPDIR/l.ir" | ir-lower > "$BATS_TEST_TMPDIR/s3.ir"
	ir-parse "$BATS_TEST_TMPDIR/s3.ir" | cmp - "$BATS_TEST_TMPDIR/s3.ir"
	grep -q 'prim @negative(%p0: f32\[4\] @cpu:global loc(".*l.ir":3:3), ' "$BATS_TEST_TMPDIR/s3.ir"
}

@test "random: a concatenate of bool tensors lowers (its zero is false, not 0)" {
	printf 'device @cpu = cpu(0)\nfn @main(%%p: bool[4,3]) {\n  %%t = (%%p, %%p)\n  %%0 = concatenate(%%t)\n  return %%0\n}\n' > "$BATS_TEST_TMPDIR/b.ir"
	run -0 ir-lower "$BATS_TEST_TMPDIR/b.ir"
	[[ "$output" == *"= false"* ]]
	ir-lower "$BATS_TEST_TMPDIR/b.ir" | ir-parse > /dev/null
}

@test "random: an integer mean or average pool after ir-lower is the exact one of the graph level (seeds 5002, 5095, 5235)" {
	need_numpy
	# one run for all the seeds: its stages batched, each tool started once
	run "$PY" "$G/check.py" --legacy --bin "$IRPIPE_BIN" --seeds 5002,5095,5235
	echo "$output"
	[ "$status" -eq 0 ]
	assert_line "random: 3 models (seeds 5002,5095,5235), 0 failed"
}

@test "random: a u64 literal operand above INT64_MAX reads, lowers and runs (seeds 2868, 3243, 4279, 11149)" {
	need_numpy
	"$PY" "$G/gen.py" --each "$BATS_TEST_TMPDIR/m" 2868 3243 4279 11149
	for s in 2868 3243 4279 11149; do
		# the model has one still (the generator did not drift from it)
		grep -Eq '[(, ](9223372036854775808|18446744073709551615)[,)]' "$BATS_TEST_TMPDIR/m$s/model.ir"
	done
	# one run for all the seeds: its stages batched, each tool started once
	run "$PY" "$G/check.py" --bin "$IRPIPE_BIN" --seeds 2868,3243,4279,11149
	echo "$output"
	[ "$status" -eq 0 ]
	assert_line "random: 4 models (seeds 2868,3243,4279,11149), 0 failed"
}
