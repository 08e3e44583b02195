// tests/gym-workers: `searchgym gym serve --workers 2` for real (child processes, loopback HTTP, the shared tiny world).
// Over ONE keep-alive connection (so every request reaches the same worker) creates still spread over both workers and
// every step reaches its env's owner: the same seeded episodes give the same step results as `--workers 1`. /health
// lists the workers (with the token; without it, only {"status":"up"}); the guards (token, Host, Origin, content type)
// hold on every worker; a SIGKILLed worker is reported (/health "degraded"), its envs answer 503 env.worker_down at
// once, and it comes back as a new process that serves; a worker that cannot start is retried with a growing back-off,
// not in a loop; SIGTERM — or a SIGKILLed primary — leaves no worker alive (and no socket folder).
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { Agent, request } from 'node:http'
import { join } from 'node:path'
import { sharedTinyWorld } from './helpers/shared-world'
import { startGymServe, type GymServeProcess } from './helpers/gym-serve-process'
import { runCli } from './helpers/cli-process'
import { Rng } from '../infra/rng'

const TOKEN = 'workers-test-token'

interface Reply {
  status: number
  json: Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A node:http client over one keep-alive socket (maxSockets 1): every call reaches the worker that took it. */
function oneConnection(base: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const u = new URL(base)
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
      const h: Record<string, string> = { ...headers }
      if (data !== undefined) {
        h['content-length'] = String(Buffer.byteLength(data))
        h['content-type'] ??= 'application/json'
      }
      const req = request({ agent, host: u.hostname, port: u.port, method, path, headers: h }, (res) => {
        let t = ''
        res.on('data', (d: Buffer) => (t += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: t ? (JSON.parse(t) as Reply['json']) : {} }))
      })
      req.on('error', reject)
      req.end(data)
    })
  return { call, close: () => agent.destroy() }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function waitFor(cond: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const t0 = Date.now()
  while (Date.now() - t0 < ms) {
    if (await cond()) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return cond()
}

/** A step result or episode stats without the timings (the only fields that differ between two runs). */
const comparable = (r: unknown): unknown =>
  Array.isArray(r) ? r.map(comparable) : r && typeof r === 'object' ? Object.fromEntries(Object.entries(r).filter(([k]) => !/latency|_ms$/.test(k)).map(([k, v]) => [k, comparable(v)])) : r

/** Seeded episodes: search words drawn by Rng(seed, episode), access a URL the search showed, answer. */
async function episodes(c: ReturnType<typeof oneConnection>, qaIds: string[], seed: number): Promise<{ ids: string[]; steps: unknown[][] }> {
  const ids: string[] = []
  const steps = await Promise.all(
    qaIds.map(async (qaId, e) => {
      const rng = Rng.derive(seed, 'workers-episode', e)
      const made = await c.call('POST', '/v1/envs', { qaId })
      expect(made.status).toBe(201)
      ids[e] = made.json.envId as string
      const question = String((made.json.observation as { content: string }[]).at(-1)!.content)
      const words = question.split(/\W+/).filter((w) => w.length > 3)
      const out: unknown[] = []
      const step = async (action: string) => {
        const r = await c.call('POST', `/v1/envs/${ids[e]}/step`, { action })
        expect(r.status).toBe(200)
        out.push(comparable(r.json))
        return r.json
      }
      const query = Array.from({ length: 3 }, () => words[rng.int(0, words.length - 1)]).join(' ')
      const s1 = await step(`<tool_call>{"name":"search","arguments":{"query":${JSON.stringify(query)}}}</tool_call>`)
      const url = /URL: (\S+)/.exec((s1.observation as { content: string }[]).map((m) => m.content).join('\n'))?.[1] ?? 'nowhere'
      await step(`<tool_call>{"name":"access","arguments":{"url":${JSON.stringify(url)}}}</tool_call>`)
      await step(`<answer>${words[rng.int(0, words.length - 1)]}</answer>`)
      const closed = await c.call('DELETE', `/v1/envs/${ids[e]}`)
      expect(closed.status).toBe(200)
      out.push(comparable(closed.json.stats))
      return out
    }),
  )
  return { ids, steps }
}

describe('gym serve --workers 2', () => {
  let two: GymServeProcess
  let one: GymServeProcess
  let qaIds: string[]
  beforeAll(async () => {
    const w = await sharedTinyWorld()
    ;[two, one] = await Promise.all([startGymServe(w.dir, ['--workers', '2', '--token', TOKEN]), startGymServe(w.dir, ['--workers', '1', '--token', TOKEN])])
    const c = oneConnection(one.url)
    qaIds = ((await c.call('GET', '/v1/qa?limit=12')).json.items as { id: string }[]).map((q) => q.id)
    c.close()
  }, 300_000)
  afterAll(async () => {
    await Promise.all([two?.stop(), one?.stop()])
  })

  it('/health lists both workers, alive, each its own process; without the token only {"status":"up"}; --workers 1 has no worker list', async () => {
    const c = oneConnection(two.url)
    const h = (await c.call('GET', '/health')).json
    const open = await c.call('GET', '/health', undefined, {})
    c.close()
    expect(open).toEqual({ status: 200, json: { status: 'up' } })
    expect(h.status).toBe('ok')
    expect(h.workers.count).toBe(2)
    expect(h.workers.alive).toBe(2)
    const pids = (h.workers.list as { pid: number }[]).map((w) => w.pid)
    expect(new Set(pids).size).toBe(2)
    expect(pids).not.toContain(two.proc.pid)
    for (const p of pids) expect(alive(p)).toBe(true)
    const c1 = oneConnection(one.url)
    const h1 = (await c1.call('GET', '/health')).json
    c1.close()
    expect(h1.workers).toBeUndefined()
    expect(h1.envs).toBe(0)
  })

  it('over one connection, envs are created on both workers and seeded episodes match --workers 1 step for step', async () => {
    const c2 = oneConnection(two.url)
    const c1 = oneConnection(one.url)
    try {
      const [a, b] = await Promise.all([episodes(c2, qaIds, 7), episodes(c1, qaIds, 7)])
      expect(new Set(a.ids.map((id) => /^env_w(\d)_/.exec(id)?.[1]))).toEqual(new Set(['0', '1']))
      expect(b.ids.every((id) => /^env_[0-9a-f]{24}$/.test(id))).toBe(true)
      expect(a.steps).toEqual(b.steps)
      // Every env was closed on its owner.
      expect((await c2.call('GET', '/health')).json.envs).toBe(0)
    } finally {
      c2.close()
      c1.close()
    }
  }, 120_000)

  it('idleSeconds reaches the worker that builds the env (created on both); /health sums what each reaped', async () => {
    const c = oneConnection(two.url)
    try {
      const before = (await c.call('GET', '/health')).json
      const ids = await Promise.all([0, 1].map(async () => (await c.call('POST', '/v1/envs', { qaId: qaIds[0], idleSeconds: 1 })).json.envId as string))
      expect(new Set(ids.map((id) => /^env_w(\d)_/.exec(id)?.[1]))).toEqual(new Set(['0', '1']))
      expect(await waitFor(async () => (await c.call('GET', '/health')).json.reaped === before.reaped + 2, 5000)).toBe(true)
      const h = (await c.call('GET', '/health')).json
      expect(h.envs).toBe(before.envs)
      expect((h.workers.list as { reaped: number }[]).map((w) => w.reaped).reduce((a, b) => a + b, 0)).toBe(h.reaped)
      for (const id of ids) expect((await c.call('POST', `/v1/envs/${id}/step`, { action: '<answer>x</answer>' })).json.error.code).toBe('env.expired')
    } finally {
      c.close()
    }
  }, 30_000)

  it('the guards hold on every worker: token, foreign Host, cross-site Origin, text/plain; a bad option is a 400 before any worker', async () => {
    // Fresh connections land on either worker: ask enough times that both answer.
    const seen = new Set<number>()
    for (let i = 0; i < 8; i++) {
      const c = oneConnection(two.url)
      const made = await c.call('POST', '/v1/envs', { qaId: qaIds[0] })
      expect(made.status).toBe(201)
      const id = made.json.envId as string
      seen.add(Number(/^env_w(\d)_/.exec(id)![1]))
      expect((await c.call('POST', `/v1/envs/${id}/step`, { action: '<answer>x</answer>' }, {})).status).toBe(401)
      expect((await c.call('POST', `/v1/envs/${id}/step`, { action: 'x' }, { authorization: `Bearer ${TOKEN}`, host: 'evil.example' })).status).toBe(421)
      expect((await c.call('POST', `/v1/envs/${id}/step`, { action: 'x' }, { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' })).status).toBe(403)
      expect((await c.call('POST', `/v1/envs/${id}/step`, JSON.stringify({ action: 'x' }), { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' })).status).toBe(415)
      const bad = await c.call('POST', '/v1/envs', { qaId: qaIds[0], options: { nope: 1 } })
      expect(bad.status).toBe(400)
      expect(bad.json.error.code).toBe('config.unknown_key')
      expect((await c.call('DELETE', `/v1/envs/${id}`)).status).toBe(200)
      c.close()
    }
    expect(seen).toEqual(new Set([0, 1]))
  }, 60_000)

  it('a SIGKILLed worker: /health "degraded", its envs 503 env.worker_down at once; then a new process at its index serves', async () => {
    const c = oneConnection(two.url)
    const ids: string[] = []
    for (let i = 0; i < 4; i++) ids.push((await c.call('POST', '/v1/envs', { qaId: qaIds[i] })).json.envId as string)
    const h = (await c.call('GET', '/health')).json
    const victim = (h.workers.list as { index: number; pid: number }[])[1]
    process.kill(victim.pid, 'SIGKILL')
    expect(await waitFor(() => !alive(victim.pid), 5000)).toBe(true)
    let c2 = c
    const reply = async (method: string, path: string, body?: unknown) => {
      try {
        return await c2.call(method, path, body)
      } catch {
        // The connection was the killed worker's: a fresh one lands on the live worker.
        c2 = oneConnection(two.url)
        return c2.call(method, path, body)
      }
    }
    // Down: degraded (still 200 — the other worker serves), listed not alive; its envs fail at once.
    expect(await waitFor(async () => (await reply('GET', '/health')).json.status === 'degraded', 5000)).toBe(true)
    const down = await reply('GET', '/health')
    expect(down.status).toBe(200)
    expect(down.json.workers).toMatchObject({ count: 2, alive: 1 })
    expect(down.json.workers.list[1]).toMatchObject({ index: 1, alive: false, envs: null })
    const anon = oneConnection(two.url)
    expect(await anon.call('GET', '/health', undefined, {})).toEqual({ status: 200, json: { status: 'up' } })
    anon.close()
    for (const id of ids) {
      const t0 = performance.now()
      const r = await reply('POST', `/v1/envs/${id}/step`, { action: '<answer>x</answer>' })
      expect(performance.now() - t0).toBeLessThan(2000)
      if (id.startsWith('env_w1_')) {
        expect(r.status).toBe(503)
        expect(r.json.error.code).toBe('env.worker_down')
      } else expect(r.status).toBe(200)
    }
    expect(two.stderr()).toMatch(new RegExp(`worker 1 \\(pid ${victim.pid}\\) exited \\(SIGKILL\\).*restarting it in 0\\.5 s`))
    // Back: a new pid at index 1, status ok, one restart counted.
    expect(await waitFor(async () => (await reply('GET', '/health')).json.status === 'ok', 60_000)).toBe(true)
    const back = (await reply('GET', '/health')).json
    const fresh = back.workers.list[1] as { pid: number; alive: boolean; restarts: number }
    expect(fresh).toMatchObject({ alive: true, restarts: 1 })
    expect(fresh.pid).not.toBe(victim.pid)
    expect(alive(fresh.pid)).toBe(true)
    expect(two.stderr()).toMatch(new RegExp(`worker 1 restarted \\(pid ${fresh.pid}\\); 2 of 2 workers up`))
    // It serves: creates go to both workers again, and a step of an env on the new worker answers (forwarded or not).
    const made: string[] = []
    for (let i = 0; i < 4; i++) {
      const r = await reply('POST', '/v1/envs', { qaId: qaIds[i] })
      expect(r.status).toBe(201)
      made.push(r.json.envId as string)
    }
    const onNew = made.filter((id) => id.startsWith('env_w1_'))
    expect(onNew.length).toBeGreaterThan(0)
    for (const id of onNew) expect((await reply('POST', `/v1/envs/${id}/step`, { action: '<answer>x</answer>' })).status).toBe(200)
    // A fresh connection can land on the new process itself: every one answers.
    const seen = new Set<number>()
    for (let i = 0; i < 8; i++) {
      const c3 = oneConnection(two.url)
      const r = await c3.call('POST', '/v1/envs', { qaId: qaIds[0] })
      expect(r.status).toBe(201)
      seen.add(Number(/^env_w(\d)_/.exec(r.json.envId as string)![1]))
      await c3.call('DELETE', `/v1/envs/${r.json.envId as string}`)
      c3.close()
    }
    expect(seen).toEqual(new Set([0, 1]))
    // The old worker's envs died with it: the new process never had them.
    const old = ids.find((id) => id.startsWith('env_w1_'))
    if (old) {
      const gone = (await reply('POST', `/v1/envs/${old}/step`, { action: '<answer>x</answer>' })).json.error
      expect(gone.code).toBe('env.not_found')
      expect(gone.message).toContain('worker 1 was restarted once; envs made before a restart are lost')
    }
    for (const id of [...made, ...ids.filter((x) => x.startsWith('env_w0_'))]) await reply('DELETE', `/v1/envs/${id}`)
    c2.close()
    c.close()
  }, 120_000)

  it('SIGTERM stops the primary and every worker (no orphans)', async () => {
    const c = oneConnection(two.url)
    const pids = ((await c.call('GET', '/health')).json.workers.list as { pid: number; alive: boolean }[]).filter((w) => w.alive).map((w) => w.pid)
    c.close()
    expect(pids.length).toBeGreaterThan(0)
    await two.stop()
    expect(two.proc.exitCode).toBe(0)
    expect(await waitFor(() => pids.every((p) => !alive(p)), 5000)).toBe(true)
  }, 30_000)
})

test('a SIGKILLed primary takes its workers with it', async () => {
  const w = await sharedTinyWorld()
  const s = await startGymServe(w.dir, ['--workers', '2'])
  const c = oneConnection(s.url)
  const pids = ((await c.call('GET', '/health', undefined, {})).json.workers.list as { pid: number }[]).map((x) => x.pid)
  c.close()
  expect(pids.every(alive)).toBe(true)
  // The workers' socket folder, from a worker's environment (Linux /proc).
  const env = readFileSync(`/proc/${pids[0]}/environ`, 'utf8').split('\0')
  const dir = env.find((kv) => kv.startsWith('SEARCHGYM_GYM_PEER_DIR='))!.slice('SEARCHGYM_GYM_PEER_DIR='.length)
  expect(existsSync(join(dir, 'w0.sock'))).toBe(true)
  s.proc.kill('SIGKILL')
  expect(await waitFor(() => pids.every((p) => !alive(p)), 10_000)).toBe(true)
  // Nobody else is left to remove it: the exiting workers did.
  expect(existsSync(dir)).toBe(false)
}, 300_000)

test('a world no worker can open is one error line from the primary and a non-zero exit', async () => {
  const r = await runCli(['gym', 'serve', '/nonexistent/searchgym-world', '--workers', '2', '--port', '0'], 120_000)
  expect(r.code).not.toBe(0)
  const lines = r.stderr.trim().split('\n')
  expect(lines.filter((l) => l.startsWith('searchgym: error:'))).toHaveLength(1)
  expect(lines).toHaveLength(1)
}, 180_000)

test('a worker that cannot start again is retried with a doubling back-off, not in a loop; the other keeps serving', async () => {
  const w = await sharedTinyWorld()
  const root = mkdtempSync(join(tmpdir(), 'sg-workers-backoff-'))
  const dir = join(root, 'tiny')
  cpSync(w.dir, dir, { recursive: true })
  const s = await startGymServe(dir, ['--workers', '2'])
  try {
    const c = oneConnection(s.url)
    const victim = ((await c.call('GET', '/health')).json.workers.list as { pid: number }[])[1].pid
    // The running workers keep their open world; a replacement finds no world to open.
    renameSync(dir, join(root, 'moved'))
    process.kill(victim, 'SIGKILL')
    const tries = () => (s.stderr().match(/worker 1 .*restarting it in/g) ?? []).length
    expect(await waitFor(() => tries() >= 3, 30_000)).toBe(true)
    const waits = [...s.stderr().matchAll(/worker 1 .*restarting it in ([\d.]+) s/g)].map((m) => Number(m[1]))
    expect(waits.slice(0, 3)).toEqual([0.5, 1, 2])
    expect(s.stderr()).toMatch(/worker 1 \(pid \d+\) could not start \(.+\)/)
    // Not a loop: ~3.5 s of back-off for three tries.
    expect(tries()).toBeLessThan(6)
    let c2 = oneConnection(s.url)
    const health = async () => {
      try {
        return (await c2.call('GET', '/health')).json
      } catch {
        c2 = oneConnection(s.url)
        return (await c2.call('GET', '/health')).json
      }
    }
    const h = await health()
    expect(h.status).toBe('degraded')
    expect(h.workers.alive).toBe(1)
    expect(s.proc.exitCode).toBeNull()
    c2.close()
    c.close()
  } finally {
    await s.stop()
    rmSync(root, { recursive: true, force: true })
  }
}, 120_000)

test('every worker SIGKILLed at once (--port 0): they come back on the same port', async () => {
  const w = await sharedTinyWorld()
  const s = await startGymServe(w.dir, ['--workers', '2'])
  try {
    const c = oneConnection(s.url)
    const pids = ((await c.call('GET', '/health')).json.workers.list as { pid: number }[]).map((x) => x.pid)
    c.close()
    for (const p of pids) process.kill(p, 'SIGKILL')
    expect(await waitFor(() => pids.every((p) => !alive(p)), 5000)).toBe(true)
    const ok = async () => {
      const c2 = oneConnection(s.url)
      try {
        const h = (await c2.call('GET', '/health')).json
        return h.status === 'ok' && (h.workers.list as { pid: number | null; alive: boolean }[]).every((x) => x.alive && x.pid !== null && !pids.includes(x.pid))
      } catch {
        return false // nobody listens yet
      } finally {
        c2.close()
      }
    }
    expect(await waitFor(ok, 60_000)).toBe(true)
    expect(await waitFor(() => /2 of 2 workers up/.test(s.stderr()), 5000)).toBe(true)
  } finally {
    await s.stop()
  }
}, 120_000)
