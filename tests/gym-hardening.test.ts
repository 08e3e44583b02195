// tests/gym-hardening: the gym server for real on 127.0.0.1 against what outside trainers and hostile clients send —
// Search-R1-shaped /retrieve batches (0, 1, 2,560, 10,000 queries, over-long and non-string items), every
// prototype key as every name field of every endpoint (zero 5xx, zero leaked env slots), and `gym serve` flag checks.
import { spawnSync } from 'node:child_process'
import { openFixtureWorld } from './fixtures/gym-fixture-world'
import { resolveGymOptions } from '../gym/make-env'
import { startGymServer, type RunningGymServer } from '../gym/server'
import { PROTOTYPE_KEYS } from '../infra/lookup'

type J = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(s: RunningGymServer, method: string, path: string, body?: unknown) {
  const res = await fetch(s.url + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, json: JSON.parse(text) as J, headers: res.headers }
}

// Search-R1's queries look like this: a question-ish line per active sample.
const searchR1Queries = (n: number) => Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 'Velmora' : i % 3 === 1 ? 'Harrow House headquarters' : `who wrote book ${i}`))

describe('/retrieve as Search-R1 calls it', () => {
  let s: RunningGymServer
  beforeAll(async () => {
    s = await startGymServer(openFixtureWorld())
  })
  afterAll(() => s.close())

  it.each([0, 1, 2560, 10_000])('a batch of %i queries answers one list per query', async (n) => {
    const r = await call(s, 'POST', '/retrieve', { queries: searchR1Queries(n), topk: 3, return_scores: true })
    expect(r.status).toBe(200)
    expect(r.json.result).toHaveLength(n)
    expect(r.json.notes).toBeUndefined()
    if (n > 0) expect(r.json.result[0][0].document.id).toBe('https://fixture.wiki/Velmora')
    if (n > 1) expect(r.json.result[n - 1].length).toBeGreaterThan(0)
  })

  it('an over-long query is cut and a non-string item answered [], the batch still answers, with notes', async () => {
    const long = 'Velmora ' + 'x'.repeat(5000)
    const r = await call(s, 'POST', '/retrieve', { queries: ['Harrow House', long, 42, null], topk: 2 })
    expect(r.status).toBe(200)
    expect(r.json.result).toHaveLength(4)
    expect(r.json.result[0][0].id).toBe('https://fixture.wiki/Harrow_House')
    expect(r.json.result[1][0].id).toBe('https://fixture.wiki/Velmora') // cut to 2,048 characters, still searched
    expect(r.json.result[2]).toEqual([])
    expect(r.json.result[3]).toEqual([])
    expect(r.json.notes.map((x: J) => x.index)).toEqual([1, 2, 3])
    expect(r.json.notes[0].note).toContain('cut from 5008 to 2048')
    expect(r.headers.get('x-searchgym-retrieve-notes')).toBe('3')
  })

  it('past --max-batch-queries the rest is answered [] with one note, never a 400', async () => {
    const small = await startGymServer(openFixtureWorld(), { maxBatchQueries: 2 })
    try {
      const r = await call(small, 'POST', '/retrieve', { queries: ['Velmora', 'Velmora', 'Velmora', 'Velmora'], topk: 1 })
      expect(r.status).toBe(200)
      expect(r.json.result.map((l: J[]) => l.length)).toEqual([1, 1, 0, 0])
      expect(r.json.notes).toEqual([{ index: 2, note: expect.stringContaining('queries 2..3 not searched') }])
    } finally {
      await small.close()
    }
  })
})

describe('prototype keys as names', () => {
  let s: RunningGymServer
  beforeAll(async () => {
    s = await startGymServer(openFixtureWorld(), { maxEnvs: 3 })
  })
  afterAll(() => s.close())

  it('every prototype key in every name field of every endpoint: only 2xx/4xx, no env slot taken', async () => {
    const statuses: { what: string; status: number }[] = []
    const hit = async (what: string, method: string, path: string, body?: unknown) => {
      const r = await call(s, method, path, body)
      statuses.push({ what, status: r.status })
      if (r.status === 201 && r.json.envId) await call(s, 'DELETE', `/v1/envs/${r.json.envId}`)
      return r
    }
    const open = await call(s, 'POST', '/v1/envs', { qaId: 'fx-1', options: { protocol: 'openai' } })
    expect(open.status).toBe(201)
    const envId = open.json.envId
    for (const k of PROTOTYPE_KEYS) {
      await hit(`qaId ${k}`, 'POST', '/v1/envs', { qaId: k })
      await hit(`split ${k}`, 'POST', '/v1/envs', { split: k, index: 0 })
      await hit(`protocol ${k}`, 'POST', '/v1/envs', { qaId: 'fx-1', options: { protocol: k } })
      await hit(`reward ${k}`, 'POST', '/v1/envs', { qaId: 'fx-1', options: { reward: k } })
      await hit(`reward ${k}+f1`, 'POST', '/v1/envs', { qaId: 'fx-1', options: { reward: `${k}+f1` } })
      await hit(`option key ${k}`, 'POST', '/v1/envs', `{"qaId":"fx-1","options":{"${k}":{"maxTurns":1}}}`)
      await hit(`budget key ${k}`, 'POST', '/v1/envs', `{"qaId":"fx-1","options":{"budgets":{"${k}":1}}}`)
      await hit(`fault key ${k}`, 'POST', '/v1/envs', `{"qaId":"fx-1","options":{"faults":{"${k}":1}}}`)
      await hit(`body key ${k}`, 'POST', '/v1/envs', `{"${k}":"fx-1"}`)
      await hit(`env id ${k}`, 'POST', `/v1/envs/${k}/step`, { action: 'x' })
      await hit(`close ${k}`, 'DELETE', `/v1/envs/${k}`)
      await hit(`tool name ${k}`, 'POST', `/v1/envs/${envId}/step`, {
        action: { text: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: k, arguments: { [k]: k } } }] },
      })
      await hit(`hermes tool name ${k}`, 'POST', `/v1/envs/${envId}/step`, { action: `<tool_call>{"name":"${k}","arguments":{"${k}":"x"}}</tool_call>` })
      await hit(`search ${k}`, 'POST', '/v1/search', { query: k })
      await hit(`search body key ${k}`, 'POST', '/v1/search', `{"query":"x","${k}":1}`)
      await hit(`access ${k}`, 'POST', '/v1/access', { url: k })
      await hit(`retrieve ${k}`, 'POST', '/retrieve', { queries: [k, `${k} Velmora`] })
      await hit(`retrieve body key ${k}`, 'POST', '/retrieve', `{"queries":[],"${k}":1}`)
      await hit(`qa split ${k}`, 'GET', `/v1/qa?split=${encodeURIComponent(k)}`)
      await hit(`qa ${k}=1`, 'GET', `/v1/qa?${encodeURIComponent(k)}=1`)
      await hit(`route ${k}`, 'GET', `/${encodeURIComponent(k)}`)
    }
    const serverErrors = statuses.filter((x) => x.status >= 500)
    expect(serverErrors).toEqual([])
    // A bad protocol or reward name is a 400 (validated before an env exists), never a 201 or 500.
    // An unknown option key (an own "__proto__" included) is a 400 too, never silently dropped.
    const named = ['protocol ', 'reward ', 'option key ', 'budget key ', 'fault key ', 'body key ', 'search body key ']
    for (const x of statuses.filter((x) => named.some((n) => x.what.startsWith(n)))) expect(x).toEqual({ ...x, status: 400 })
    // /retrieve is the outside engines' route: an unknown body key (a prototype key included) is accepted and noted in
    // x-searchgym-ignored-fields (engines add fields of their own), never a 500 and never merged into the request.
    for (const x of statuses.filter((x) => x.what.startsWith('retrieve body key '))) expect(x).toEqual({ ...x, status: 200 })
    await call(s, 'DELETE', `/v1/envs/${envId}`)
    expect((await call(s, 'GET', '/health')).json.envs).toBe(0)
    // All three slots are still free.
    const ids: string[] = []
    for (let i = 0; i < 3; i++) {
      const r = await call(s, 'POST', '/v1/envs', { qaId: 'fx-1' })
      expect(r.status).toBe(201)
      ids.push(r.json.envId)
    }
    for (const id of ids) await call(s, 'DELETE', `/v1/envs/${id}`)
  })

  it('library and CLI option lookups refuse prototype keys with a clear error', () => {
    for (const k of PROTOTYPE_KEYS) {
      expect(() => resolveGymOptions({ reward: k })).toThrow(/unknown reward spec/)
      expect(() => resolveGymOptions({ protocol: k })).toThrow(/unknown protocol/)
    }
    expect(() => resolveGymOptions(JSON.parse('{"__proto__":{"topK":1}}'))).toThrow(/unknown config key/)
  })
})

describe('gym serve flags and keys', () => {
  const BIN = new URL('../bin/searchgym.mjs', import.meta.url).pathname
  it.each([
    [['--set', 'maxEnvs=0'], 'maxEnvs (--set) must be an integer in [1,'],
    [['--set', 'idleSeconds=-5'], 'idleSeconds (--set) must be a number in [1,'],
    [['--port', 'abc'], 'port (--port) must be an integer in [0, 65535], got NaN'],
    [['--set', 'maxBatchQueries=0'], 'maxBatchQueries (--set) must be an integer'],
    [['--workers', '0'], 'workers (--workers) must be an integer in [1, 256]'],
  ])('%j is a one-line error and a non-zero exit', (flags, message) => {
    const r = spawnSync(process.execPath, [BIN, 'gym', 'serve', 'worlds/not-opened-flags-come-first', ...flags], { encoding: 'utf8', timeout: 60_000 })
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain(message)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })
})
