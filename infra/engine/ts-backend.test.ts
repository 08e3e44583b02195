// infra/engine/ts-backend.test: the ts reference backend runs the shared backend contract.
import { runBackendContract } from './backend-contract'
import { createTsBackend, matmulNNAcc, matmulNT } from './ts-backend'

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

test('blocked matmulNNAcc accumulates exactly like the plain triple loop (odd sizes)', () => {
  const N = 7, M = 70, K = 5
  const a = Float32Array.from({ length: N * M }, (_, i) => (i % 9) - 4)
  const w = Float32Array.from({ length: M * K }, (_, i) => (i % 7) - 3)
  const out = matmulNNAcc(a, w, N, M, K, new Float32Array(N * K).fill(1))
  for (let n = 0; n < N; n++)
    for (let k = 0; k < K; k++) {
      let s = 1
      for (let m = 0; m < M; m++) s += a[n * M + m] * w[m * K + k]
      expect(out[n * K + k]).toBe(s)
    }
})
