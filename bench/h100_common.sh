# bench/h100_common.sh: sourced by bench/h100_tex.sh and bench/h100_models.sh,
# which prepare a folder here (sources, models) and run it on a device
# machine without re2c, bison, torchvision or onnx.

# h100_prep_sources P: P gets this checkout's sources (git archive HEAD, and
# BASE_REV's as base.tar.gz when set), the generated parser and the OpenCL
# headers.  Run from the repository root.
h100_prep_sources() {
	mkdir -p "$1/parser"
	git archive --format=tar.gz -o "$1/src.tar.gz" HEAD
	[ -z "${BASE_REV:-}" ] || git archive --format=tar.gz -o "$1/base.tar.gz" "$BASE_REV"
	cp build/parser/lexer.c build/parser/grammar.c build/parser/grammar.h "$1/parser/"
	cp -r /usr/include/CL "$1/inc"
}

# h100_import BIN D NAME: imports D/onnx/NAME.onnx by BIN/ir-import-onnx as
# D/m.ir for `device @gpu = gpu(0)`, keeps its constants of at most 64 KiB
# and writes D/manifest (file, dtype, shape, mean, std) for the larger ones,
# which h100_regen draws at random on the device; removes D/onnx.
h100_import() {
	"$1/ir-import-onnx" --device='@gpu = gpu(0)' -o "$2/m.ir" --data-dir "$2/onnx" "$2/onnx/$3.onnx"
	/usr/bin/python3 - "$2/onnx" "$2" <<'PY'
import os, re, shutil, sys
import numpy as np
S, D = sys.argv[1], sys.argv[2]
out = []
for f in sorted(set(re.findall(r'file="([^"]*)"', open(D + "/m.ir").read()))):
    a = np.load(os.path.join(S, f))
    if a.nbytes <= 65536:
        shutil.copy(os.path.join(S, f), os.path.join(D, f))
    else:
        out.append("%s %s %s %r %r" % (f, a.dtype.str, ",".join(map(str, a.shape)),
                                       float(a.mean()), float(a.std())))
open(D + "/manifest", "w").write("\n".join(out) + "\n")
PY
	rm -rf "$2/onnx"
}

# h100_regen D: D's large constants, drawn from D/manifest (seed 0)
h100_regen() {
	"$PY" - "$1" <<'PY'
import sys
import numpy as np
D = sys.argv[1]
r = np.random.default_rng(0)
for line in open(D + "/manifest"):
    if line.strip():
        f, dt, shape, mean, std = line.split()
        shape = tuple(int(s) for s in shape.split(","))
        np.save(D + "/" + f, r.normal(float(mean), float(std), shape).astype(dt))
PY
}

# h100_build P S OUT TARGET...: on the device, registers the NVIDIA OpenCL
# ICD where the image registers only POCL's, builds TARGETs (and every
# tool but ir-import-onnx) from P/src.tar.gz in S, and, when P has
# base.tar.gz, the tools from it in S.base (sets H100_BASE=1); build logs
# in OUT.  JOBS: make's -j (16).
h100_build() {
	_p=$1 _s=$2 _o=$3
	shift 3
	if command -v nvidia-smi > /dev/null && ! grep -rqi nvidia /etc/OpenCL/vendors 2>/dev/null; then
		lib=$(ldconfig -p | awk '/libnvidia-opencl.so.1/ { print $NF; exit }')
		[ -n "$lib" ] && echo "$lib" > /etc/OpenCL/vendors/nvidia.icd
	fi
	mkdir -p "$_s/build/parser"
	tar -xzf "$_p/src.tar.gz" -C "$_s"
	cp "$_p"/parser/* "$_s/build/parser/" && touch "$_s"/build/parser/*
	H100_TOOLS=$(cd "$_s" && ls tools/ir-*.c | sed 's|tools/\(.*\)\.c|build/bin/\1|' | grep -v import-onnx)
	if ! (cd "$_s" && make -j"${JOBS:-16}" WERROR= OPENCL_CFLAGS="-I$_p/inc" $H100_TOOLS "$@") > "$_o/build.log" 2>&1; then
		tail -30 "$_o/build.log"
		return 1
	fi
	gcc --version | head -1
	H100_BASE=
	[ -f "$_p/base.tar.gz" ] || return 0
	mkdir -p "$_s.base/build/parser"
	tar -xzf "$_p/base.tar.gz" -C "$_s.base"
	cp "$_p"/parser/* "$_s.base/build/parser/" && touch "$_s.base"/build/parser/*
	(cd "$_s.base" && make -j"${JOBS:-16}" WERROR= OPENCL_CFLAGS="-I$_p/inc" $H100_TOOLS) > "$_o/build_base.log" 2>&1 ||
		{ tail -30 "$_o/build_base.log"; return 1; }
	H100_BASE=1
}
