// gym/cli/serve-workers tests: the restart back-off — 0.5 s after a worker that had stayed up, doubling per quick exit
// in a row, capped at 30 s (a worker that keeps dying at start never restarts in a loop).
import { RESTART_POLICY, restartDelayMs } from './serve-workers'

test('restart back-off: 0.5 s, doubling per quick exit in a row, capped at 30 s', () => {
  expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map((f) => restartDelayMs(f))).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000])
  expect(restartDelayMs(0)).toBe(500)
  expect(restartDelayMs(3, { ...RESTART_POLICY, firstMs: 100, maxMs: 250 })).toBe(250)
})
