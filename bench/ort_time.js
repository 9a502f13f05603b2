// bench/ort_time.js MODEL.onnx SIZE RUNS: the median wall time, in ms, of
// RUNS inferences, and the process's CPU time per inference over them (after one warm-up) of MODEL by ONNX Runtime's CPU
// provider on one thread (intraOpNumThreads 1, interOpNumThreads 1,
// sequential execution), for a 1x3xSIZExSIZE float input with values
// from a fixed sequence.  Needs onnxruntime-node, found through NODE_PATH
// (bench/models_cpu.sh installs it with npm).
'use strict';
const ort = require('onnxruntime-node');

async function main(argv) {
	if (argv.length !== 5) {
		process.stderr.write('usage: node ort_time.js MODEL.onnx SIZE RUNS\n');
		process.exit(2);
	}
	const size = Number(argv[3]), runs = Number(argv[4]);
	const session = await ort.InferenceSession.create(argv[2], {
		intraOpNumThreads: 1, interOpNumThreads: 1,
		executionMode: 'sequential', graphOptimizationLevel: 'all',
	});
	const data = new Float32Array(3 * size * size);
	let seed = 1;
	for (let i = 0; i < data.length; i++) {
		seed = (seed * 1103515245 + 12345) % 2147483648;
		data[i] = seed / 2147483648 - 0.5;
	}
	const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, [1, 3, size, size]) };
	await session.run(feeds);
	const times = [];
	const cpu0 = process.cpuUsage();
	for (let i = 0; i < runs; i++) {
		const t = process.hrtime.bigint();
		await session.run(feeds);
		times.push(Number(process.hrtime.bigint() - t) / 1e6);
	}
	const cpu = process.cpuUsage(cpu0);
	times.sort((a, b) => a - b);
	console.log(times[Math.floor(times.length / 2)].toFixed(2),
		((cpu.user + cpu.system) / runs / 1000).toFixed(2));
}

main(process.argv).catch((e) => { process.stderr.write(String(e) + '\n'); process.exit(1); });
