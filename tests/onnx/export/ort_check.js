// Runs each WORK/NAME.onnx on WORK/NAME.in0.npy with ONNX Runtime (1 intra-op thread, every graph
// optimization) and compares its output with WORK/NAME.out0.npy, Weft's (1e-5 relative).
//   node ort_check.js ORT_MODULE_DIR WORK NAME...
const path = require('path');
const fs = require('fs');
const ort = require(path.join(process.argv[2], 'onnxruntime-node'));
const work = process.argv[3];

function readNpy(file) {
  const b = fs.readFileSync(file);
  const headerLen = b[6] === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = b[6] === 1 ? 10 : 12;
  const header = b.toString('latin1', start, start + headerLen);
  const descr = /'descr': *'([^']*)'/.exec(header)[1];
  const shape = /'shape': *\(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const data = b.subarray(start + headerLen);
  if (descr !== '<f4') throw new Error(file + ': expected float32, got ' + descr);
  return new ort.Tensor('float32', new Float32Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length)), shape);
}

(async () => {
  let bad = 0;
  for (const name of process.argv.slice(4)) {
    const session = await ort.InferenceSession.create(path.join(work, name + '.onnx'),
                                                      {intraOpNumThreads: 1, graphOptimizationLevel: 'all'});
    const want = readNpy(path.join(work, name + '.out0.npy'));
    const out = await session.run({[session.inputNames[0]]: readNpy(path.join(work, name + '.in0.npy'))});
    const got = out[session.outputNames[0]];
    let worst = 0;
    for (let i = 0; i < want.data.length; ++i)
      worst = Math.max(worst, Math.abs(got.data[i] - want.data[i]) / (1e-6 + Math.abs(want.data[i])));
    const ok = got.dims.join(',') === want.dims.join(',') && worst <= 1e-5;
    console.log(`${name}: ONNX Runtime ${ok ? 'agrees' : 'DIFFERS'} (largest relative difference ${worst.toExponential(2)})`);
    if (!ok) bad += 1;
  }
  process.exit(bad ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
