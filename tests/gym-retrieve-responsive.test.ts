// tests/gym-retrieve-responsive: one huge /retrieve never stalls `gym serve` (a real child process on the shared tiny
// world, --workers 1 and 2). The 16,384 x topk 50 batch is refused with a clear 413 under the default bound; with the bound lifted it runs
// (searches on a worker thread, serialised a slice at a time) until its answer passes --max-response-bytes, a 413 —
// and meanwhile /health and another env's steps answer within 100 ms at p99. A batch inside both bounds is answered
// in full, streamed. Never a 500. With --retrieve-unit passage the same holds, and the threads' passages are the ones
// this process's own retriever ranks.
import { openGymWorld, passageRetriever } from '../gym'
import { passagesJson } from '../gym/passages'
import { startGymServer } from '../gym/server'
import { openFixtureWorld } from './fixtures/gym-fixture-world'
import { sharedTinyWorld } from './helpers/shared-world'
import { startGymServe, type GymServeProcess } from './helpers/gym-serve-process'

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]

test('the default bound refuses 16,384 x topk 50 with a 413 naming the bound, before any search', async () => {
  const s = await startGymServer(openFixtureWorld())
  try {
    const t0 = performance.now()
    const r = await post(`${s.url}/retrieve`, { queries: Array(16_384).fill('museum history city'), topk: 50 })
    expect(r.status).toBe(413)
    const e = ((await r.json()) as { error: { code: string; message: string } }).error
    expect(e.code).toBe('request.too_much_work')
    expect(e.message).toContain('16384 queries x topk 50 = 819200 hits; at most 65536')
    expect(performance.now() - t0).toBeLessThan(5000)
  } finally {
    await s.close()
  }
})

// One process, and two workers (there /health asks the other worker for its env count, and steps may be forwarded).
describe.each(['1', '2'])('gym serve --workers %s under a huge /retrieve', (workers) => {
  let g: GymServeProcess
  beforeAll(async () => {
    const w = await sharedTinyWorld()
    g = await startGymServe(w.dir, ['--workers', workers, '--max-retrieve-hits', '1000000', '--max-response-bytes', String(24 << 20), '--search-threads', '1'])
  }, 300_000)
  afterAll(() => g?.stop())

  it('16,384 x topk 50 ends in a clear 413 while /health and another env step within 100 ms p99', async () => {
    let health: number[] = []
    let steps: number[] = []
    let done = false
    // The same probes for 3 s with no batch in flight: what this machine's load alone costs them.
    const quiet = setTimeout(() => (done = true), 3000)
    await Promise.all([probeHealth(), probeHealth(), probeSteps(), probeSteps()])
    clearTimeout(quiet)
    const base = { health: p99(health), steps: p99(steps) }
    health = []
    steps = []
    done = false
    const big = post(`${g.url}/retrieve`, { queries: Array(16_384).fill('museum history city'), topk: 50 }).then(async (r) => {
      const body = (await r.json()) as { error?: { code: string; message: string } }
      done = true
      return { status: r.status, body }
    })
    async function probeHealth() {
      while (!done) {
        const t0 = performance.now()
        const r = await fetch(`${g.url}/health`)
        await r.json()
        if (!done) health.push(performance.now() - t0)
        expect(r.status).toBe(200)
      }
    }
    async function probeSteps() {
      let envId = ''
      while (!done) {
        if (!envId) envId = ((await (await post(`${g.url}/v1/envs`, { split: 'train', index: 0 })).json()) as { envId: string }).envId
        const t0 = performance.now()
        const r = await post(`${g.url}/v1/envs/${envId}/step`, { action: '<tool_call>{"name":"search","arguments":{"query":"museum history"}}</tool_call>' })
        const j = (await r.json()) as { terminated?: boolean; truncated?: boolean }
        if (!done) steps.push(performance.now() - t0)
        expect(r.status).toBe(200)
        if (j.terminated || j.truncated) envId = ''
      }
    }
    // Two probes of each kind back to back: enough samples that p99 is not simply the single worst one.
    const [res] = await Promise.all([big, probeHealth(), probeHealth(), probeSteps(), probeSteps()])
    expect(res.status).toBe(413)
    expect(res.body.error?.code).toBe('response.too_large')
    process.stdout.write(
      `16,384 x topk 50: ${health.length} /health p99 ${p99(health).toFixed(1)} ms (max ${Math.max(...health).toFixed(1)}), ${steps.length} steps p99 ${p99(steps).toFixed(1)} ms; ` +
        `with no batch in flight: /health p99 ${base.health.toFixed(1)} ms, steps ${base.steps.toFixed(1)} ms\n`,
    )
    expect(health.length).toBeGreaterThanOrEqual(20)
    expect(steps.length).toBeGreaterThanOrEqual(20)
    // 100 ms p99 on a machine whose load alone keeps the probes under it; on a shared, overloaded machine the bound is
    // what its load costs them without the batch, x 3 (a server that waited for the batch would answer in seconds).
    expect(p99(health)).toBeLessThan(Math.max(100, 3 * base.health))
    expect(p99(steps)).toBeLessThan(Math.max(100, 3 * base.steps))
  }, 300_000)

  it('a batch inside both bounds is answered in full, in order (streamed)', async () => {
    const qs = Array.from({ length: 4096 }, (_, i) => (i % 7 === 0 ? '' : `museum history city ${i % 13}`))
    const r = await post(`${g.url}/retrieve`, { queries: qs, topk: 3, return_scores: true })
    expect(r.status).toBe(200)
    const j = (await r.json()) as { result: { document: { contents: string }; score: number }[][] }
    expect(j.result).toHaveLength(4096)
    expect(j.result[0]).toEqual([])
    expect(j.result[1]).toHaveLength(3)
    expect(j.result[1][0].document.contents.length).toBeGreaterThan(20)
  }, 120_000)
})

// Passages take the same road (they were one Promise.all on the event loop: /health waited for the whole batch).
describe('gym serve --workers 2 --retrieve-unit passage under a big /retrieve', () => {
  let g: GymServeProcess
  beforeAll(async () => {
    const w = await sharedTinyWorld()
    g = await startGymServe(w.dir, ['--workers', '2', '--retrieve-unit', 'passage'])
  }, 300_000)
  afterAll(() => g?.stop())

  it('4,096 x topk 4 passages, answered in full and as this process ranks them, while /health answers within 100 ms p99', async () => {
    const w = await sharedTinyWorld()
    const world = await openGymWorld(w.dir)
    const questions = world.listQa().map((q) => q.question)
    const qs = Array.from({ length: 4096 }, (_, i) => `${questions[i % questions.length]} ${i}`)
    const probe = async (until: () => boolean, out: number[]) => {
      while (!until()) {
        const t0 = performance.now()
        const r = await fetch(`${g.url}/health`)
        await r.json()
        if (!until()) out.push(performance.now() - t0)
        expect(r.status).toBe(200)
      }
    }
    const quiet: number[] = []
    const t0 = performance.now()
    await Promise.all([probe(() => performance.now() - t0 > 2000, quiet), probe(() => performance.now() - t0 > 2000, quiet)])
    let done = false
    const during: number[] = []
    const big = post(`${g.url}/retrieve`, { queries: qs, topk: 4, return_scores: true }).then(async (r) => {
      const j = (await r.json()) as { result: unknown[][] }
      done = true
      return { status: r.status, j }
    })
    const [res] = await Promise.all([big, probe(() => done, during), probe(() => done, during)])
    expect(res.status).toBe(200)
    expect(res.j.result).toHaveLength(4096)
    // The worker threads rank passages as this process's own retriever does.
    const mine = passageRetriever(world)
    for (const i of [0, 1, 2047, 4095]) expect(res.j.result[i]).toEqual(JSON.parse(passagesJson(await mine(qs[i], 4), true)))
    await world.close()
    process.stdout.write(`passages 4,096 x topk 4: ${during.length} /health p99 ${p99(during).toFixed(1)} ms (max ${Math.max(...during).toFixed(1)}); quiet p99 ${p99(quiet).toFixed(1)} ms\n`)
    expect(during.length).toBeGreaterThanOrEqual(20)
    expect(p99(during)).toBeLessThan(Math.max(100, 3 * p99(quiet)))
  }, 300_000)
})
