#!/usr/bin/env bats
# ir-dot: the DOT it writes renders with Graphviz's dot, and has the
# structure the module has (nodes, edges, clusters), on parsed, planned and
# lowered models; escaping of odd strings; --max-nodes; the command line.

setup() {
	load test_helper
	command -v dot >/dev/null || skip "graphviz is not installed (scripts/deps.sh)"
	demo=$BATS_TEST_DIRNAME/../demo/model.ir
}

# renders FILE: dot -Tsvg accepts FILE without a word on stderr.
renders() {
	run -0 --separate-stderr dot -Tsvg "$1"
	assert_equal "$stderr" ''
	assert_output --partial '</svg>'
}

# count nodes|edges FILE, as Graphviz's gc counts them.
count() {
	gc "-${1:0:1}" "$2" | awk '{ print $1 }'
}

# labels_inside FILE: in the SVG dot draws of FILE, every line of every
# node drawn as a polygon lies inside the polygon's height (a text's top
# is its baseline less the font's ascent, at most 0.8 of its size);
# prints the nodes whose labels spill.
labels_inside() {
	dot -Tsvg "$1" | "$PY" -c '
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
bad = 0
for g in ET.parse(sys.stdin).iter(ns + "g"):
    if g.get("class") != "node":
        continue
    poly = g.find(ns + "polygon")
    if poly is None:
        continue
    ys = [float(p.split(",")[1]) for p in poly.get("points").split()]
    for t in g.iter(ns + "text"):
        y, size = float(t.get("y")), float(t.get("font-size"))
        if y - 0.8 * size < min(ys) or y > max(ys):
            print("spills:", g.find(ns + "title").text, t.text)
            bad = 1
sys.exit(bad)'
}

# clusters FILE: the cluster ids, one a line, in order.
clusters() {
	grep -o 'subgraph cluster_[a-z0-9_]*' "$1" | cut -d' ' -f2
}

@test "dot: the planned demo renders, one cluster per device, copies bold with bytes" {
	t=$BATS_TEST_TMPDIR
	ir-plan-devices "$demo" | ir-dot > "$t/p.dot"
	renders "$t/p.dot"
	# 3 parameters, 5 bindings, the result; an edge per operand and the return
	assert_equal "$(count nodes "$t/p.dot")" 9
	assert_equal "$(count edges "$t/p.dot")" 8
	assert_equal "$(clusters "$t/p.dot" | tr '\n' ' ')" 'cluster_f0 cluster_f0_d0 cluster_f0_d1 '
	grep -q 'label="@cpu"' "$t/p.dot"
	grep -q 'label="@gpu"' "$t/p.dot"
	# both copies cross devices: bold, red, with the bytes they copy
	assert_equal "$(grep -c 'device_copy.*bytes.*penwidth=3' "$t/p.dot")" 2
	grep -q '@cpu -> @gpu\\n12288 bytes' "$t/p.dot"
	# a copy's five lines fit its shape (a box: Graphviz draws its cds
	# arrow 6pt inside the height it sized for the label)
	run -0 labels_inside "$t/p.dot"
	assert_output ''
	grep -q 'device_copy.*shape=box, style="filled,bold"' "$t/p.dot"
	grep -q '%conv = nn.conv2d\\npadding=\[0,0,0,0\], strides=\[1,1\]\\nf32\[1,16,30,30\]\\non @gpu' "$t/p.dot"
	grep -q '%x\\nparameter 0' "$t/p.dot"
	grep -q 'label="result' "$t/p.dot"
}

@test "dot: before planning, on_device is a dashed note; only what the text placed is in a device cluster" {
	t=$BATS_TEST_TMPDIR
	ir-dot "$demo" > "$t/u.dot"
	renders "$t/u.dot"
	assert_equal "$(count nodes "$t/u.dot")" 9
	# %x and the result were written "on @cpu": alone in the cluster of @cpu
	assert_equal "$(clusters "$t/u.dot" | tr '\n' ' ')" 'cluster_f0 cluster_f0_d0 '
	assert_equal "$(sed -n '/cluster_f0_d0/,/^    }/p' "$t/u.dot" | grep -c '^ *n[0-9]')" 2
	grep -q '%out = on_device -> @cpu\\n.*shape=note, style="filled,dashed"' "$t/u.dot"
	# the parameter written "on @cpu" still says so
	grep -q '%x\\nparameter 0\\nf32\[1,3,32,32\]\\non @cpu"' "$t/u.dot"
}

@test "dot: the lowered demo names prims and kernels; --prims draws kernels and buffers" {
	t=$BATS_TEST_TMPDIR
	ir-plan-devices "$demo" | ir-lower | ir-plan-devices > "$t/l.ir"
	ir-dot "$t/l.ir" > "$t/l.dot"
	renders "$t/l.dot"
	assert_equal "$(count nodes "$t/l.dot")" 8
	assert_equal "$(count edges "$t/l.dot")" 7
	grep -q 'call_lowered @nn_relu\\nkernels: @nn_relu_k0' "$t/l.dot"
	grep -q 'call_lowered @fused_nn_conv2d_nn_bias_add\\nkernels: @fused_nn_conv2d_nn_bias_add_k0' "$t/l.dot"
	# scopes are in the labels
	grep -q '@gpu:global -> @cpu:global\\n57600 bytes' "$t/l.dot"
	ir-dot --prims "$t/l.ir" > "$t/lp.dot"
	renders "$t/lp.dot"
	# + conv prim (the shared-memory product): 4 parameters, the two
	#   shared tiles, the local accumulator, a kernel; relu prim: 2
	#   parameters, a kernel
	assert_equal "$(count nodes "$t/lp.dot")" 19
	# + conv: 3 reads, 1 write, the tiles and the accumulator both ways;
	#   relu: 1 read, 1 write; + a dashed edge from each call to its prim
	assert_equal "$(count edges "$t/lp.dot")" 21
	run -0 labels_inside "$t/lp.dot"
	# each call_lowered points at its prim's cluster, at the prim's first
	# parameter buffer: %bias calls cluster_p0, %act cluster_p1
	call=$(grep -o 'n[0-9]* \[label="%bias = call_lowered' "$t/lp.dot" | cut -d' ' -f1)
	p0=$(grep -o 'n[0-9]* \[label="%p0\\nparameter' "$t/lp.dot" | head -1 | cut -d' ' -f1)
	grep -qx "  $call -> $p0 \[lhead=cluster_p0, style=dashed, color=\"#808080\", arrowhead=empty\];" "$t/lp.dot"
	call=$(grep -o 'n[0-9]* \[label="%act = call_lowered' "$t/lp.dot" | cut -d' ' -f1)
	assert_equal "$(grep -c "^  $call -> n[0-9]* \[lhead=cluster_p1, style=dashed" "$t/lp.dot")" 1
	assert_equal "$(grep -c 'lhead=' "$t/lp.dot")" 2
	assert_equal "$(clusters "$t/lp.dot" | tr '\n' ' ')" \
		'cluster_f0 cluster_f0_d0 cluster_f0_d1 cluster_p0 cluster_p1 '
	grep -q 'kernel @nn_relu_k0", shape=component' "$t/lp.dot"
	grep -q '%acc9\\nalloc\\nf32\[1,1\] @gpu:local' "$t/lp.dot"
	grep -q '%as2\\nalloc\\nf32\[16,17\] @gpu:shared' "$t/lp.dot"
	# without --prims the functions are drawn the same
	diff <(cat "$t/l.dot") <(sed '/subgraph cluster_p0/,$d' "$t/lp.dot"; echo '}')
}

# planned FILE [ir-plan-memory options]: FILE through the whole pipeline,
# memory planned.
planned() {
	local f=$1
	shift
	ir-plan-devices "$f" | ir-lower | ir-plan-devices | ir-flatten-texture | ir-plan-memory "$@"
}

@test "dot: after ir-plan-memory, pools, offsets and images are in the labels" {
	t=$BATS_TEST_TMPDIR
	d=$BATS_TEST_DIRNAME/ir-lower
	planned "$d/texel_writes.ir" | ir-dot > "$t/tx.dot"
	renders "$t/tx.dot"
	# images in texture scopes, a pool for the buffer softmax writes
	grep -q '%p = call_lowered @layout_transform\\n.*\\non @gpu:texture\\nin image2d(0)\[6, 12\]"' "$t/tx.dot"
	grep -q '%c = call_lowered @nn_conv2d\\n.*\\nin image2d(1)\[6, 12\]"' "$t/tx.dot"
	grep -q '%s = call_lowered @nn_softmax\\n.*\\non @gpu:global\\nin @workspace.gpu\[0\]"' "$t/tx.dot"
	grep -q '%s_to_texture = device_copy\\n.*\\nin image2d(0)\[6, 12\]"' "$t/tx.dot"
	assert_equal "$(grep -c '\\nin \(@\|image2d\)' "$t/tx.dot")" 5
	# with --io the parameters too; under --prims a global alloc's place
	planned "$d/cnn_cpu.ir" --io | ir-dot --prims > "$t/cnn.dot"
	renders "$t/cnn.dot"
	grep -q '%x\\nparameter 0\\nf32\[1,3,8,8\]\\non @cpu:global\\nin @workspace.cpu\[[0-9]*\]"' "$t/cnn.dot"
	grep -q '%r = call_lowered .*\\non @cpu:global\\nin @workspace.cpu\[[0-9]*\]"' "$t/cnn.dot"
	grep -q '%wt0\\nalloc\\nf32\[3,3,3,4\] @cpu:global\\nin @workspace.cpu\[[0-9]*\]"' "$t/cnn.dot"
	# each label has the place the module has
	planned "$d/cnn_cpu.ir" --io > "$t/cnn.ir"
	off=$(sed -n 's/.*alloc %wt0:.* in @workspace.cpu\[\([0-9]*\)\].*/\1/p' "$t/cnn.ir")
	[ -n "$off" ]
	grep -q "%wt0\\\\n.*\\\\nin @workspace.cpu\\[$off\\]\"" "$t/cnn.dot"
	# unplanned, no places
	ir-plan-devices "$d/cnn_cpu.ir" | ir-lower | ir-dot --prims > "$t/u.dot"
	run grep -c '\\nin @' "$t/u.dot"
	assert_output 0
}

@test "dot: if arms, several functions each a cluster, a copy between scopes" {
	t=$BATS_TEST_TMPDIR
	cat > "$t/m.ir" <<'IR'
device @gpu = gpu(0)
fn @f(%a: f32[4] on @gpu) -> f32[4] on @gpu {
  %s = add(%a, %a)
  return %s
}
fn @main(%c: bool[] on @gpu, %x: f32[4] on @gpu) -> f32[4] on @gpu {
  %r = if %c {
    %0 = @f(%x)
    yield %0
  } else {
    yield %x
  }
  %t = device_copy(%r, @gpu -> @gpu:texture)
  return %t
}
IR
	ir-dot "$t/m.ir" > "$t/m.dot"
	renders "$t/m.dot"
	assert_equal "$(clusters "$t/m.dot" | tr '\n' ' ')" \
		'cluster_f0 cluster_f0_d0 cluster_f1 cluster_f1_d0 '
	# @f: %a, %s, result; @main: %c, %x, %r, %0, %t, result
	assert_equal "$(count nodes "$t/m.dot")" 9
	# @f: 2 + 1; @main: %c->%r, %x->%0, then, else, %r->%t, %t->result
	assert_equal "$(count edges "$t/m.dot")" 9
	grep -q '\[label="then"\]' "$t/m.dot"
	grep -q '\[label="else"\]' "$t/m.dot"
	grep -q '%0 = @f\\n' "$t/m.dot"
	# a copy within a device, between scopes: bold, orange
	grep -q '@gpu -> @gpu:texture\\n16 bytes.*color="#e67e22", penwidth=3' "$t/m.dot"
	# deterministic
	ir-dot "$t/m.ir" | cmp - "$t/m.dot"
}

@test "dot: odd strings are escaped, the DOT renders and keeps them" {
	t=$BATS_TEST_TMPDIR
	cat > "$t/odd.ir" <<'IR'
device @cpu = cpu(0)
fn @main() -> f32[2] {
  %c = const f32[2] file="a\"b\\c\n\x01\xc3\xa9 {x}<y>|z\\n.npy"
  return %c
}
prim @p(%B: f32[4] @cpu:global) {
  alloc %T: f32[4] @cpu:local {note="q\"\\l\t\xff\\N}\"", n=[1,[2,3]]}
  %T[0] = 1.0
  %B[0] = %T[0]
}
IR
	ir-dot --prims "$t/odd.ir" > "$t/odd.dot"
	renders "$t/odd.dot"
	# every byte outside printable ASCII is \xNN; quotes and backslashes escaped
	grep -qF '%c = const a\"b\\c\\x0a\\x01\\xc3\\xa9 {x}<y>|z\\n.npy\n' "$t/odd.dot"
	grep -qF 'note=\"q\"\\l\\x09\\xff\\N}\"\"' "$t/odd.dot"
	grep -qF 'n=[1,[...]]' "$t/odd.dot"
	# the DOT is plain ASCII
	run grep -c -P '[^\x20-\x7e]' "$t/odd.dot"
	assert_output 0
	# the label Graphviz reads back is the escaped text
	dot -Tsvg "$t/odd.dot" | grep -qF 'a&quot;b\c\x0a\x01\xc3\xa9 {x}&lt;y&gt;|z\n.npy'
	# outside kernels: one node reading and writing %T, writing %B
	assert_equal "$(count nodes "$t/odd.dot")" 5
	assert_equal "$(count edges "$t/odd.dot")" 4
}

@test "dot: --max-nodes folds the rest into a note and still renders" {
	t=$BATS_TEST_TMPDIR
	ir-plan-devices "$demo" > "$t/p.ir"
	ir-dot --max-nodes=4 "$t/p.ir" > "$t/f.dot"
	renders "$t/f.dot"
	# 4 nodes (%x, %w, %b, %xg) and the note; only the edges between
	# drawn nodes (%x -> %xg)
	assert_equal "$(count nodes "$t/f.dot")" 5
	assert_equal "$(count edges "$t/f.dot")" 1
	grep -q 'folded \[label="5 more nodes not drawn (--max-nodes 4)"' "$t/f.dot"
	# 0: no limit
	ir-dot --max-nodes 0 "$t/p.ir" | cmp - <(ir-dot "$t/p.ir")
	run -2 ir-dot --max-nodes=-1 "$t/p.ir"
	assert_output --partial "--max-nodes takes a number"
	run -2 ir-dot --max-nodes=x "$t/p.ir"
}

@test "dot: a module of 3000 bindings is folded by default and renders" {
	t=$BATS_TEST_TMPDIR
	{
		echo 'fn @main(%x: f32[4]) {'
		echo '  %v0 = nn.relu(%x)'
		for i in $(seq 1 2999); do echo "  %v$i = nn.relu(%v$((i - 1)))"; done
		echo '  return %v2999'
		echo '}'
	} > "$t/big.ir"
	ir-dot "$t/big.ir" > "$t/big.dot"
	renders "$t/big.dot"
	assert_equal "$(count nodes "$t/big.dot")" 2001
	grep -q 'folded \[label="1002 more nodes not drawn (--max-nodes 2000)"' "$t/big.dot"
}

@test "dot: bad input is located, exit 1, nothing on stdout; -o writes the file" {
	t=$BATS_TEST_TMPDIR
	printf 'fn @main(%%x: f32[4]) {\n  %%0 = add(%%x, %%y)\n  return %%0\n}\n' > "$t/bad.ir"
	run -1 --separate-stderr ir-dot "$t/bad.ir"
	assert_output ''
	[[ $stderr == *"bad.ir:2:"*"error:"* ]]
	ir-dot -o "$t/out.dot" "$demo"
	ir-dot "$demo" | cmp - "$t/out.dot"
	# -o as every tool's: the messages of ir-parse(1)
	run -1 --separate-stderr ir-dot -o "$t/nodir/out.dot" "$demo"
	assert_equal "$stderr" "ir-dot: cannot create '$t/nodir/out.dot': No such file or directory"
	run -1 --separate-stderr ir-dot -o /dev/full "$demo"
	assert_equal "$stderr" "ir-dot: write error: '/dev/full': No space left on device"
	run -1 --separate-stderr bash -c 'ir-dot "$1" > /dev/full' - "$demo"
	assert_equal "$stderr" "ir-dot: write error: No space left on device"
	run -0 ir-dot --help
	assert_output --partial '--max-nodes=N'
}

# stage K: a relu, K blocks of a 1x1 conv and a relu whose channels grow
# by 4 (weights as parameters), then a conv of stride 2 and a relu.
stage() {
	local k=$1 i
	printf 'fn @main(%%x: f32[1,4,8,8]'
	for i in $(seq 1 "$k"); do printf ', %%w%d: f32[%d,%d,1,1]' "$i" $((4 * i + 4)) $((4 * i)); done
	printf ', %%ws: f32[8,%d,3,3]) {\n' $((4 * k + 4))
	echo '  %h0 = nn.relu(%x)'
	for i in $(seq 1 "$k"); do
		echo "  %c$i = nn.conv2d(%h$((i - 1)), %w$i) {channels=$((4 * i + 4)), kernel_size=[1,1]}"
		echo "  %h$i = nn.relu(%c$i)"
	done
	echo "  %s = nn.conv2d(%h$k, %ws) {channels=8, kernel_size=[3,3], padding=[1,1,1,1], strides=[2,2]}"
	echo '  %y = nn.relu(%s)'
	echo '  return %y'
	echo '}'
}

@test "dot: --summary draws repeated blocks once, whatever their channels, each chain one node" {
	t=$BATS_TEST_TMPDIR
	stage 5 > "$t/s.ir"
	ir-dot --summary "$t/s.ir" > "$t/s.dot"
	renders "$t/s.dot"
	run -0 labels_inside "$t/s.dot"
	# %x, %w1, %ws, %h0, the first block (conv, relu), %y (the stride-2
	# conv and its relu: another shape), the result; %w2..%w5 only feed
	# folded blocks
	assert_equal "$(count nodes "$t/s.dot")" 7
	assert_equal "$(clusters "$t/s.dot" | tr '\n' ' ')" 'cluster_f0 cluster_f0_r0 '
	grep -q 'label="x5: %h1 ... %h5\\n(the first drawn)"' "$t/s.dot"
	sed -n '/cluster_f0_r0/,/^    }/p' "$t/s.dot" | grep -q 'label="%h1\\nnn.conv2d\\nnn.relu\\nf32\[1,8,8,8\]"'
	grep -q 'label="%y\\nnn.conv2d\\nnn.relu\\nf32\[1,8,4,4\]"' "$t/s.dot"
	run grep -c '%w[2-5]\\n' "$t/s.dot"
	assert_output 0
	# x -> h0 -> block <- w1; block -> y <- ws; y -> result: the block's
	# way out is the last one's
	assert_equal "$(count edges "$t/s.dot")" 6
	id() { grep -o "n[0-9]* \\[label=\"%$1\\\\n" "$t/s.dot" | cut -d' ' -f1; }
	grep -qx "  $(id h1) -> $(id y);" "$t/s.dot"
	grep -qx "  $(id w1) -> $(id h1);" "$t/s.dot"
	# one block: nothing repeats, no cluster; relu, conv, relu, conv,
	# relu one chain (%x, %w1, %ws, the chain, the result)
	stage 1 | ir-dot --summary > "$t/one.dot"
	assert_equal "$(clusters "$t/one.dot" | tr '\n' ' ')" 'cluster_f0 '
	assert_equal "$(count nodes "$t/one.dot")" 5
	grep -q 'label="%y\\nnn.relu\\nnn.conv2d\\nnn.relu\\nnn.conv2d\\nnn.relu\\n' "$t/one.dot"
	# as big as it gets, the picture does not grow; deterministic
	stage 400 > "$t/big.ir"
	ir-dot --summary "$t/big.ir" > "$t/big.dot"
	assert_equal "$(count nodes "$t/big.dot")" 7
	grep -q 'label="x400: %h1 ... %h400' "$t/big.dot"
	ir-dot --summary "$t/big.ir" | cmp - "$t/big.dot"
	# a 3000-binding chain of relus: one relu, then 2999 of them folded
	ir-dot --summary <(
		echo 'fn @main(%x: f32[4]) {'
		echo '  %v0 = nn.relu(%x)'
		for i in $(seq 1 2999); do echo "  %v$i = nn.relu(%v$((i - 1)))"; done
		echo '  return %v2999'
		echo '}') > "$t/relu.dot"
	renders "$t/relu.dot"
	assert_equal "$(count nodes "$t/relu.dot")" 4
	grep -q 'label="x2999: %v1 ... %v2999' "$t/relu.dot"
}

@test "dot: --summary finds a residual stage, two blocks repeating (the add's relu is a block)" {
	t=$BATS_TEST_TMPDIR
	{
		echo 'fn @main(%x: f32[1,8,4,4], %w: f32[8,8,1,1]) {'
		echo '  %h0 = nn.relu(%x)'
		for i in 1 2 3 4; do
			echo "  %a$i = nn.conv2d(%h$((i - 1)), %w) {kernel_size=[1,1]}"
			echo "  %b$i = nn.relu(%a$i)"
			echo "  %s$i = add(%b$i, %h$((i - 1)))"
			echo "  %h$i = nn.relu(%s$i)"
		done
		echo '  return %h4'
		echo '}'
	} > "$t/r.ir"
	ir-dot --summary "$t/r.ir" > "$t/r.dot"
	renders "$t/r.dot"
	# blocks: h0 | a1 b1 s1 | h1 | a2 ... : from the end, (a s | h) x4,
	# drawn as conv+relu and add+relu
	grep -q 'label="x4: %h1 ... %h4' "$t/r.dot"
	grep -q 'label="%b1\\nnn.conv2d\\nnn.relu\\n' "$t/r.dot"
	grep -q 'label="%h1\\nadd\\nnn.relu\\n' "$t/r.dot"
	# %x, %w, %h0, the two, the result; h0 -> b1, h0 -> h1 (the residual
	# edge), w -> b1, b1 -> h1, h1 (for h4) -> result
	assert_equal "$(count nodes "$t/r.dot")" 6
	assert_equal "$(count edges "$t/r.dot")" 6
}

@test "dot: --summary lists a chain's operators, counts runs of one, cuts long lists" {
	t=$BATS_TEST_TMPDIR
	{
		echo 'fn @main(%x: f32[1,4,1024,1024], %w1: f32[4,4,1,1], %w2: f32[4,4,3,3]) {'
		echo '  %a = nn.conv2d(%x, %w1) {kernel_size=[1,1]}'
		echo '  %b = nn.conv2d(%a, %w2) {kernel_size=[3,3], padding=[1,1,1,1]}'
		echo '  %r0 = nn.relu(%b)'
		for i in 1 2 3 4 5; do
			echo "  %p$i = nn.max_pool2d(%r$((i - 1))) {pool_size=[2,2], strides=[2,2]}"
			echo "  %r$i = nn.relu(%p$i)"
		done
		echo '  return %r5'
		echo '}'
	} > "$t/c.ir"
	ir-dot --summary "$t/c.ir" > "$t/c.dot"
	renders "$t/c.dot"
	run -0 labels_inside "$t/c.dot"
	# one chain: conv2d x2, relu, then 5 x (max_pool2d, relu): 12 lines,
	# the first 5, how many are left out, the last 2
	assert_equal "$(count nodes "$t/c.dot")" 5
	grep -q 'label="%r5\\nnn.conv2d x2\\nnn.relu\\nnn.max_pool2d\\nnn.relu\\nnn.max_pool2d\\n(5 more)\\nnn.max_pool2d\\nnn.relu\\nf32\[1,4,32,32\]"' "$t/c.dot"
}

@test "dot: --summary keeps devices, copies and ifs; refuses --prims" {
	t=$BATS_TEST_TMPDIR
	ir-plan-devices "$demo" | ir-dot --summary > "$t/p.dot"
	renders "$t/p.dot"
	assert_equal "$(clusters "$t/p.dot" | tr '\n' ' ')" 'cluster_f0 cluster_f0_d0 cluster_f0_d1 '
	# the copies as in full; conv and bias_add one node on the gpu
	assert_equal "$(grep -c 'device_copy.*bytes.*penwidth=3' "$t/p.dot")" 2
	sed -n '/cluster_f0_d1/,/^    }/p' "$t/p.dot" | grep -q 'label="%bias\\nnn.conv2d\\nnn.bias_add\\n'
	# the lowered one: a prim per call, named
	ir-plan-devices "$demo" | ir-lower | ir-plan-devices | ir-dot --summary > "$t/l.dot"
	renders "$t/l.dot"
	grep -q 'label="%bias\\n@fused_nn_conv2d_nn_bias_add\\n' "$t/l.dot"
	# an if is one node, its arms counted; an edge from what they use
	cat > "$t/m.ir" <<'IR'
fn @main(%c: bool[], %x: f32[4]) -> f32[4] {
  %r = if %c {
    %0 = nn.relu(%x)
    %1 = nn.relu(%0)
    yield %1
  } else {
    yield %x
  }
  return %r
}
IR
	ir-dot --summary "$t/m.ir" > "$t/m.dot"
	renders "$t/m.dot"
	grep -q 'label="%r = if\\nbindings in its arms: 2\\nf32\[4\]", shape=diamond' "$t/m.dot"
	assert_equal "$(count nodes "$t/m.dot")" 4
	assert_equal "$(count edges "$t/m.dot")" 3
	run -2 ir-dot --summary --prims "$t/m.ir"
	assert_line -n 0 'ir-dot: --summary draws no prims: give --prims or --summary'
}
