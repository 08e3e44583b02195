// tests/gym-server: the gym HTTP server for real on 127.0.0.1 (free port) with fetch — episodes, stateless tools,
// Search-R1's /retrieve request shape, bearer token, limits (body, query, open envs), idle expiry, JSON errors.
import { FIXTURE_DOCS, openFixtureWorld } from './fixtures/gym-fixture-world'
import { startGymServer, type RunningGymServer } from '../gym/server'

type J = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(s: RunningGymServer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(s.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, json: JSON.parse(text) as J }
}

describe('gym server', () => {
  let s: RunningGymServer
  beforeAll(async () => {
    s = await startGymServer(openFixtureWorld(), { maxEnvs: 8, maxBodyBytes: 64 * 1024, maxQueryChars: 300 })
  })
  afterAll(() => s.close())

  it('health', async () => {
    const r = await call(s, 'GET', '/health')
    expect(r).toEqual({ status: 200, json: { status: 'ok', world: 'fixture', qa: 4, envs: 0, reaped: 0, pid: process.pid } })
  })

  it('runs a whole episode: create by QA id, search, access, answer, close', async () => {
    const c = await call(s, 'POST', '/v1/envs', { qaId: 'fx-2', options: { reward: 'em+format' } })
    expect(c.status).toBe(201)
    expect(c.json.observation.map((m: J) => m.role)).toEqual(['system', 'user'])
    expect(c.json.tools.map((t: J) => t.function.name)).toEqual(['search', 'access'])
    const question = 'In which city is the headquarters of the publisher of the novel written by Marie Alder?'
    expect(c.json.qa).toEqual({ id: 'fx-2', type: 'simple', hops: 3, split: 'train', question })
    expect(c.json.observation[1].content).toContain(question) // the text the user message asks
    const id = c.json.envId
    const st = (action: unknown) => call(s, 'POST', `/v1/envs/${id}/step`, { action })
    const r1 = await st('<tool_call>{"name":"search","arguments":{"query":"Harrow House headquarters"}}</tool_call>')
    expect(r1.status).toBe(200)
    expect(r1.json.observation[0].content).toContain('https://fixture.wiki/Harrow_House')
    const r2 = await st({ text: '<tool_call>{"name":"access","arguments":{"url":"https://fixture.wiki/Harrow_House"}}</tool_call>', numTokens: 20 })
    expect(r2.json.observation[0].content).toContain('Its headquarters are in Brenlow.')
    const r3 = await st('<answer>Brenlow</answer>')
    expect(r3.json).toMatchObject({ terminated: true, truncated: false, stopReason: 'answer', reward: 1 })
    expect(r3.json.metrics['episode/searches']).toBe(1)
    const after = await st('<answer>Brenlow</answer>')
    expect(after).toMatchObject({ status: 200, json: { reward: 0, metrics: { after_done: 1 } } })
    const closed = await call(s, 'DELETE', `/v1/envs/${id}`)
    expect(closed.json).toMatchObject({ closed: true, stats: { turns: 3, searches: 1, accesses: 1 } })
    expect((await st('x')).status).toBe(404)
  })

  it('creates by split + index and reports QA that do not exist', async () => {
    const c = await call(s, 'POST', '/v1/envs', { split: 'bench', index: 1 })
    expect(c.json.qa.id).toBe('fx-4')
    await call(s, 'POST', `/v1/envs/${c.json.envId}/close`)
    expect((await call(s, 'POST', '/v1/envs', { split: 'bench', index: 2 })).json.error.code).toBe('qa.not_found')
    expect((await call(s, 'POST', '/v1/envs', { qaId: 'nope' })).status).toBe(404)
    expect((await call(s, 'POST', '/v1/envs', { split: 'dev', index: 0 })).status).toBe(400)
    expect((await call(s, 'POST', '/v1/envs', { qaId: 'fx-1', options: { topk: 3 } })).json.error.code).toBe('config.unknown_key')
  })

  it('lists QA metadata without answers', async () => {
    const r = await call(s, 'GET', '/v1/qa?split=train&limit=1')
    expect(r.json.total).toBe(2)
    expect(r.json.items).toEqual([{ id: 'fx-1', type: 'simple', hops: 1, split: 'train', question: 'Who wrote The Glass Orchard?' }])
    expect(JSON.stringify(r.json)).not.toContain('Marie Alder')
  })

  it('stateless search and access', async () => {
    const r = await call(s, 'POST', '/v1/search', { query: 'Velmora population', k: 2 })
    expect(r.json.results).toHaveLength(2)
    expect(r.json.results[0]).toMatchObject({ title: 'Velmora', url: 'https://fixture.wiki/Velmora' })
    const a = await call(s, 'POST', '/v1/access', { url: 'https://fixture.wiki/Velmora' })
    expect(a.json.page).toEqual(FIXTURE_DOCS[4])
    const nf = await call(s, 'POST', '/v1/access', { url: 'https://fixture.wiki/Atlantis' })
    expect(nf).toMatchObject({ status: 404, json: { error: { code: 'access.not_found' } } })
  })

  it("/retrieve answers Search-R1's request shape (with and without scores)", async () => {
    // exactly what Search-R1's generation.py sends
    const payload = { queries: ['Harrow House publisher', 'Velmora'], topk: 3, return_scores: true }
    const r = await call(s, 'POST', '/retrieve', payload)
    expect(r.status).toBe(200)
    expect(r.json.result).toHaveLength(2)
    const first = r.json.result[0][0]
    expect(typeof first.score).toBe('number')
    // Search-R1's _passages2string: title = first line, text = the rest
    const content: string = first.document.contents
    expect(content.split('\n')[0]).toBe('Harrow House')
    expect(content.split('\n').slice(1).join('\n')).toBe(FIXTURE_DOCS[2].text)
    expect(first.document.id).toBe('https://fixture.wiki/Harrow_House')
    const plain = await call(s, 'POST', '/retrieve', { queries: ['Velmora'], topk: 1, return_scores: false })
    // Without scores: ASearcher's flat items (contents and url read by its local-knowledge-base client).
    const velmora = 'https://fixture.wiki/Velmora'
    expect(plain.json.result[0][0]).toEqual({ id: velmora, contents: `Velmora\n${FIXTURE_DOCS[4].text}`, url: velmora, title: 'Velmora', text: FIXTURE_DOCS[4].text })
    expect((await call(s, 'POST', '/retrieve', { queries: 'Velmora' })).status).toBe(400)
    // Search-R1's rollout sends [] when no sample searched; its own servers answer {"result": []}.
    expect(await call(s, 'POST', '/retrieve', { queries: [] })).toEqual({ status: 200, json: { result: [] } })
  })

  it('limits: body size, query length, action size', async () => {
    const big = await call(s, 'POST', '/v1/search', JSON.stringify({ query: 'x'.repeat(70 * 1024) }))
    expect(big).toMatchObject({ status: 413, json: { error: { code: 'request.too_large' } } })
    const long = await call(s, 'POST', '/v1/search', { query: 'x'.repeat(301) })
    expect(long).toMatchObject({ status: 400, json: { error: { code: 'request.too_long' } } })
    // a chunked upload (no Content-Length) is counted while it streams
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024))
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(ctl) {
        if (sent++ < 8) ctl.enqueue(chunk)
        else ctl.close()
      },
    })
    const chunked = await fetch(`${s.url}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit)
    expect(chunked.status).toBe(413)
    expect(((await chunked.json()) as J).error.code).toBe('request.too_large')
    const small = new ReadableStream<Uint8Array>({
      start(ctl) {
        ctl.enqueue(new TextEncoder().encode('{"query": "Velmora"}'))
        ctl.close()
      },
    })
    const ok = await fetch(`${s.url}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: small, duplex: 'half' } as RequestInit)
    expect(ok.status).toBe(200)
    const k = await call(s, 'POST', '/v1/search', { query: 'x', k: 1000 })
    expect(k.json.error.code).toBe('request.bad_field')
  })

  it('bad input is a 4xx JSON error with a code', async () => {
    expect((await call(s, 'POST', '/v1/search', '{not json')).json.error.code).toBe('request.bad_json')
    expect((await call(s, 'POST', '/v1/search', '[1]')).json.error.code).toBe('request.bad_body')
    expect((await call(s, 'POST', '/v1/search', { query: 'x', extra: 1 })).json.error.code).toBe('request.unknown_field')
    expect((await call(s, 'POST', '/v1/search', {})).json.error.code).toBe('request.missing_field')
    expect((await call(s, 'GET', '/v2/nothing')).json.error.code).toBe('route.not_found')
    expect((await call(s, 'POST', '/v1/envs/env_x/step', { action: 5 })).status).toBe(400)
    expect((await call(s, 'POST', '/v1/envs/env_x/step', { action: 'x' })).json.error.code).toBe('env.not_found')
  })

  it('caps open envs (429) and frees slots on close', async () => {
    const ids: string[] = []
    for (;;) {
      const r = await call(s, 'POST', '/v1/envs', { qaId: 'fx-1' })
      if (r.status !== 201) {
        expect(r).toMatchObject({ status: 429, json: { error: { code: 'env.limit' } } })
        break
      }
      ids.push(r.json.envId)
    }
    expect(s.server.registry.size).toBe(8)
    for (const id of ids) await call(s, 'DELETE', `/v1/envs/${id}`)
    expect(s.server.registry.size).toBe(0)
  })

  it('one step at a time per env (409 while stepping)', async () => {
    const c = await call(s, 'POST', '/v1/envs', { qaId: 'fx-1', options: { faults: { latencyRate: 1, latencyMs: 150 } } })
    const step = () => call(s, 'POST', `/v1/envs/${c.json.envId}/step`, { action: '<tool_call>{"name":"search","arguments":{"query":"x"}}</tool_call>' })
    const [a, b] = await Promise.all([step(), step()])
    expect([a.status, b.status].sort()).toEqual([200, 409])
    await call(s, 'DELETE', `/v1/envs/${c.json.envId}`)
  })

  it('an env created with idleSeconds is reaped at that expiry (the server keeps 10 min); /health counts it', async () => {
    expect((await call(s, 'POST', '/v1/envs', { qaId: 'fx-1', idleSeconds: 0.5 })).json.error.code).toBe('request.bad_field')
    const before = (await call(s, 'GET', '/health')).json
    const c = await call(s, 'POST', '/v1/envs', { qaId: 'fx-1', idleSeconds: 1 })
    expect(c.status).toBe(201)
    const kept = await call(s, 'POST', '/v1/envs', { qaId: 'fx-1' })
    await new Promise((r) => setTimeout(r, 1700))
    expect(await call(s, 'POST', `/v1/envs/${c.json.envId}/step`, { action: '<answer>x</answer>' })).toMatchObject({ status: 404, json: { error: { code: 'env.expired', message: expect.stringContaining('1000 ms idle') } } })
    expect((await call(s, 'GET', '/health')).json).toMatchObject({ envs: before.envs + 1, reaped: before.reaped + 1 })
    expect((await call(s, 'DELETE', `/v1/envs/${kept.json.envId}`)).status).toBe(200)
  })
})

describe('gym server auth and expiry', () => {
  let s: RunningGymServer
  beforeAll(async () => {
    s = await startGymServer(openFixtureWorld(), { token: 's3cret', envIdleMs: 150 })
  })
  afterAll(() => s.close())

  it('requires the bearer token everywhere but /health, which without it says only that the server is up', async () => {
    const open = await call(s, 'GET', '/health')
    expect(open).toMatchObject({ status: 200, json: { status: 'up' } })
    expect(Object.keys(open.json)).toEqual(['status'])
    expect((await call(s, 'GET', '/health', undefined, { authorization: 'Bearer wrong' })).json).toEqual({ status: 'up' })
    expect((await call(s, 'GET', '/health', undefined, { authorization: 'Bearer s3cret' })).json).toMatchObject({ status: 'ok', world: 'fixture', envs: 0 })
    expect((await call(s, 'GET', '/t/s3cret/health')).json).toMatchObject({ status: 'ok', world: 'fixture', envs: 0 })
    const none = await call(s, 'POST', '/v1/search', { query: 'x' })
    expect(none).toMatchObject({ status: 401, json: { error: { code: 'auth.unauthorized' } } })
    expect((await call(s, 'POST', '/v1/search', { query: 'x' }, { authorization: 'Bearer wrong' })).status).toBe(401)
    expect((await call(s, 'POST', '/retrieve', { queries: ['x'] }, { authorization: 'Bearer s3cret' })).status).toBe(200)
  })

  it('expires idle envs and says so', async () => {
    const auth = { authorization: 'Bearer s3cret' }
    const c = await call(s, 'POST', '/v1/envs', { qaId: 'fx-1' }, auth)
    expect(c.status).toBe(201)
    await new Promise((r) => setTimeout(r, 400))
    const r = await call(s, 'POST', `/v1/envs/${c.json.envId}/step`, { action: '<answer>x</answer>' }, auth)
    expect(r).toMatchObject({ status: 404, json: { error: { code: 'env.expired' } } })
  })
})

describe('gym server with a failing engine', () => {
  it('stateless search says 503 with the engine code; inside an env the failure is an observation', async () => {
    const { SearchError } = await import('../infra/errors')
    const w = openFixtureWorld()
    const down = { ...w, search: async () => Promise.reject(new SearchError('search.meili_unreachable', 'cannot reach Meilisearch')) }
    const s = await startGymServer(down)
    try {
      const r = await call(s, 'POST', '/v1/search', { query: 'x' })
      expect(r).toMatchObject({ status: 503, json: { error: { code: 'search.meili_unreachable' } } })
      const c = await call(s, 'POST', '/v1/envs', { qaId: 'fx-1' })
      const st = await call(s, 'POST', `/v1/envs/${c.json.envId}/step`, { action: '<tool_call>{"name":"search","arguments":{"query":"x"}}</tool_call>' })
      expect(st.status).toBe(200)
      expect(st.json.metrics).toMatchObject({ search_errors: 1 })
    } finally {
      await s.close()
    }
  })
})
