// infra/http/host-guard.test: the Host/Origin allowlist and the JSON-only guard on a real hono app (app.request).
import { Hono } from 'hono'
import { allowedHosts, hostGuard, hostOf, requireJson } from './host-guard'

function app(bindHost: string, allowHosts?: string[]) {
  const a = new Hono()
  a.use('*', hostGuard({ bindHost, allowHosts }))
  a.use('*', requireJson())
  a.get('/x', (c) => c.json({ ok: true }))
  a.post('/x', (c) => c.json({ ok: true }))
  return a
}

describe('hostGuard', () => {
  it('accepts loopback names with or without a port and refuses a foreign Host with 421', async () => {
    const a = app('127.0.0.1')
    for (const h of ['127.0.0.1:8000', 'localhost:8000', 'localhost', '[::1]:9', 'app.localhost'])
      expect((await a.request('/x', { headers: { host: h } })).status).toBe(200)
    const r = await a.request('/x', { headers: { host: 'evil.example:8000' } })
    expect(r.status).toBe(421)
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('request.bad_host')
  })
  it('refuses a cross-site Origin with 403 and an opaque one too; same-origin passes', async () => {
    const a = app('127.0.0.1')
    expect((await a.request('/x', { headers: { host: 'localhost:1', origin: 'http://evil.example' } })).status).toBe(403)
    expect((await a.request('/x', { headers: { host: 'localhost:1', origin: 'null' } })).status).toBe(403)
    expect((await a.request('/x', { headers: { host: 'localhost:1', origin: 'http://localhost:1' } })).status).toBe(200)
  })
  it('a named bind host and --allow-host values are accepted; * accepts any', async () => {
    expect((await app('gpu-node-3').request('/x', { headers: { host: 'gpu-node-3:80' } })).status).toBe(200)
    expect((await app('127.0.0.1', ['trainer.lab']).request('/x', { headers: { host: 'trainer.lab' } })).status).toBe(200)
    expect((await app('127.0.0.1', ['*']).request('/x', { headers: { host: 'anything' } })).status).toBe(200)
    expect(allowedHosts({ bindHost: '0.0.0.0' })!.has('127.0.0.1')).toBe(true)
  })
  it('hostOf parses Host values and Origin URLs', () => {
    expect(hostOf('LocalHost:80')).toBe('localhost')
    expect(hostOf('[::1]:80')).toBe('::1')
    expect(hostOf('http://a.b:9', true)).toBe('a.b')
    expect(hostOf('not a url', true)).toBeNull()
  })
})

describe('requireJson', () => {
  it('refuses a text/plain POST with 415 and accepts application/json; GET is untouched', async () => {
    const a = app('127.0.0.1')
    const h = { host: 'localhost' }
    expect((await a.request('/x', { method: 'POST', body: '{}', headers: { ...h, 'content-type': 'text/plain' } })).status).toBe(415)
    expect((await a.request('/x', { method: 'POST', body: '{}', headers: { ...h, 'content-type': 'application/json; charset=utf-8' } })).status).toBe(200)
    expect((await a.request('/x', { headers: h })).status).toBe(200)
  })
})
