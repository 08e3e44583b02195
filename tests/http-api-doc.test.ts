// tests/http-api-doc: docs/http-api.md is what gym/http-api-doc renders now (`--check`: drift fails CI); every route
// the gym server registers (read from the server's own hono app) has its section; every error code the server and its guards
// can answer (read from their sources) is listed with its status; and every documented response shape
// holds for a real server's answers on the run's tiny world (so the page's shapes are checked, not only written).
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { openGymWorld, startGymServer } from '../gym'
import { HTTP_API_DOC, registeredRoutes, renderHttpApiDoc } from '../gym/http-api-doc'
import { ERROR_BODY, GYM_ROUTES } from '../gym/server-routes'
import { sharedTinyWorld } from './helpers/shared-world'

const run = promisify(execFile)

test('docs/http-api.md is up to date (the generator\'s --check passes)', async () => {
  const { stdout, stderr } = await run(process.execPath, ['bin/run-ts.mjs', 'gym/http-api-doc.ts', '--check'])
  expect(stdout + stderr).toBe('')
  expect(readFileSync(HTTP_API_DOC, 'utf8')).toBe(await renderHttpApiDoc())
}, 60_000)

test('every route the server registers has its section, and nothing else is described', async () => {
  const page = readFileSync(HTTP_API_DOC, 'utf8')
  const routes = await registeredRoutes()
  expect(routes.length).toBeGreaterThanOrEqual(10)
  for (const r of routes) expect(page).toContain(`### \`${r}\``)
  const sections = [...page.matchAll(/^### `([A-Z]+ \S+)`$/gm)].map((m) => m[1])
  expect(sections.sort()).toEqual([...routes].sort())
})

test('every error code the server and its guards can answer is in the page, with its status', () => {
  const page = readFileSync(HTTP_API_DOC, 'utf8')
  const files = ['gym/server.ts', 'gym/server-guards.ts', 'gym/server-env-routes.ts', 'gym/server-search-routes.ts', 'gym/server-validate.ts', 'gym/server-schemas.ts', 'gym/retrieve-batch.ts', 'gym/env-sessions.ts', 'infra/http/host-guard.ts']
  const found = new Set<string>()
  for (const f of files) {
    const src = readFileSync(f, 'utf8')
    for (const m of src.matchAll(/(?:HttpError|errorBody)\(\s*(\d{3}),\s*'([a-z_.]+)'/g)) found.add(`${m[1]} ${m[2]}`)
    // statusOf's table of the env registry's errors
    for (const m of src.matchAll(/'(env\.[a-z_]+)': (\d{3})/g)) found.add(`${m[2]} ${m[1]}`)
  }
  // makeEnv's own check of a question id: the create route looks the question up first (qa.not_found), so HTTP never
  // answers it.
  found.delete('404 env.unknown_qa')
  expect(found.size).toBeGreaterThanOrEqual(20)
  const missing = [...found].filter((sc) => {
    const [status, code] = sc.split(' ')
    return !page.includes(`| ${status} | \`${code}\` |`)
  })
  expect(missing).toEqual([])
})

test('a real server answers every route in the documented shape', async () => {
  const world = await openGymWorld((await sharedTinyWorld()).dir)
  const s = await startGymServer(world, { port: 0, token: 'doc-token' })
  const call = async (method: string, path: string, body?: unknown, auth = true) => {
    const res = await fetch(`${s.url}${path}`, {
      method,
      headers: { ...(auth ? { authorization: 'Bearer doc-token' } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, json: (await res.json()) as unknown }
  }
  try {
    const list = (await call('GET', '/v1/qa?split=train&limit=1')).json as { items: { id: string }[] }
    const qaId = list.items[0].id
    const search = (await call('POST', '/v1/search', { query: 'the' })).json as { results: { url: string }[] }
    const url = search.results[0].url
    const envOf = async () => ((await call('POST', '/v1/envs', { qaId })).json as { envId: string }).envId
    const closeId = await envOf()
    const examples: Record<string, () => Promise<{ status: number; json: unknown }>> = {
      'GET /health': () => call('GET', '/health'),
      'GET /v1/qa': () => call('GET', '/v1/qa?limit=2'),
      'POST /v1/envs': () => call('POST', '/v1/envs', { split: 'train', index: 0, options: { budgets: { maxTurns: 4 } } }),
      'POST /v1/envs/:id/step': async () => call('POST', `/v1/envs/${await envOf()}/step`, { action: `<tool_call>{"name": "search", "arguments": {"query": "the"}}</tool_call>` }),
      'DELETE /v1/envs/:id': async () => call('DELETE', `/v1/envs/${await envOf()}`),
      'POST /v1/envs/:id/close': () => call('POST', `/v1/envs/${closeId}/close`),
      'POST /v1/search': () => call('POST', '/v1/search', { query: 'the', k: 2 }),
      'POST /v1/access': () => call('POST', '/v1/access', { url }),
      'POST /retrieve': () => call('POST', '/retrieve', { queries: ['the', 7], topk: 2, return_scores: true }),
      'POST /access': () => call('POST', '/access', { urls: [url, 'https://nowhere.example/x'] }),
    }
    for (const r of GYM_ROUTES) {
      const key = `${r.method} ${r.path}`
      const ex = examples[key]
      expect([key, ex !== undefined]).toEqual([key, true])
      const got = await ex()
      expect([key, got.status]).toEqual([key, r.response.status])
      const parsed = r.response.schema.safeParse(got.json)
      expect([key, parsed.success ? 'ok' : JSON.stringify(parsed.error.issues[0])]).toEqual([key, 'ok'])
    }
    // The flat /retrieve items, and a refusal in the documented error shape with a documented code.
    const flat = await call('POST', '/retrieve', { queries: ['the'] })
    expect(GYM_ROUTES.find((r) => r.path === '/retrieve')!.response.schema.safeParse(flat.json).success).toBe(true)
    const refused = await call('POST', '/v1/search', { query: 'x' }, false)
    expect(refused.status).toBe(401)
    expect(ERROR_BODY.parse(refused.json).error.code).toBe('auth.unauthorized')
    const unknown = await call('POST', '/v1/envs', { qaId, bogus: 1 })
    expect(ERROR_BODY.parse(unknown.json).error.code).toBe('request.unknown_field')
    expect(GYM_ROUTES.find((r) => r.path === '/v1/envs')!.errors.map((e) => e.code)).toContain('request.unknown_field')
  } finally {
    await s.close()
    await world.close()
  }
}, 120_000)
