// tests/server-guards: gym serve and model serve over real loopback HTTP refuse what a web page could send them — a
// foreign Host (DNS rebinding) → 421, a cross-site Origin → 403, a text/plain or form POST (no CORS preflight) → 415 —
// while loopback clients (JSON POSTs, no Origin) and --allow-host names are served; model serve's --token guards every
// route but /health. Raw node:http requests, because fetch cannot set Host.
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openFixtureWorld } from './fixtures/gym-fixture-world'
import { startGymServer, type RunningGymServer } from '../gym/server'
import { initModel, serveModel, type ServedModel } from '../infra/engine'
import { writeTinyWorld } from './fixtures/docs-only-world'
import { worldTokenizer } from './helpers/world-texts'

interface Raw {
  status: number
  body: string
}

function raw(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  const u = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      let b = ''
      res.on('data', (d: Buffer) => (b += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b }))
    })
    req.on('error', reject)
    if (body !== undefined) req.write(body)
    req.end()
  })
}

const code = (r: Raw): string => (JSON.parse(r.body) as { error?: { code: string } }).error?.code ?? ''

describe('gym serve guards', () => {
  let s: RunningGymServer
  beforeAll(async () => {
    s = await startGymServer(openFixtureWorld(), { allowHosts: ['gym.internal'] })
  })
  afterAll(() => s.close())
  const port = () => String(s.port)
  const search = JSON.stringify({ query: 'Velmora' })

  it('a foreign Host is 421 on every route, /health included; loopback names and --allow-host names are served', async () => {
    for (const path of ['/health', '/v1/qa'])
      expect(await raw(s.url, 'GET', path, { host: `evil.example:${port()}` })).toMatchObject({ status: 421 })
    const post = await raw(s.url, 'POST', '/v1/envs', { host: 'rebind.attacker.example', 'content-type': 'application/json' }, JSON.stringify({ qaId: 'fx-1' }))
    expect(post.status).toBe(421)
    expect(code(post)).toBe('request.bad_host')
    expect(s.server.registry.size).toBe(0)
    for (const host of [`127.0.0.1:${port()}`, `localhost:${port()}`, `gym.internal:${port()}`])
      expect((await raw(s.url, 'POST', '/v1/search', { host, 'content-type': 'application/json' }, search)).status).toBe(200)
  })

  it('a cross-site text/plain or form POST is refused and opens no env; a cross-site Origin is 403 even as JSON', async () => {
    const h = { host: `127.0.0.1:${port()}` }
    const plain = await raw(s.url, 'POST', '/v1/envs', { ...h, 'content-type': 'text/plain;charset=UTF-8' }, JSON.stringify({ qaId: 'fx-1' }))
    expect(plain.status).toBe(415)
    expect(code(plain)).toBe('request.bad_content_type')
    expect((await raw(s.url, 'POST', '/retrieve', { ...h, 'content-type': 'application/x-www-form-urlencoded' }, '{"queries":["x"]}')).status).toBe(415)
    const xsite = await raw(s.url, 'POST', '/v1/envs', { ...h, origin: 'https://evil.example', 'content-type': 'text/plain' }, JSON.stringify({ qaId: 'fx-1' }))
    expect(xsite.status).toBe(403)
    expect((await raw(s.url, 'POST', '/v1/search', { ...h, origin: 'https://evil.example', 'content-type': 'application/json' }, search)).status).toBe(403)
    expect(s.server.registry.size).toBe(0)
    // A same-origin page (the Origin is this server) and a body-less POST close are fine.
    const ok = await raw(s.url, 'POST', '/v1/envs', { ...h, origin: `http://127.0.0.1:${port()}`, 'content-type': 'application/json' }, JSON.stringify({ qaId: 'fx-1' }))
    expect(ok.status).toBe(201)
    const id = (JSON.parse(ok.body) as { envId: string }).envId
    expect((await raw(s.url, 'POST', `/v1/envs/${id}/close`, h)).status).toBe(200)
  })

  it('gym serve keeps idle connections 65 s (no resets of reused sockets under load)', async () => {
    const r = await fetch(`${s.url}/health`)
    await r.text()
    expect(r.headers.get('keep-alive')).toMatch(/timeout=65/)
  })
})

describe('model serve guards', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sg-guards-'))
  let m: ServedModel
  let open: ServedModel
  beforeAll(async () => {
    const w = writeTinyWorld(join(dir, 'w'))
    initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(w), out: join(dir, 'model'), seed: 0 })
    m = await serveModel({ dir: join(dir, 'model'), port: 0, seed: 0, token: 'tok3n', allowHosts: ['model.internal'] })
    open = await serveModel({ dir: join(dir, 'model'), port: 0, seed: 0 })
  }, 120_000)
  afterAll(async () => {
    await m?.close()
    await open?.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const chat = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, seed: 1 })
  const completion = JSON.stringify({ prompt: [1, 2, 3], max_tokens: 2, seed: 1 })

  it('--token: every route but /health needs the bearer token', async () => {
    const h = { host: `127.0.0.1:${m.port}`, 'content-type': 'application/json' }
    expect((await raw(m.url, 'GET', '/health', h)).status).toBe(200)
    expect((await raw(m.url, 'GET', '/v1/models', h)).status).toBe(401)
    const no = await raw(m.url, 'POST', '/v1/chat/completions', h, chat)
    expect(no.status).toBe(401)
    expect(code(no)).toBe('invalid_api_key')
    expect((await raw(m.url, 'POST', '/v1/completions', { ...h, authorization: 'Bearer wrong' }, completion)).status).toBe(401)
    expect((await raw(m.url, 'POST', '/v1/chat/completions', { ...h, authorization: 'Bearer tok3n' }, chat)).status).toBe(200)
    expect((await raw(m.url, 'POST', '/v1/completions', { ...h, host: `model.internal:${m.port}`, authorization: 'Bearer tok3n' }, completion)).status).toBe(200)
  })

  it('without a token: a foreign Host is 421, a cross-site Origin 403, text/plain 415; loopback JSON clients are served', async () => {
    const h = { host: `localhost:${open.port}` }
    expect((await raw(open.url, 'GET', '/health', { host: 'evil.example' })).status).toBe(421)
    expect((await raw(open.url, 'POST', '/v1/chat/completions', { host: 'evil.example', 'content-type': 'application/json' }, chat)).status).toBe(421)
    const plain = await raw(open.url, 'POST', '/v1/chat/completions', { ...h, 'content-type': 'text/plain' }, chat)
    expect(plain.status).toBe(415)
    expect((await raw(open.url, 'POST', '/v1/completions', { ...h, 'content-type': 'application/x-www-form-urlencoded' }, completion)).status).toBe(415)
    expect((await raw(open.url, 'POST', '/v1/completions', { ...h, origin: 'http://evil.example', 'content-type': 'application/json' }, completion)).status).toBe(403)
    const before = (JSON.parse((await raw(open.url, 'GET', '/health', h)).body) as { queue: number }).queue
    expect(before).toBe(0)
    expect((await raw(open.url, 'POST', '/v1/chat/completions', { ...h, 'content-type': 'application/json' }, chat)).status).toBe(200)
    expect((await raw(open.url, 'POST', '/v1/completions', { ...h, 'content-type': 'application/json; charset=utf-8' }, completion)).status).toBe(200)
  })
})
