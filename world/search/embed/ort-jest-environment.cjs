// world/search/embed/ort-jest-environment: jest's node environment with the host's typed-array constructors, for test
// files that run onnxruntime-node in-process (`@jest-environment ./world/search/embed/ort-jest-environment.cjs`).
// onnxruntime-common checks `data instanceof Float32Array` on tensors the native binding made in the host realm;
// jest's sandbox has its own Float32Array, so without this every inference fails with "must be type of Float32Array".
const { TestEnvironment } = require('jest-environment-node')

class OrtEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context)
    for (const name of ['Float32Array', 'Float64Array', 'Int8Array', 'Int16Array', 'Int32Array', 'Uint16Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array', 'Uint8ClampedArray']) {
      this.global[name] = globalThis[name]
    }
  }
}

module.exports = OrtEnvironment
