// tests/openenv: the gym's OpenEnv face (gym/openenv) on a real `gym serve --workers 2 --token T` over loopback, on a
// tiny world with a 54-question bench — a replica of OpenEnv's clients written from its code (tests/replicas/
// openenv_clients.py: WebSocket EnvClient, MCPToolClient over /ws and over HTTP /mcp, HTTP episodes, `openenv validate
// --url`) plays 50 bench questions to F1 1.0 with the oracle's actions, a wrong answer to 0, budgets as the env API
// truncates; bad input on the new routes and over the socket is a 4xx in OpenEnv's error shape with nothing leaked and
// the server up; searchgym.openenv and the TRL example (python/tests/test_openenv.py, test_trl_openenv.py) against the
// same server; `world export --format openenv` writes the folder OpenEnv's CLI checks, and its server/app.py serves the
// world to its own client. No session is left open.
import { execFile, spawn } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import WebSocket from 'ws'
import { DEFAULT_GYM_OPTIONS } from '../gym'
import { openWorld, readQa } from '../world'
import { runCli } from './helpers/cli-process'
import { startGymServe, type GymServeProcess } from './helpers/gym-serve-process'
import { oracleTraces, type OracleTrace } from './helpers/oracle-calls'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin', 'searchgym.mjs')
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'
const TOKEN = 'oe-tok-62'

function run(cmd: string, args: string[], env: Record<string, string> = {}, timeout = 180_000, cwd = ROOT): Promise<{ code: number; out: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env: { ...process.env, ...env }, timeout, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}${stderr}`, stdout }),
    )
  })
}

interface Reply {
  status: number
  body: unknown
  text: string
  headers: Headers
}

describe('the OpenEnv face of gym serve', () => {
  let tmp: string
  let dir: string
  let s: GymServeProcess
  let base: string
  let walks: OracleTrace[]
  let golds: Map<string, string[]>
  const auth = { authorization: `Bearer ${TOKEN}` }

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const r = await fetch(`${s.url}${path}`, {
      method,
      headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await r.text()
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {
      // not JSON
    }
    return { status: r.status, body: parsed, text, headers: r.headers }
  }

  /** A body larger than the server takes, through node:http: the server answers 413 from the headers and closes the
   *  connection while the body is still being written, so the reply is read as it comes and the write's EPIPE that
   *  follows is ignored (fetch would report the EPIPE instead of the reply, depending on timing). */
  const postTooBig = (path: string, body: string) =>
    new Promise<Reply>((resolve, reject) => {
      const u = new URL(`${s.url}${path}`)
      let replied = false
      const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
        replied = true
        let text = ''
        res.on('data', (d: Buffer) => (text += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown, text, headers: new Headers(res.headers as Record<string, string>) }))
        res.on('error', reject)
      })
      req.on('error', (e) => {
        if (!replied) reject(e)
      })
      req.end(body)
    })

  /** fetch sets its own Host: a request with another one goes through node:http. */
  const withHost = (path: string, host: string) =>
    new Promise<Reply>((resolve, reject) => {
      const u = new URL(`${s.url}${path}`)
      const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'GET', headers: { ...auth, host } }, (res) => {
        let text = ''
        res.on('data', (d: Buffer) => (text += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown, text, headers: new Headers() }))
      })
      req.on('error', reject)
      req.end()
    })

  /** An error on the OpenEnv face: FastAPI's {"detail": …} and nothing else, a 4xx, short, no stack, no gold answer. */
  const refusal = (r: Reply, status: number, gold: string[] = []) => {
    expect(r.status).toBe(status)
    expect(Object.keys(r.body as object)).toEqual(['detail'])
    expect(r.text.length).toBeLessThan(2000)
    expect(r.text).not.toMatch(/\bat [\w.<>]+ \(|node_modules|\.ts:\d+/)
    for (const g of gold) expect(r.text.toLowerCase()).not.toContain(g.toLowerCase())
    return (r.body as { detail: unknown }).detail
  }

  const healthEnvs = async (): Promise<number> => ((await call('GET', '/health')).body as { envs: number }).envs

  const waitNoEnvs = async (): Promise<number> => {
    const t0 = Date.now()
    let n = await healthEnvs()
    while (n !== 0 && Date.now() - t0 < 5000) {
      await new Promise((r) => setTimeout(r, 100))
      n = await healthEnvs()
    }
    return n
  }

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'sg-openenv-'))
    dir = join(tmp, 'tiny54')
    writeFileSync(join(tmp, 'bench54.json'), JSON.stringify({ split: { bench: { simple: 40, parallel: 10, combo: 4 } } }))
    const built = await runCli(['world', 'build', '--preset', 'tiny', '--config', join(tmp, 'bench54.json'), '--out', dir, '--quiet'], 300_000)
    expect({ code: built.code, err: built.stderr.slice(-500) }).toEqual({ code: 0, err: '' })
    // The oracle's walks of the bench, at the env's top-k; those that fit the env's default 16 turns.
    walks = (await oracleTraces(dir, DEFAULT_GYM_OPTIONS.topK, ['bench'])).filter((t) => t.answer !== undefined && !t.failure && t.searches.length + t.searches.filter((x) => x.found).length + 1 <= 16)
    expect(walks.length).toBeGreaterThanOrEqual(50)
    const w = openWorld(dir)
    golds = new Map(readQa(w.db).map((q) => [q.id, [q.answer, ...q.aliases]]))
    w.close()
    s = await startGymServe(dir, ['--token', TOKEN, '--workers', '2'])
    base = `${s.url}/t/${TOKEN}`
  }, 400_000)

  afterAll(async () => {
    if (s && s.proc.exitCode === null) await s.stop()
    if (tmp) rmSync(tmp, { recursive: true, force: true })
  })

  it("a replica of OpenEnv's clients plays 50 bench questions to F1 1.0, a wrong answer to 0, budgets as the env API", async () => {
    const fx = join(tmp, 'replica.json')
    writeFileSync(fx, JSON.stringify({ url: base, walks: walks.slice(0, 50).map((t) => ({ qa_id: t.qaId, question: t.question, searches: t.searches, answer: t.answer })) }))
    const r = await run(PYTHON, [join(ROOT, 'tests', 'replicas', 'openenv_clients.py'), fx])
    expect({ code: r.code, tail: r.code === 0 ? '' : r.out.slice(-4000) }).toEqual({ code: 0, tail: '' })
    const rep = JSON.parse(r.stdout) as Record<string, unknown>
    expect(rep.failures).toEqual([])
    expect(rep.ws_rewards).toEqual(Array(50).fill(1))
    expect(rep.http_rewards).toEqual(Array(50).fill(1))
    expect(rep.env_api_rewards).toEqual([1, 1, 1, 1, 1])
    expect(rep.ws_wrong).toEqual([0, true])
    expect(rep.http_wrong).toEqual([0, true])
    expect(rep.ws_after_done).toMatch(/^Server error: the episode has ended \(answer\); reset for a new one \(code: EXECUTION_ERROR\)$/)
    // Budgets: the env API's own answers to the same actions, step for step, over the socket and over HTTP.
    expect(rep.env_api_budget).toEqual([
      [0, false, false, null],
      [0, false, true, 'max_turns'],
    ])
    expect(rep.ws_budget).toEqual(rep.env_api_budget)
    expect(rep.http_budget).toEqual(rep.env_api_budget)
    expect(rep.ws_default_budget).toEqual([16, true, 'max_turns', 0])
    expect(rep.mcp_ws_tools).toEqual(['search', 'access', 'answer'])
    expect(rep.mcp_ws_walk).toEqual([1, true])
    expect(rep.mcp_http_walk).toEqual({ reward: 1, done: true, terminated: true, truncated: false, stop_reason: 'answer' })
    expect(rep.mcp_http_question).toBe(true)
    expect(rep.validate_prefixed).toMatchObject({ passed: true, standard_version: '1.0.0' })
    // At the root /health is the env API's ({"status":"ok", ...}); everything else passes there too.
    expect(rep.validate_root).toMatchObject({ passed: false, criteria: { openapi_version_available: true, health_endpoint: false, metadata_endpoint: true, schema_endpoint: true, mcp_endpoint: true, mode_endpoint_consistency: true } })
    expect(rep.ws_foreign_origin).toEqual([403, { detail: "cross-site request from 'http://evil.example' refused" }])
    expect(await waitNoEnvs()).toBe(0)
  }, 300_000)

  it('bad input on the HTTP routes: a 4xx in OpenEnv (FastAPI) shape, nothing leaked, the server up', async () => {
    const w = walks[0]
    const gold = golds.get(w.qaId)!
    const opened = await call('POST', '/reset', { qa_id: w.qaId })
    expect(opened.status).toBe(200)
    const sid = (opened.body as { observation: { session_id: string } }).observation.session_id
    // Unknown action shapes: 422 with FastAPI's items.
    expect(refusal(await call('POST', '/step', { session_id: sid, action: { foo: 1 } }), 422, gold)).toEqual([{ type: 'extra_forbidden', loc: ['body', 'action', 'foo'], msg: 'Extra inputs are not permitted' }])
    expect(refusal(await call('POST', '/step', { session_id: sid, action: { type: 'dance' } }), 422, gold)).toEqual([expect.objectContaining({ type: 'literal_error', loc: ['body', 'action', 'type'] })])
    expect(refusal(await call('POST', '/step', { session_id: sid, action: 'search things' }), 422, gold)).toEqual([expect.objectContaining({ loc: ['body', 'action'] })])
    expect(refusal(await call('POST', '/step', { session_id: sid, action: {} }), 422, gold)).toEqual([expect.objectContaining({ type: 'missing', loc: ['body', 'action', 'text'] })])
    expect(refusal(await call('POST', '/step', { session_id: sid, action: { tool_name: 'search', arguments: ['q'] } }), 422, gold)).toEqual([expect.objectContaining({ loc: ['body', 'action', 'arguments'] })])
    expect(refusal(await call('POST', '/step', { action: { text: 'x' } }), 422)).toEqual([{ type: 'missing', loc: ['body', 'session_id'], msg: 'Field required' }])
    expect(refusal(await call('POST', '/step', '{"session_id": '), 422)).toEqual([{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error' }])
    // A prototype key anywhere: refused, never merged.
    expect(refusal(await call('POST', '/reset', '{"__proto__": {"qa_id": "x"}}'), 422)).toEqual([{ type: 'extra_forbidden', loc: ['body', '__proto__'], msg: 'Extra inputs are not permitted' }])
    expect(refusal(await call('POST', '/step', `{"session_id": "${sid}", "action": {"text": "<answer>x</answer>", "__proto__": {"polluted": 1}}}`), 422, gold)).toEqual([expect.objectContaining({ type: 'extra_forbidden', loc: ['body', 'action', '__proto__'] })])
    const proto = await call('POST', '/reset', `{"qa_id": "${w.qaId}", "options": {"__proto__": {"topK": 1}}}`)
    expect(refusal(proto, 400)).toMatch(/unknown env option "__proto__"/)
    expect(proto.headers.get('x-searchgym-error-code')).toBe('config.unknown_key')
    // The session still plays: a step after done is a 409, an unknown session a 404.
    const ans = await call('POST', '/step', { session_id: sid, action: { text: '<answer>Nowhere At All</answer>' } })
    expect(ans.status).toBe(200)
    expect(ans.body).toMatchObject({ reward: 0, done: true })
    expect(ans.text.toLowerCase()).not.toContain(`"gold"`)
    const after = await call('POST', '/step', { session_id: sid, action: { text: '<answer>again</answer>' } })
    expect(refusal(after, 409, gold)).toMatch(/the episode has ended \(answer\); reset for a new one/)
    expect(after.headers.get('x-searchgym-error-code')).toBe('episode.done')
    expect(refusal(await call('POST', '/step', { session_id: 'oe_w1_nope', action: { text: 'x' } }), 404)).toMatch(/no OpenEnv session "oe_w1_nope"/)
    expect(refusal(await call('POST', '/step', { session_id: 'nope', action: { text: 'x' } }), 404)).toMatch(/no OpenEnv session/)
    expect(refusal(await call('GET', '/state?session_id=oe_w0_unknown'), 404)).toMatch(/no OpenEnv session/)
    expect(refusal(await call('POST', '/reset', { qa_id: 'no-such-question' }), 404)).toMatch(/no question with id/)
    expect(refusal(await call('POST', '/reset', { split: 'bench', index: 10 ** 6 }), 404)).toMatch(/out of range/)
    // A 20 MB body: 413 before it is read, nothing of it echoed.
    const big = JSON.stringify({ session_id: sid, action: { text: 'a'.repeat(20 << 20) } })
    const tooBig = await postTooBig('/step', big)
    expect(refusal(tooBig, 413)).toMatch(/exceeds 16777216 bytes/)
    expect(tooBig.text).not.toContain('aaaa')
    expect(refusal(await postTooBig('/openenv/reset', big), 413)).toMatch(/exceeds/)
    // The guards in front of every route.
    expect(refusal(await call('POST', '/reset', {}, { authorization: 'Bearer wrong' }), 401)).toMatch(/missing or wrong token/)
    expect(refusal(await withHost('/schema', 'evil.example'), 421)).toMatch(/is not this server's/)
    expect(refusal(await call('POST', '/reset', {}, { origin: 'http://evil.example' }), 403)).toMatch(/cross-site/)
    expect(refusal(await call('POST', '/reset', 'qa_id=x', { 'content-type': 'text/plain' }), 415)).toMatch(/Content-Type/)
    expect(refusal(await call('GET', '/openenv/nope'), 404)).toMatch(/no route/)
    expect(refusal(await call('GET', '/ws'), 426)).toMatch(/WebSocket/)
    // The env API's own errors keep their shape.
    expect(Object.keys((await call('POST', '/v1/envs', { qaId: 'nope' })).body as object)).toEqual(['error'])
    // Up, both workers alive, nothing left open.
    expect((await call('GET', '/health')).body).toMatchObject({ status: 'ok', workers: { count: 2, alive: 2 } })
    expect(await waitNoEnvs()).toBe(0)
    const sch = (await call('GET', '/openenv/schema')).body as Record<string, { title?: string }>
    expect([sch.action.title, sch.observation.title, sch.state.title]).toEqual(['SearchGymAction', 'SearchGymObservation', 'SearchGymState'])
  }, 120_000)

  it('bad input over the WebSocket: OpenEnv error messages (or the close code), nothing leaked, the server up', async () => {
    const wsUrl = `${s.url.replace('http', 'ws')}/t/${TOKEN}/ws`
    const open = (url = wsUrl, headers: Record<string, string> = {}) =>
      new Promise<{ ws: WebSocket; next: (m: unknown) => Promise<{ type: string; data: Record<string, unknown> }> }>((resolve, reject) => {
        const ws = new WebSocket(url, { headers })
        const waiting: ((v: { type: string; data: Record<string, unknown> }) => void)[] = []
        ws.on('message', (d) => waiting.shift()?.(JSON.parse(String(d))))
        ws.on('open', () => resolve({ ws, next: (m) => new Promise((r) => (waiting.push(r), ws.send(typeof m === 'string' ? m : JSON.stringify(m)))) }))
        ws.on('unexpected-response', (_req, res) => {
          let b = ''
          res.on('data', (c: Buffer) => (b += c))
          res.on('end', () => reject(Object.assign(new Error(`refused ${res.statusCode}`), { status: res.statusCode, body: b })))
        })
        ws.on('error', reject)
      })
    const refusedWith = async (url: string, headers: Record<string, string> = {}) => {
      try {
        await open(url, headers)
        return { status: 101, body: {} }
      } catch (e) {
        return { status: (e as { status: number }).status, body: JSON.parse((e as { body: string }).body) as unknown }
      }
    }
    expect(await refusedWith(`${s.url.replace('http', 'ws')}/ws`)).toEqual({ status: 401, body: { detail: expect.stringMatching(/missing or wrong token/) } })
    expect(await refusedWith(wsUrl, { host: 'evil.example' })).toEqual({ status: 421, body: { detail: expect.stringMatching(/not this server's/) } })
    expect(await refusedWith(wsUrl.replace('/ws', '/nope'))).toMatchObject({ status: 404 })

    const { ws, next } = await open()
    const w = walks[1]
    const gold = golds.get(w.qaId)!
    const err = async (m: unknown) => {
      const r = await next(m)
      expect(r.type).toBe('error')
      const t = JSON.stringify(r)
      expect(t.length).toBeLessThan(2000)
      for (const g of gold) expect(t.toLowerCase()).not.toContain(g.toLowerCase())
      return r.data
    }
    expect(await err('{"type": "reset", ')).toMatchObject({ code: 'INVALID_JSON' })
    expect(await err({ type: 'dance' })).toEqual({ message: 'Unknown message type: dance', code: 'UNKNOWN_TYPE' })
    expect(await err({ type: 'step', data: { text: 'x' } })).toMatchObject({ code: 'EXECUTION_ERROR', reason: 'episode.not_started', status: 409 })
    expect(await err({ type: 'reset', data: { qa_id: w.qaId }, extra: 1 })).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ type: 'extra_forbidden', loc: ['extra'] }] })
    expect(await err('{"type": "reset", "data": {"__proto__": {"qa_id": "x"}}}')).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ type: 'extra_forbidden', loc: ['data', '__proto__'] }] })
    expect(await err({ type: 'reset', data: { qa_id: 'no-such' } })).toMatchObject({ code: 'EXECUTION_ERROR', reason: 'qa.not_found', status: 404 })
    const reset = await next({ type: 'reset', data: { qa_id: w.qaId } })
    expect(reset).toMatchObject({ type: 'observation', data: { reward: null, done: false, observation: { question: w.question } } })
    expect(await err({ type: 'step', data: { bogus: 1 } })).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ type: 'extra_forbidden', loc: ['data', 'bogus'] }] })
    expect(await err({ type: 'step' })).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ type: 'missing', loc: ['data'] }] })
    const ended = await next({ type: 'step', data: { tool_name: 'answer', arguments: { answer: 'Nowhere At All' } } })
    expect(ended).toMatchObject({ type: 'observation', data: { reward: 0, done: true, observation: { tool_name: 'answer', stop_reason: 'answer' } } })
    expect(JSON.stringify(ended)).not.toMatch(/"gold"|signal\//)
    expect(await err({ type: 'step', data: { text: '<answer>again</answer>' } })).toMatchObject({ code: 'EXECUTION_ERROR', reason: 'episode.done', status: 409 })
    expect(await next({ type: 'state' })).toMatchObject({ type: 'state', data: { qa_id: w.qaId, done: true, terminated: true, reward: 0, step_count: 1 } })
    // A 20 MB message closes the socket (1009: too big), and nothing else.
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)))
    ws.send(JSON.stringify({ type: 'step', data: { text: 'a'.repeat(20 << 20) } }))
    expect(await closed).toBe(1009)
    const again = await open()
    expect(await again.next({ type: 'reset', data: { split: 'bench', index: 0 } })).toMatchObject({ type: 'observation', data: { done: false } })
    again.ws.close()
    expect((await call('GET', '/health')).body).toMatchObject({ status: 'ok', workers: { count: 2, alive: 2 } })
    expect(await waitNoEnvs()).toBe(0)
  }, 120_000)

  it('searchgym.openenv (with and without the openenv stand-in) and the TRL example against the same server', async () => {
    const multi = walks.find((t) => t.searches.length >= 2)!
    const fx = join(tmp, 'python.json')
    writeFileSync(fx, JSON.stringify({ oracle: [walks[2], walks[3], multi].map((t) => ({ qa_id: t.qaId, question: t.question, searches: t.searches, answer: t.answer })), questions: [] }))
    const r = await run(PYTHON, ['-m', 'unittest', '-v', 'test_openenv', 'test_trl_openenv'], { SEARCHGYM_TEST_URL: s.url, SEARCHGYM_TEST_TOKEN: TOKEN, SEARCHGYM_TEST_FIXTURE: fx }, 300_000, join(ROOT, 'python', 'tests'))
    expect({ code: r.code, tail: r.code === 0 ? '' : r.out.slice(-5000) }).toEqual({ code: 0, tail: '' })
    expect(r.out).not.toMatch(/\.\.\. skipped/)
    for (const t of ['test_episodes_without_openenv', 'test_episodes_with_the_openenv_standin_and_the_same_answers', 'test_scripted_completions_get_the_gyms_f1', 'test_compiles_and_imports_only_trls_exports', 'test_ping_fragments_and_close'])
      expect(r.out).toMatch(new RegExp(`${t} .* \\.\\.\\. ok`))
    expect(await waitNoEnvs()).toBe(0)
  }, 300_000)

  it("world export --format openenv: the folder OpenEnv's CLI checks; its server/app.py serves the world to its own client", async () => {
    const out = join(tmp, 'export', 'search_gym')
    const ex = await runCli(['world', 'export', dir, '--format', 'openenv', '--out', out])
    expect({ code: ex.code, err: ex.stderr }).toEqual({ code: 0, err: '' })
    for (const f of ['openenv.yaml', 'pyproject.toml', 'README.md', '__init__.py', 'client.py', 'models.py', '_ws.py', 'server/__init__.py', 'server/app.py', 'server/Dockerfile', 'world/world.db'])
      expect(existsSync(join(out, f))).toBe(true)
    expect(readFileSync(join(out, 'client.py'), 'utf8')).toBe(readFileSync(join(ROOT, 'python', 'src', 'searchgym', 'openenv.py'), 'utf8'))
    expect(readFileSync(join(out, 'openenv.yaml'), 'utf8')).toMatch(/^name: search_gym$/m)
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toMatch(/^---\n[\s\S]*^sdk: docker$[\s\S]*^ {2}- openenv$[\s\S]*^---$/m)
    // OpenEnv's local check (cli/_validation.py:468-543, :430-465), replicated: only uv.lock is missing (`uv lock` writes it).
    const check = await run(PYTHON, ['-c', VALIDATE_LOCAL, out])
    expect({ code: check.code, out: check.out.trim() }).toEqual({ code: 0, out: JSON.stringify(["Missing uv.lock - run 'uv lock' to generate it"]) })
    // A second export into the same folder is refused in one line.
    const twice = await runCli(['world', 'export', dir, '--format', 'openenv', '--out', out])
    expect(twice.code).not.toBe(0)
    expect(twice.stderr.trim().split('\n')).toHaveLength(1)
    // server/app.py runs gym serve (SEARCHGYM: this checkout's CLI) on the copy; the exported client plays an episode.
    const app = spawn(PYTHON, [join(out, 'server', 'app.py'), '--host', '127.0.0.1', '--port', '0'], { env: { ...process.env, SEARCHGYM: `${process.execPath} ${BIN}`, SEARCHGYM_TOKEN: '' }, stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    const url = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`app.py did not serve: ${err}`)), 120_000)
      app.stderr!.on('data', (d: Buffer) => {
        err += d.toString()
        const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(err)
        if (m) {
          clearTimeout(t)
          resolve(m[1])
        }
      })
      app.once('exit', (code) => reject(new Error(`app.py exited ${code}: ${err}`)))
    })
    try {
      const play = await run(PYTHON, ['-c', PLAY_EXPORTED, url, walks[0].qaId, walks[0].answer!], { PYTHONPATH: join(tmp, 'export') }, 60_000)
      expect({ code: play.code, out: play.out.trim() }).toEqual({ code: 0, out: `${walks[0].question}\n1 True` })
    } finally {
      await new Promise<void>((r) => {
        if (app.exitCode !== null) return r()
        app.once('exit', () => r())
        app.kill('SIGTERM')
      })
    }
  }, 200_000)
})

/** cli/_validation.py:468-543 (validate_multi_mode_deployment) with :430-465 (_has_main_guard_call), on a folder. */
const VALIDATE_LOCAL = String.raw`
import ast, json, sys, tomllib
from pathlib import Path
env = Path(sys.argv[1]); issues = []
pp = env / "pyproject.toml"
if not (env / "uv.lock").exists():
    issues.append("Missing uv.lock - run 'uv lock' to generate it")
project = tomllib.load(open(pp, "rb")).get("project", {})
scripts = project.get("scripts", {})
if "server" not in scripts:
    issues.append("Missing [project.scripts] server entry point")
if scripts.get("server") and ":main" not in scripts["server"]:
    issues.append("Server entry point should reference main function")
deps = [d.lower() for d in project.get("dependencies", [])]
if not any(d.startswith("openenv") for d in deps):
    issues.append("Missing required dependency: openenv-core>=0.2.0 (or openenv>=0.2.0)")
app = env / "server" / "app.py"
src = app.read_text(encoding="utf-8")
if "def main(" not in src:
    issues.append("server/app.py missing main() function")
def guarded(src):
    for node in ast.iter_child_nodes(ast.parse(src)):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__":
            for g in node.body:
                for c in ast.walk(g):
                    if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "main":
                        return True
    return False
if not guarded(src):
    issues.append("server/app.py main() function not callable (missing if __name__ == '__main__')")
if not ((env / "server" / "Dockerfile").exists() or (env / "Dockerfile").exists()):
    issues.append("no Dockerfile")
print(json.dumps(issues))
`

const PLAY_EXPORTED = String.raw`
import sys
from search_gym import SearchGymAction, SearchGymEnv
url, qa_id, answer = sys.argv[1:4]
with SearchGymEnv(base_url=url).sync() as env:
    r = env.reset(qa_id=qa_id)
    print(r.observation.question)
    r = env.step(SearchGymAction(tool_name="answer", arguments={"answer": answer}))
    print(r.reward, r.done)
`
