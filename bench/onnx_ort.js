// ONNX Runtime's CPU engine (onnxruntime-node) on one model, for bench/onnx.py: all graph
// optimizations on, THREADS intra-op threads, one inter-op thread, random input of SHAPE.
// Prints the microseconds per call of each repetition.
// Usage: node onnx_ort.js ORT_PACKAGE_DIR MODEL.onnx SHAPE(2,3,64,64) THREADS REPS ITERS
const [pkg, model, shape, threads, reps, iters] = process.argv.slice(2);
const ort = require(pkg);

async function main() {
  const session = await ort.InferenceSession.create(model, {
    graphOptimizationLevel: "all", executionMode: "sequential",
    intraOpNumThreads: Number(threads), interOpNumThreads: 1,
  });
  const dims = shape.split(",").map(Number);
  const data = Float32Array.from({length: dims.reduce((a, b) => a * b)}, () => Math.random() * 2 - 1);
  const feeds = {[session.inputNames[0]]: new ort.Tensor("float32", data, dims)};
  for (let i = 0; i < 3; i++) await session.run(feeds);
  for (let r = 0; r < Number(reps); r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < Number(iters); i++) await session.run(feeds);
    console.log(Number(process.hrtime.bigint() - t0) / 1e3 / Number(iters));
  }
}
main();
