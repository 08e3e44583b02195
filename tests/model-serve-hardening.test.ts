// tests/model-serve-hardening: `searchgym model serve` as a real child process on 127.0.0.1 against hostile and
// impatient clients — an 8 MB prompt is refused by size in under 50 ms while /health keeps answering, a prompt over
// the character limit is refused before tokenizing, a client that leaves while queued is dropped unserved, and bad
// flags are one-line errors.
import { request } from 'node:http'
import { connect } from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { initModel } from '../infra/engine/init-model'
import { runCli, startServe, type ServeProcess } from './helpers/cli-process'
import { writeTinyWorld } from './fixtures/docs-only-world'
import { worldTokenizer } from './helpers/world-texts'

const tmp = mkdtempSync(join(tmpdir(), 'model-serve-hard-'))
const modelDir = join(tmp, 'tiny')
let s: ServeProcess

beforeAll(async () => {
  initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(writeTinyWorld(join(tmp, 'world'))), out: modelDir, seed: 1 })
  s = await startServe([modelDir, '--quiet'])
}, 120_000)
afterAll(() => s?.stop())

const origin = () => s.baseURL.replace(/\/v1$/, '')

/** POST a raw body over one connection; resolves with status, body and the ms from sending to the answer's status line. */
function post(path: string, body: Buffer, signal?: AbortSignal): Promise<{ status: number; text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const req = request(origin() + path, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length }, signal }, (res) => {
      const ms = performance.now() - t0
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, ms }))
    })
    // The server may close the connection while a refused body is still being written.
    req.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' || e.code === 'ECONNRESET' ? undefined : reject(e)))
    req.end(body)
  })
}

/** Send a request's headers, then stream its body in 64 KiB chunks (as curl does); resolves with the status line and
 * the ms from the headers leaving to the first byte of the answer — the server's decision, not the client's upload. */
function postStreaming(path: string, body: Buffer): Promise<{ status: number; ms: number; text: string }> {
  const u = new URL(origin() + path)
  return new Promise((resolve, reject) => {
    const sock = connect(Number(u.port), u.hostname)
    let t0 = 0
    let first = 0
    let text = ''
    sock.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' || e.code === 'ECONNRESET' ? undefined : reject(e)))
    sock.on('connect', () => {
      t0 = performance.now()
      sock.write(`POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`)
      let off = 0
      // One chunk per turn of the event loop, so the answer is read as soon as it comes.
      const pump = () => {
        if (off >= body.length || sock.destroyed) return
        const ok = sock.write(body.subarray(off, off + 65536))
        off += 65536
        if (ok) setImmediate(pump)
        else sock.once('drain', pump)
      }
      pump()
    })
    sock.on('data', (d: Buffer) => {
      if (!first) first = performance.now()
      text += d.toString()
      if (/\r\n\r\n[\s\S]*\}$/.test(text)) sock.destroy()
    })
    sock.on('close', () => {
      const m = /^HTTP\/1\.1 (\d+)/.exec(text)
      if (!m) return reject(new Error(`no answer: ${JSON.stringify(text.slice(0, 200))}`))
      resolve({ status: Number(m[1]), ms: first - t0, text: text.slice(text.indexOf('\r\n\r\n') + 4) })
    })
  })
}

async function health(): Promise<{ ms: number; json: Record<string, unknown> }> {
  const t0 = performance.now()
  const r = await fetch(origin() + '/health')
  const json = (await r.json()) as Record<string, unknown>
  return { ms: performance.now() - t0, json }
}

const chat = (content: string, extra: Record<string, unknown> = {}) =>
  Buffer.from(JSON.stringify({ messages: [{ role: 'user', content }], max_tokens: 4, ...extra }))

describe('model serve under hostile load', () => {
  it('an 8 MB prompt is a 4xx in under 50 ms, and /health answers meanwhile', async () => {
    await health() // warm the connection path
    const big = chat('a '.repeat(4_000_000))
    // Two CPU cores are shared by several test runs: the best of three tries measures the server, not the scheduler.
    const tries: { ms: number; healthMs: number }[] = []
    for (let i = 0; i < 3; i++) {
      const [r, h] = await Promise.all([postStreaming('/v1/chat/completions', big), health()])
      expect(r.status).toBe(413)
      expect(JSON.parse(r.text).error.code).toBe('body_too_large')
      expect(h.json.status).toBe('ok')
      tries.push({ ms: r.ms, healthMs: h.ms })
      if (r.ms < 50) break
    }
    process.stdout.write(`8 MB prompt: 413 in ${tries.map((t) => t.ms.toFixed(1)).join(', ')} ms; /health meanwhile ${tries.map((t) => t.healthMs.toFixed(1)).join(', ')} ms\n`)
    expect(Math.min(...tries.map((t) => t.ms))).toBeLessThan(50)
  })

  it('every prototype key as the model name (chat and token completions) is a 4xx, never a 5xx', async () => {
    for (const k of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const chat = await post('/v1/chat/completions', Buffer.from(JSON.stringify({ model: k, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 })))
      expect([chat.status, k]).toEqual([404, k])
      const toks = await post('/v1/completions', Buffer.from(JSON.stringify({ model: k, prompt: [1, 2, 3], max_tokens: 1 })))
      expect(toks.status).toBeGreaterThanOrEqual(400)
      expect(toks.status).toBeLessThan(500)
    }
    const h = await fetch(`${origin()}/health`)
    expect(h.status).toBe(200)
  })

  it('a prompt over the character limit that fits the body limit is refused before tokenizing', async () => {
    const r = await post('/v1/chat/completions', chat('Acme '.repeat(100_000)))
    expect(r.status).toBe(400)
    expect(JSON.parse(r.text).error).toMatchObject({ code: 'context_length_exceeded', param: 'messages' })
    expect(JSON.parse(r.text).error.message).toContain('--max-prompt-chars')
  })

  it('a request whose client disconnects while queued is dropped, not sampled', async () => {
    const before = (await health()).json.dropped as number
    // A holds the engine for a while (1,500 tokens × 16: long enough that on a loaded box B's disconnect is still seen
    // before A ends — with 600, a CI run once saw A end first and B start: cancelled, not dropped); B queues behind it
    // and its client gives up.
    const a = post('/v1/chat/completions', chat('Who founded Acme Corporation?', { max_tokens: 1500, temperature: 1, n: 16, stop: [] }))
    await new Promise((r) => setTimeout(r, 30))
    const gone = new AbortController()
    const b = post('/v1/chat/completions', chat('Marie Curie', { max_tokens: 600, n: 16 }), gone.signal).catch((e: Error) => e)
    // The engine samples in a worker: /health answers while A samples. Wait until B is accepted and waiting behind A
    // (queue 2: A running, B queued) before its client gives up — aborting earlier tests nothing (B never queued).
    let during = await health()
    for (let i = 0; i < 200 && (during.json.queue as number) < 2; i++) {
      await new Promise((r) => setTimeout(r, 10))
      during = await health()
    }
    expect(during.json.queue).toBe(2)
    process.stdout.write(`/health while sampling: ${during.ms.toFixed(1)} ms, queue ${String(during.json.queue)}\n`)
    gone.abort()
    expect(String(await b)).toMatch(/abort/i)
    expect((await a).status).toBe(200)
    for (let i = 0; i < 100 && (await health()).json.queue !== 0; i++) await new Promise((r) => setTimeout(r, 50))
    const h = await health()
    expect(h.json.dropped).toBe(before + 1)
  }, 120_000)

  it.each([
    [['--port', 'abc'], 'port (--port) must be an integer'],
    [['--set', 'maxPromptChars=0'], 'maxPromptChars (--set) must be an integer'],
  ])('model serve %j is a one-line error', async (flags, message) => {
    const r = await runCli(['model', 'serve', modelDir, ...flags])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(message)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  }, 120_000)
})
