// tests/gym-peer-silence: when a `gym serve` worker counts a peer as not responding (gym/cluster-sessions). The silence
// is counted in the asking worker's own live time, at most two ping intervals per tick, so a stall of the asker (its
// event loop blocked, or the whole box starved) cannot make a peer whose answer waits unread in the socket look silent
// — the false 503s a loaded paper-world run saw at 3 s of wall clock — while a peer that truly answers nothing is
// named once its silence has counted stallMs. Real Unix sockets in one process; short deadlines.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import type { Server } from 'node:net'
import { join } from 'node:path'
import { openFixtureWorld } from './fixtures/gym-fixture-world'
import { ClusterEnvSessions } from '../gym/cluster-sessions'
import { LocalEnvSessions } from '../gym/env-sessions'
import { DEFAULT_GYM_OPTIONS } from '../gym/make-env'
import { listenPeers } from '../gym/worker-peers'

const DEADLINES = { createMs: 500, stepMs: 2_000, stallMs: 600, pingEveryMs: 100 }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const busy = (ms: number) => {
  const end = Date.now() + ms
  while (Date.now() < end); // this process's event loop blocked: no tick, no socket read
}

let dir: string
let srv: Server | undefined
let cs: ClusterEnvSessions | undefined
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sg-silence-'))))
afterEach(() => {
  cs?.dispose()
  srv?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Worker 0 of 2 (the one under test) and worker 1 as a peer socket answering with `answer`. */
async function pair(answer: () => Promise<string>): Promise<ClusterEnvSessions> {
  const w = openFixtureWorld()
  srv = await listenPeers(join(dir, 'w1.sock'), answer, () => ({ status: 500, code: 'x', message: 'x', param: null }))
  const c = new ClusterEnvSessions(w, new LocalEnvSessions(w, DEFAULT_GYM_OPTIONS, 4, 60_000, 'env_w0_'), { index: 0, count: 2, socketPath: (i) => join(dir, `w${i}.sock`) }, DEADLINES)
  c.setWorkers([
    { index: 0, pid: process.pid, up: true, restarts: 0 },
    { index: 1, pid: 4242, up: true, restarts: 0 },
  ])
  return c
}

const responding = async (c: ClusterEnvSessions) => (await c.health()).workers.list[1].responding

test('a stall of the asking process is not the peer’s silence', async () => {
  cs = await pair(async () => JSON.stringify({ pid: 4242, envs: 0, reaped: 0 }))
  await sleep(300) // pings go out and are answered
  expect(await responding(cs)).toBe(true)
  // A call is sent, then this process stalls for 5 × stallMs before it can read the answer: wall-clock silence 3 s.
  const late = cs.callLayerOp(1, { op: 'ping' }).catch(() => undefined)
  busy(3_000)
  const h = cs.health() // judged before any tick or socket read of this process
  expect((await h).workers.list[1].responding).toBe(true)
  await late
  await sleep(250) // the ticks after the stall credit at most 2 × pingEveryMs
  expect(await responding(cs)).toBe(true)
}, 15_000)

test('a peer that answers nothing is named once its silence has counted stallMs of live time', async () => {
  cs = await pair(() => new Promise<string>(() => {})) // never answers (a stopped or hung worker)
  await sleep(250)
  expect(await responding(cs)).toBe(true) // silent, but not for stallMs yet
  const t0 = Date.now()
  while ((await responding(cs)) && Date.now() - t0 < 5_000) await sleep(50)
  const h = await cs.health()
  expect(h.workers.list[1]).toMatchObject({ alive: true, responding: false })
  expect(Date.now() - t0).toBeGreaterThanOrEqual(DEADLINES.stallMs - 300)
  expect(Date.parse(h.workers.list[1].silentSince!)).toBeLessThan(Date.now() - DEADLINES.stallMs + 100)
  // Its envs fail at once, not after the step deadline.
  const t1 = Date.now()
  await expect(cs.step('env_w1_x', '<answer>a</answer>')).rejects.toMatchObject({ code: 'env.worker_unresponsive' })
  expect(Date.now() - t1).toBeLessThan(200)
}, 15_000)
