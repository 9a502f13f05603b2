#!/usr/bin/env bats
# ir-run's program binary cache (lib/ocl/bincache.c): a second run loads
# the binary it stored, --no-cache writes nothing, and a corrupt, truncated
# or mismatched entry is rebuilt, never a failure.  Every test has its own
# XDG_CACHE_HOME.  POCL's own kernel cache is off (POCL_KERNEL_CACHE=0)
# but in the last test and for the runs that store nothing (pocl_cached):
# with it on, ir-run stores nothing for POCL.

setup() {
	load test_helper
	bats_require_minimum_version 1.5.0
	ocl_setup
	d=$BATS_TEST_TMPDIR
	# POCL's own cache, as the other tests use it (see pocl_cached)
	pocl_dir=${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pocl}
	export XDG_CACHE_HOME=$d/cache
	export POCL_KERNEL_CACHE=0
	# small_cnn on a texture gpu: images, several kernels
	retarget tex "$BATS_TEST_DIRNAME/ir-run/small_cnn.ir" > "$d/m.ir"
	compiled "$d/m.ir" "$d/m.ocl.ir"
	args=$("$PY" "$H" inputs "$d/m.ir" "$d")
	ir-run --interp $args -o "$d/ref.npy" "$d/m.ir"
}

# pocl_cached COMMAND...: COMMAND with POCL's own kernel cache on, in the
# folder the other tests fill, for a run whose assertions are about what
# ir-run reads (a miss on a damaged or foreign entry, POCL's cache being on
# at all): the program is then built from POCL's cache, not compiled again
# (about 1 s of CPU each, 4 of the file's 16 builds).  Runs that must store
# an entry keep POCL's cache off.
pocl_cached() {
	POCL_KERNEL_CACHE=1 POCL_CACHE_DIR=$pocl_dir "$@"
}

entries() {
	find "$XDG_CACHE_HOME/irpipe" -name '*.bin' -type f 2>/dev/null | wc -l
}

@test "run_ocl_cache: the first run stores the binary, the second loads it, same result" {
	run -0 --separate-stderr ir-run --stats $args -o "$d/o1.npy" "$d/m.ocl.ir"
	[[ "$stderr" == *"ir-run: @cpu: program binary cache miss: $XDG_CACHE_HOME/irpipe/"*".bin"* ]]
	[ "$(entries)" = 1 ]
	run -0 --separate-stderr ir-run --stats $args -o "$d/o2.npy" "$d/m.ocl.ir"
	[[ "$stderr" == *"ir-run: @cpu: program binary cache hit: $XDG_CACHE_HOME/irpipe/"*".bin"* ]]
	[ "$(entries)" = 1 ]
	"$PY" "$H" same "$d/o1.npy" "$d/ref.npy"
	"$PY" "$H" same "$d/o2.npy" "$d/ref.npy"
	# no temporaries left beside the entry
	[ "$(find "$XDG_CACHE_HOME/irpipe" -type f | wc -l)" = 1 ]
}

@test "run_ocl_cache: --no-cache neither writes nor reads the cache" {
	run -0 --separate-stderr ir-run --no-cache --stats $args -o "$d/o.npy" "$d/m.ocl.ir"
	[[ "$stderr" != *"binary cache"* ]]
	[ ! -e "$XDG_CACHE_HOME/irpipe" ]
	"$PY" "$H" same "$d/o.npy" "$d/ref.npy"
	ir-run $args -o "$d/o.npy" "$d/m.ocl.ir"
	[ "$(entries)" = 1 ]
	run -0 --separate-stderr ir-run --no-cache --stats $args -o "$d/o.npy" "$d/m.ocl.ir"
	[[ "$stderr" != *"binary cache hit"* ]]
	run -2 --separate-stderr ir-run --interp --no-cache $args "$d/m.ocl.ir"
	[[ "$stderr" == *"--no-cache runs on OpenCL devices; leave out --interp"* ]]
}

@test "run_ocl_cache: a corrupt or truncated entry is rebuilt and replaced" {
	ir-run $args -o "$d/o.npy" "$d/m.ocl.ir"
	f=$(find "$XDG_CACHE_HOME/irpipe" -name '*.bin')
	size=$(stat -c %s "$f")
	# flip bytes in the binary's middle (the key and lengths intact)
	printf 'garbage!garbage!' | dd of="$f" bs=1 seek=$((size - 200)) conv=notrunc 2>/dev/null
	run -0 --separate-stderr ir-run --stats $args -o "$d/o.npy" "$d/m.ocl.ir"
	[[ "$stderr" == *"program binary cache miss"* ]]
	"$PY" "$H" same "$d/o.npy" "$d/ref.npy"
	run -0 --separate-stderr ir-run --stats $args -o "$d/o.npy" "$d/m.ocl.ir"
	[[ "$stderr" == *"program binary cache hit"* ]]
	# cut in the middle, then nothing but a header
	head -c $((size / 2)) "$f" > "$f.cut" && mv "$f.cut" "$f"
	run -0 --separate-stderr ir-run --stats $args -o "$d/o.npy" "$d/m.ocl.ir"
	[[ "$stderr" == *"program binary cache miss"* ]]
	"$PY" "$H" same "$d/o.npy" "$d/ref.npy"
	run -0 --separate-stderr ir-run --stats $args -o "$d/o.npy" "$d/m.ocl.ir"
	[[ "$stderr" == *"program binary cache hit"* ]]
	printf 'irpipe-bincache 1\n\377\377\377\377\377\377\377\377' > "$f"
	run -0 --separate-stderr pocl_cached ir-run --stats $args -o "$d/o.npy" "$d/m.ocl.ir"
	[[ "$stderr" == *"program binary cache miss"* ]]
	# a whole key, then a binary length of the file's size less the frame
	# (wrapped below zero as the checksum is missing): refused, not allocated
	"$PY" - "$f" <<'PY'
import struct, sys
p = sys.argv[1]
b = open(p, "rb").read()
magic = len("irpipe-bincache 1\n")
klen = struct.unpack("<Q", b[magic:magic + 8])[0]
head = b[:magic + 8 + klen]
frame = len(head) + 8 + 8
size = len(head) + 8 + 4
open(p, "wb").write(head + struct.pack("<Q", (size - frame) % 2**64) + b"abcd")
PY
	run -0 --separate-stderr pocl_cached ir-run --stats $args -o "$d/o.npy" "$d/m.ocl.ir"
	[[ "$stderr" == *"program binary cache miss"* ]]
	"$PY" "$H" same "$d/o.npy" "$d/ref.npy"
}

@test "run_ocl_cache: an entry of another program under this one's name is not used" {
	ir-run $args -o "$d/o.npy" "$d/m.ocl.ir"
	f=$(find "$XDG_CACHE_HOME/irpipe" -name '*.bin')
	# another model: another program, another entry
	mkdir "$d/p"
	ir-plan-devices "$BATS_TEST_DIRNAME/ir-run/pooling.ir" | ir-lower | ir-plan-devices \
		| ir-flatten-texture | ir-codegen-ocl > "$d/p/p.ocl.ir"
	ir-run $("$PY" "$H" inputs "$d/p/p.ocl.ir" "$d/p") -o "$d/p/o.npy" "$d/p/p.ocl.ir"
	[ "$(entries)" = 2 ]
	g=$(find "$XDG_CACHE_HOME/irpipe" -name '*.bin' ! -path "$f")
	# the pooling program's binary where small_cnn's is looked for: its key
	# differs, so it is a miss, and small_cnn's kernels run
	cp "$g" "$f"
	run -0 --separate-stderr pocl_cached ir-run --stats $args -o "$d/o.npy" "$d/m.ocl.ir"
	[[ "$stderr" == *"program binary cache miss"* ]]
	"$PY" "$H" same "$d/o.npy" "$d/ref.npy"
}

@test "run_ocl_cache: without XDG_CACHE_HOME (or with a relative one) the cache is ~/.cache/irpipe" {
	run -0 --separate-stderr env -u XDG_CACHE_HOME HOME="$d/home" ir-run --stats $args \
		-o "$d/o.npy" "$d/m.ocl.ir"
	[[ "$stderr" == *"miss: $d/home/.cache/irpipe/"* ]]
	cd "$d"
	run -0 --separate-stderr env XDG_CACHE_HOME=rel HOME="$d/home" ir-run --stats $args \
		-o "$d/o.npy" "$d/m.ocl.ir"
	[[ "$stderr" == *"hit: $d/home/.cache/irpipe/"* ]]
	[ ! -e rel/irpipe ]
	# a cache that cannot be made is no cache, not an error (POCL's own
	# cache elsewhere: POCL fails without it)
	run -0 --separate-stderr env XDG_CACHE_HOME=/dev/null/x POCL_CACHE_DIR="$d/pocl" ir-run --stats $args \
		-o "$d/o.npy" "$d/m.ocl.ir"
	[[ "$stderr" != *"binary cache"* ]]
	"$PY" "$H" same "$d/o.npy" "$d/ref.npy"
}

@test "run_ocl_cache: with POCL's own kernel cache on, nothing is stored (POCL would compile every kernel again), and --stats says why" {
	unset POCL_KERNEL_CACHE
	export POCL_CACHE_DIR=$pocl_dir
	run -0 --separate-stderr ir-run --stats $args -o "$d/o1.npy" "$d/m.ocl.ir"
	[[ "$stderr" == *"ir-run: @cpu: program binary cache miss: "* ]]
	[[ "$stderr" == *"ir-run: @cpu: program binary not stored: POCL keeps the build and its kernels in its own cache (POCL_KERNEL_CACHE)"* ]]
	[ "$(entries)" = 0 ]
	run -0 --separate-stderr ir-run --stats $args -o "$d/o2.npy" "$d/m.ocl.ir"
	[ "$(entries)" = 0 ]
	"$PY" "$H" same "$d/o1.npy" "$d/ref.npy"
	"$PY" "$H" same "$d/o2.npy" "$d/ref.npy"
	# POCL_KERNEL_CACHE=0: stored as before
	POCL_KERNEL_CACHE=0 ir-run $args -o "$d/o3.npy" "$d/m.ocl.ir"
	[ "$(entries)" = 1 ]
}
