// infra/worker-pool.test: the pool over real worker threads (tests/fixtures/pool-worker) — handshake, coded errors,
// progress, in-order posts, a crashed worker, back-pressure, close.
import { workerEntry } from './worker-bundle'
import { WorkerPool, type WorkerPoolOptions } from './worker-pool'
import type { FixtureReq } from '../tests/fixtures/pool-worker/main'

class FixtureError extends Error {
  constructor(
    message: string,
    readonly phase: string,
    readonly code?: string,
  ) {
    super(message)
  }
}

const entry = () => workerEntry(new URL('../tests/fixtures/pool-worker/main.ts', import.meta.url), new URL('../tests/fixtures/pool-worker/entry.mjs', import.meta.url))

async function pool(size: number, more: Partial<WorkerPoolOptions<{ failStart?: string; startMs?: number; serial?: boolean }>> = {}) {
  return WorkerPool.start<FixtureReq, unknown, number, { failStart?: string; startMs?: number; serial?: boolean }>({
    name: 'fixture worker',
    error: (m, phase, code) => new FixtureError(m, phase, code),
    entry: await entry(),
    size,
    ...more,
  })
}

describe('WorkerPool', () => {
  it('waits for every handshake, then answers calls in the worker', async () => {
    const p = await pool(2, { data: () => ({ startMs: 50 }) })
    try {
      expect(p.size).toBe(2)
      expect(p.live).toBe(2)
      const ids = [p.readyValue(0), p.readyValue(1)].map((v) => (v as { threadId: number }).threadId)
      expect(new Set(ids).size).toBe(2)
      expect(await p.call({ op: 'echo', v: { a: [1, 2] } })).toEqual({ a: [1, 2] })
      expect(await p.call({ op: 'whoami' }, { worker: 1 })).toBe(ids[1])
    } finally {
      await p.close()
    }
  })

  it('a worker that fails its start fails the pool with its own message and code, and stops the others', async () => {
    const err = (await pool(3, { data: (i) => (i === 1 ? { failStart: 'cannot open the world' } : {}) }).catch((e: unknown) => e)) as FixtureError
    expect(err).toBeInstanceOf(FixtureError)
    expect([err.message, err.phase, err.code]).toEqual(['cannot open the world', 'start', 'fixture.start'])
  })

  it("a call's error keeps the worker's message and code; the worker keeps serving", async () => {
    const p = await pool(1)
    try {
      const e = (await p.call({ op: 'throw', message: 'no such page', code: 'search.page' }).catch((x: unknown) => x)) as FixtureError
      expect([e.message, e.phase, e.code]).toEqual(['no such page', 'call', 'search.page'])
      expect(await p.call({ op: 'echo', v: 7 })).toBe(7)
    } finally {
      await p.close()
    }
  })

  it('progress reaches the caller before the result; posts are handled in order', async () => {
    const p = await pool(1)
    try {
      const seen: number[] = []
      expect(await p.call({ op: 'progress', n: 4 }, { onProgress: (n) => seen.push(n) })).toBe(4)
      expect(seen).toEqual([1, 2, 3, 4])
      for (const v of [1, 2, 3]) p.post({ op: 'add', v })
      expect(await p.call({ op: 'sum' })).toBe(123)
    } finally {
      await p.close()
    }
  })

  it('a crashed worker fails its pending calls with an exit error; later calls go to the live one', async () => {
    const p = await pool(2)
    try {
      const slow = p.call({ op: 'sleep', ms: 2000 }, { worker: 0 })
      const crash = p.call({ op: 'crash', code: 3 }, { worker: 0 })
      const [a, b] = (await Promise.all([slow.catch((e: unknown) => e), crash.catch((e: unknown) => e)])) as FixtureError[]
      for (const e of [a, b]) expect([e.message, e.phase]).toEqual(['a fixture worker exited (code 3)', 'exit'])
      expect(p.live).toBe(1)
      const other = p.readyValue(1) as { threadId: number }
      for (let i = 0; i < 3; i++) expect(await p.call({ op: 'whoami' })).toBe(other.threadId)
      const named = (await p.call({ op: 'whoami' }, { worker: 0 }).catch((e: unknown) => e)) as FixtureError
      expect(named.message).toBe('a fixture worker exited (code 3)')
    } finally {
      await p.close()
    }
  })

  it('with every worker dead, a call fails at once', async () => {
    const p = await pool(1)
    try {
      await p.call({ op: 'crash', code: 5 }).catch(() => undefined)
      const e = (await p.call({ op: 'echo', v: 1 }).catch((x: unknown) => x)) as FixtureError
      expect(e.message).toBe('a fixture worker exited (code 5)')
    } finally {
      await p.close()
    }
  })

  it('back-pressure: beyond maxInFlight per worker, calls wait in the queue and are sent as slots free', async () => {
    const p = await pool(2, { maxInFlight: 1 })
    try {
      const calls = Array.from({ length: 6 }, () => p.call({ op: 'sleep', ms: 100 }))
      expect(p.inFlight()).toEqual([1, 1])
      expect(p.queued).toBe(4)
      const t0 = Date.now()
      const threads = await Promise.all(calls)
      // Six 100 ms calls two at a time: three rounds.
      expect(Date.now() - t0).toBeGreaterThanOrEqual(250)
      expect(new Set(threads).size).toBe(2)
      expect(p.queued).toBe(0)
      expect(p.inFlight()).toEqual([0, 0])
    } finally {
      await p.close()
    }
  })

  it('without a cap, calls go to the least busy worker', async () => {
    const p = await pool(2)
    try {
      const calls = Array.from({ length: 4 }, () => p.call({ op: 'sleep', ms: 50 }))
      expect(p.inFlight()).toEqual([2, 2])
      await Promise.all(calls)
    } finally {
      await p.close()
    }
  })

  it('close refuses queued and later calls', async () => {
    const p = await pool(1, { maxInFlight: 1 })
    const first = p.call({ op: 'sleep', ms: 500 }).catch((e: unknown) => e)
    const queued = p.call({ op: 'echo', v: 1 }).catch((e: unknown) => e)
    await p.close()
    expect(((await queued) as Error).message).toBe('the fixture worker pool is closed')
    expect(((await first) as Error).message).toMatch(/exited/)
    expect(((await p.call({ op: 'echo', v: 2 }).catch((e: unknown) => e)) as Error).message).toBe('the fixture worker pool is closed')
    expect(() => p.post({ op: 'add', v: 1 })).toThrow('the fixture worker pool is closed')
  })

  it('a serial worker runs one call at a time, in order; a plain one runs them together', async () => {
    for (const serial of [true, false]) {
      const p = await pool(1, { data: () => ({ serial }) })
      try {
        const order: number[] = []
        const t0 = Date.now()
        await Promise.all([p.call({ op: 'sleep', ms: 150 }).then(() => order.push(1)), p.call({ op: 'echo', v: 2 }).then(() => order.push(2))])
        const ms = Date.now() - t0
        expect(order).toEqual(serial ? [1, 2] : [2, 1])
        if (serial) expect(ms).toBeGreaterThanOrEqual(140)
      } finally {
        await p.close()
      }
    }
  })

  it('a post that fails ends its worker: the next call says why', async () => {
    const p = await pool(1)
    try {
      p.post({ op: 'postFail' })
      const e = (await p.call({ op: 'sleep', ms: 1000 }).catch((x: unknown) => x)) as FixtureError
      expect([e.message, e.phase]).toEqual(['a fixture worker failed: a post failed', 'exit'])
      expect(p.live).toBe(0)
    } finally {
      await p.close()
    }
  })

  it('a bad size or worker index is refused in one line', async () => {
    await expect(pool(0)).rejects.toThrow('fixture worker pool: size must be a positive integer, got 0')
    const p = await pool(1)
    try {
      await expect(p.call({ op: 'echo', v: 1 }, { worker: 2 })).rejects.toThrow('fixture worker pool: no worker 2 (it has 1)')
    } finally {
      await p.close()
    }
  })
})
