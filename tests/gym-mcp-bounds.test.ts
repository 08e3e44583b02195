// tests/gym-mcp-bounds: the doors of `gym mcp` (issue 59, item 3), on the real CLI. Over HTTP a chunked body is
// counted in bytes as it streams: a 700 MB upload is refused with 413 after about the limit, the server's peak RSS
// growing under 64 MB (c3906aa read it whole: 1.47 GB, then a 500), and a body over the limit in bytes but not in
// characters is refused too. Over stdio a line that is no message is answered per JSON-RPC and logged on stderr —
// not JSON (-32700), a batch or a non-message (-32600), a line over 10 MiB (-32600, the session goes on; c3906aa
// closed the transport and exited 0 without a word). A tool result's structuredContent carries no gold signal while
// the episode runs (they travel in _meta), and does once it ended.
import { spawn, type ChildProcess } from 'node:child_process'
import { request } from 'node:http'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { sharedTinyWorld } from './helpers/shared-world'

const BIN = fileURLToPath(new URL('../bin/searchgym.mjs', import.meta.url))
const ROOT = fileURLToPath(new URL('..', import.meta.url))
let dir = ''
beforeAll(async () => {
  dir = (await sharedTinyWorld()).dir
}, 300_000)

const kib = (pid: number, key: 'VmRSS' | 'VmHWM') => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1])

function startHttp(): Promise<{ proc: ChildProcess; url: URL }> {
  const p = spawn(process.execPath, [BIN, 'gym', 'mcp', dir, '--http', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] })
  let err = ''
  return new Promise((res, rej) => {
    p.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /on (http:\/\/\S+\/mcp)/.exec(err)
      if (m) res({ proc: p, url: new URL(m[1]) })
    })
    p.once('exit', (c) => rej(new Error(`gym mcp --http exited ${c}: ${err}`)))
  })
}

/** POST a chunked body of `total` bytes (chunks of `chunk`) until the server answers; status and bytes sent by then. */
function chunkedPost(url: URL, total: number, chunk: Buffer): Promise<{ status: number; sent: number; body: string }> {
  return new Promise((resolve, reject) => {
    let sent = 0
    let answered = false
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', accept: 'application/json, text/event-stream' } }, (res) => {
      answered = true
      let body = ''
      res.on('data', (d: Buffer) => (body += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, sent, body }))
    })
    req.on('error', (e) => (answered ? undefined : reject(e)))
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length
        if (!req.write(chunk)) return void req.once('drain', pump)
      }
      if (!answered) req.end()
    }
    pump()
  })
}

describe('gym mcp --http: the body limit counts bytes while the body streams', () => {
  it('a 700 MB chunked body: 413 after about the limit, peak RSS growth under 64 MB; bytes, not characters', async () => {
    const { proc, url } = await startHttp()
    try {
      const before = kib(proc.pid!, 'VmRSS')
      const r = await chunkedPost(url, 700 * 1024 * 1024, Buffer.alloc(64 * 1024, 'a'))
      expect(r.status).toBe(413)
      expect(JSON.parse(r.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } })
      // The server stopped reading after about 1 MiB: the client could not push more than its socket buffers' worth.
      expect(r.sent).toBeLessThan(64 * 1024 * 1024)
      expect((kib(proc.pid!, 'VmHWM') - before) / 1024).toBeLessThan(64)
      // 600,000 'é' = 1.2 MB of UTF-8 in 600,000 characters: over the 1 MiB limit in bytes.
      const e = await chunkedPost(url, 1_200_000, Buffer.from('é'.repeat(50_000)))
      expect(e.status).toBe(413)
    } finally {
      proc.kill('SIGTERM')
    }
  }, 120_000)
})

/** `gym mcp DIR` on stdio: send lines, read the JSON lines it answers. */
function stdio() {
  const p = spawn(process.execPath, [BIN, 'gym', 'mcp', dir, '--options', JSON.stringify({ budgets: { maxTurns: 3 } })], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  const replies: Record<string, unknown>[] = []
  p.stdout!.on('data', (d: Buffer) => {
    out += d.toString()
    for (let nl = out.indexOf('\n'); nl !== -1; nl = out.indexOf('\n')) {
      replies.push(JSON.parse(out.slice(0, nl)) as Record<string, unknown>)
      out = out.slice(nl + 1)
    }
  })
  p.stderr!.on('data', (d: Buffer) => (err += d.toString()))
  const next = async (n: number) => {
    const t0 = Date.now()
    while (replies.length < n && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 20))
    return replies[n - 1]
  }
  const send = (line: string | Buffer) => p.stdin!.write(typeof line === 'string' ? line + '\n' : line)
  return { p, send, next, stderr: () => err }
}

describe('gym mcp on stdio: every line is answered', () => {
  it('not JSON, a batch, a non-message and an 11 MiB line get JSON-RPC errors and a log line; the session goes on', async () => {
    const s = stdio()
    try {
      await playStdio(s)
    } finally {
      if (s.p.exitCode === null) s.p.kill('SIGKILL')
    }
  }, 120_000)
})

async function playStdio(s: ReturnType<typeof stdio>): Promise<void> {
  s.send('{"jsonrpc": "2.0", "id": 1, "method": ')
  expect(await s.next(1)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } })
  s.send('[{"jsonrpc":"2.0","id":2,"method":"ping"}]')
  expect(await s.next(2)).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/batch/) } })
  s.send('{"id": 3, "hello": true}')
  expect(await s.next(3)).toMatchObject({ id: 3, error: { code: -32600 } })
  s.send(Buffer.concat([Buffer.alloc(11 * 1024 * 1024, 'x'), Buffer.from('\n')]))
  expect(await s.next(4)).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/over 10485760 bytes/) } })
  // Still serving: initialize, then a search whose metrics keep the gold signals out of structuredContent.
  s.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } }))
  expect(await s.next(5)).toMatchObject({ id: 5, result: { serverInfo: { name: 'searchgym' } } })
  s.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))
  s.send(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'search', arguments: { query: 'university' } } }))
  const found = (await s.next(6)) as { result: { structuredContent: { terminated: boolean; metrics: Record<string, number> }; _meta?: Record<string, Record<string, number>> } }
  expect(found.result.structuredContent.terminated).toBe(false)
  expect(Object.keys(found.result.structuredContent.metrics).filter((k) => k.startsWith('signal/'))).toEqual([])
  expect(Object.keys(found.result._meta?.['searchgym/signals'] ?? {})).toEqual(expect.arrayContaining(['signal/gold_found', 'signal/gold_accessed', 'signal/hop_reached']))
  // Once the episode ended, the structured result carries them (nothing is left to play).
  s.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'answer', arguments: { answer: 'x' } } }))
  const end = (await s.next(7)) as { result: { structuredContent: { terminated: boolean; metrics: Record<string, number> } } }
  expect(end.result.structuredContent.terminated).toBe(true)
  expect(Object.keys(end.result.structuredContent.metrics)).toEqual(expect.arrayContaining(['signal/gold_found']))
  const code = new Promise<number | null>((r) => s.p.once('exit', (c) => r(c)))
  s.p.stdin!.end()
  expect(await code).toBe(0)
  const logged = s.stderr().split('\n').filter((l) => /mcp stdio: /.test(l))
  expect(logged).toHaveLength(4)
}
