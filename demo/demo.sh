#!/bin/sh
# demo/demo.sh: a short tour of irpipe (run by `make demo`).  The tools come
# from $IRPIPE_BIN (default build/bin).  Later stages are added as the
# tools exist: ir-plan-devices (drawn by ir-dot), ir-lower, ir-run --interp,
# and ir-run on OpenCL (POCL here) with a texture model and --profile.
#
# The whole pipeline at the end is the README's, word for word
# (tests/readme.bats holds them equal): ir-fold-constants included, so
# that no weight is re-laid out on every run.
set -eu
cd "$(dirname "$0")/.."
bin=${IRPIPE_BIN:-build/bin}
[ -x "$bin/ir-parse" ] || { echo "demo: $bin/ir-parse is not built (run make)" >&2; exit 1; }
bin=$(cd "$bin" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/irpipe-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# the README's tour runs in a copy of demo/, with the tools on PATH
PIPELINE='ir-parse cnn.ir | ir-fold-constants | ir-plan-devices | ir-lower | ir-plan-devices | ir-flatten-texture | ir-plan-memory | ir-codegen-ocl | ir-run --profile --repeat 20 --input x=x.npy -o y.npy'

step() { printf '\n$ %s\n' "$*"; }

step "ir-parse demo/model.ir"
"$bin/ir-parse" demo/model.ir >"$tmp/model.ir"
cat "$tmp/model.ir"

# Canonical output of both versions, so the diff shows only the edit.
"$bin/ir-parse" demo/model-edited.ir >"$tmp/model-edited.ir"
step "diff -u <(ir-parse demo/model.ir) <(ir-parse demo/model-edited.ir)"
diff -u --label model.ir --label model-edited.ir \
	"$tmp/model.ir" "$tmp/model-edited.ir" || [ $? -eq 1 ]

if [ -x "$bin/ir-plan-devices" ]; then
	step "ir-parse demo/model.ir | ir-plan-devices"
	"$bin/ir-plan-devices" "$tmp/model.ir" >"$tmp/planned.ir"
	cat "$tmp/planned.ir"
	step "diff -u parsed.ir planned.ir"
	diff -u --label parsed.ir --label planned.ir \
		"$tmp/model.ir" "$tmp/planned.ir" || [ $? -eq 1 ]
	if [ -x "$bin/ir-dot" ]; then
		# A picture of the plan, kept after the demo (beside the tools).
		svg=$(cd "$bin/.." && pwd)/demo-plan.svg
		step "ir-dot planned.ir | dot -Tsvg > $svg"
		"$bin/ir-dot" "$tmp/planned.ir" >"$tmp/planned.dot"
		if command -v dot >/dev/null 2>&1; then
			dot -Tsvg "$tmp/planned.dot" >"$svg"
			echo "the plan's picture is in $svg"
		else
			cp "$tmp/planned.dot" "${svg%.svg}.dot"
			echo "dot (graphviz) is not installed: the DOT is in ${svg%.svg}.dot"
		fi
	fi
fi

if [ -x "$bin/ir-lower" ] && [ -x "$bin/ir-run" ]; then
	step "ir-lower --stats planned.ir | ir-plan-devices"
	"$bin/ir-lower" --stats "$tmp/planned.ir" | "$bin/ir-plan-devices" >"$tmp/lowered.ir"
	cat "$tmp/lowered.ir"
	cp demo/x.npy demo/w.npy demo/b.npy "$tmp/"
	step "ir-run --interp --input x=x.npy --input w=w.npy --input b=b.npy lowered.ir | cut -c1-100"
	"$bin/ir-run" --interp --input x="$tmp/x.npy" --input w="$tmp/w.npy" \
		--input b="$tmp/b.npy" "$tmp/lowered.ir" | cut -c1-100
	step "the same on the graph level, before lowering"
	"$bin/ir-run" --interp --input x="$tmp/x.npy" --input w="$tmp/w.npy" \
		--input b="$tmp/b.npy" "$tmp/planned.ir" | cut -c1-100
fi

if [ -x "$bin/ir-flatten-texture" ] && [ -x "$bin/ir-codegen-ocl" ] && [ -x "$bin/ir-run" ]; then
	step "ir-flatten-texture lowered.ir | ir-codegen-ocl > ocl.ir   (OpenCL C per device)"
	"$bin/ir-flatten-texture" "$tmp/lowered.ir" | "$bin/ir-codegen-ocl" >"$tmp/ocl.ir"
	grep -c '^ *|' "$tmp/ocl.ir" | sed 's/$/ lines of OpenCL C/'
	in="--input x=$tmp/x.npy --input w=$tmp/w.npy --input b=$tmp/b.npy"
	# on OpenCL (POCL here), every call checked against the interpreter
	step "ir-run --check --input x=x.npy --input w=w.npy --input b=b.npy ocl.ir -o y.npy"
	# shellcheck disable=SC2086
	"$bin/ir-run" --check $in -o "$tmp/y.npy" "$tmp/ocl.ir"
	echo "every call_lowered equals the interpreter's"
	step "ir-run --profile --repeat 20 --input x=x.npy --input w=w.npy --input b=b.npy ocl.ir -o y.npy"
	# shellcheck disable=SC2086
	"$bin/ir-run" --profile --repeat 20 $in -o "$tmp/y.npy" "$tmp/ocl.ir"
	# A texture model: NCHW4c activations and OIHW4o weights in 2-d images
	step "demo/texture.ir through the pipeline: images on a texture gpu"
	"$bin/ir-plan-devices" demo/texture.ir | "$bin/ir-lower" | "$bin/ir-plan-devices" \
		| "$bin/ir-flatten-texture" | "$bin/ir-codegen-ocl" >"$tmp/tex.ir"
	grep '^ *| *__kernel' "$tmp/tex.ir" | cut -c1-100
	python3 bench/gen.py npy 1,4,28,28,4 "$tmp/tx.npy"
	python3 bench/gen.py npy 4,16,3,3,4 "$tmp/tw1.npy"
	python3 bench/gen.py npy 4,16,3,3,4 "$tmp/tw2.npy"
	tin="--input x=$tmp/tx.npy --input w1=$tmp/tw1.npy --input w2=$tmp/tw2.npy"
	step "ir-run --check --input x=x.npy --input w1=w1.npy --input w2=w2.npy tex.ir -o y.npy"
	# shellcheck disable=SC2086
	"$bin/ir-run" --check $tin -o "$tmp/ty.npy" "$tmp/tex.ir"
	echo "every call_lowered equals the interpreter's"
	step "ir-run --profile --repeat 20 --input x=x.npy --input w1=w1.npy --input w2=w2.npy tex.ir -o y.npy"
	# shellcheck disable=SC2086
	"$bin/ir-run" --profile --repeat 20 $tin -o "$tmp/ty.npy" "$tmp/tex.ir"
fi

if [ -x "$bin/ir-fold-constants" ] && [ -x "$bin/ir-codegen-ocl" ] && [ -x "$bin/ir-run" ]; then
	# demo/cnn.ir: the weights are constants, as ir-import-onnx writes them
	mkdir "$tmp/tour"
	cp demo/* "$tmp/tour/"
	cd "$tmp/tour"
	export PATH="$bin:$PATH"
	step "ir-parse demo/cnn.ir > c.ir; ir-fold-constants c.ir | diff -u c.ir -   (weights in the cpu kernel's layout, once)"
	ir-parse cnn.ir > c.ir
	ir-fold-constants c.ir | diff -u --label c.ir --label folded c.ir - || [ $? -eq 1 ]
	step "the whole pipeline, in a copy of demo/:"
	printf '  %s\n' "$PIPELINE"
	eval "$PIPELINE"
	cd - > /dev/null
fi
