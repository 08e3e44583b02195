// infra/engine/ts-backend.test: the ts reference backend runs the shared backend contract.
import { runBackendContract } from './backend-contract'
import { createTsBackend, matmulNT } from './ts-backend'

runBackendContract({ name: 'ts', make: createTsBackend })

test('blocked matmulNT handles row counts that are not a multiple of the block', () => {
  const N = 7, K = 3, M = 70
  const x = Float32Array.from({ length: N * K }, (_, i) => (i % 5) - 2)
  const w = Float32Array.from({ length: M * K }, (_, i) => (i % 7) - 3)
  const out = matmulNT(x, w, N, K, M)
  for (let n = 0; n < N; n++)
    for (let m = 0; m < M; m++) {
      let s = 0
      for (let k = 0; k < K; k++) s += x[n * K + k] * w[m * K + k]
      expect(out[n * M + m]).toBe(s)
    }
})
