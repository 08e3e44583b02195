// tests/gym-health-starting: what /health says while `gym serve --workers N` is coming up, and what a launch script reads
// from it. A worker answers as soon as it listens (node:cluster hands it connections at once) while its peers may still
// be starting; until the primary has said that every worker is up (the first WorkerState list, sent once all are
// ready: gym/cli/serve-workers.ts), /health is 503 `server.starting` — with or without the token, so a load balancer or a
// launch script's wait never takes a half-started server for a ready one. Once started, a worker that dies later is
// "degraded" (200: the others serve). /health names the serving process (pid: the primary's under --workers) and the
// world's content hash, which the launch scripts compare with their own gym's pid and the exported world's hash. A 429
// env.limit carries Retry-After.
import { FIXTURE_QA, openFixtureWorld } from './fixtures/gym-fixture-world'
import { startGymServer, type RunningGymServer, type SessionsFactory } from '../gym/server'
import { ClusterEnvSessions } from '../gym/cluster-sessions'
import { LocalEnvSessions } from '../gym/env-sessions'
import { join } from 'node:path'
import { tmpdir } from 'node:os'

type J = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const get = async (s: RunningGymServer, path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(s.url + path, { headers })
  return { status: res.status, json: (await res.json()) as J, retryAfter: res.headers.get('retry-after') }
}

describe('/health of a worker whose peers are still starting', () => {
  let s: RunningGymServer
  let cluster: ClusterEnvSessions
  beforeAll(async () => {
    // Worker 0 of 2; worker 1's peer socket does not exist (not listening yet).
    const sessions: SessionsFactory = (w, o, envDefaults) => {
      const local = new LocalEnvSessions(w, envDefaults, 4, o.envIdleMs, 'env_w0_')
      cluster = new ClusterEnvSessions(w, local, { index: 0, count: 2, socketPath: (i) => join(tmpdir(), `sg-health-starting-${process.pid}-w${i}.sock`) })
      return { sessions: cluster, registry: local.registry }
    }
    s = await startGymServer(Object.assign(openFixtureWorld(), { hash: 'abc123' }), { token: 'tok', maxEnvs: 4, sessions })
  })
  afterAll(() => s.close())

  it('is 503 server.starting until the primary says every worker is up, with the token or without', async () => {
    const withToken = await get(s, '/health', { authorization: 'Bearer tok' })
    expect(withToken.status).toBe(503)
    expect(withToken.json.error.code).toBe('server.starting')
    expect((await get(s, '/health')).status).toBe(503)
    cluster.setWorkers([
      { index: 0, pid: process.pid, up: true, restarts: 0 },
      { index: 1, pid: 4242, up: true, restarts: 0 },
    ])
    expect((await get(s, '/health')).json).toEqual({ status: 'up' })
    const ok = await get(s, '/health', { authorization: 'Bearer tok' })
    expect(ok.status).toBe(200)
    // Worker 1 does not answer its peer call: "degraded", still 200 (the primary said it is up; it is not reachable).
    expect(ok.json).toMatchObject({ status: 'degraded', world: 'fixture', worldHash: 'abc123', pid: process.pid, qa: FIXTURE_QA.length })
  })
})

describe('one process', () => {
  let s: RunningGymServer
  beforeAll(async () => {
    s = await startGymServer(openFixtureWorld(), { maxEnvs: 1 })
  })
  afterAll(() => s.close())

  it('/health names the serving process; a 429 env.limit says when to come back (Retry-After: 1)', async () => {
    expect((await get(s, '/health')).json).toEqual({ status: 'ok', world: 'fixture', qa: FIXTURE_QA.length, envs: 0, reaped: 0, pid: process.pid })
    const post = () => fetch(`${s.url}/v1/envs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ qaId: FIXTURE_QA[0].id }) })
    const first = await post()
    expect(first.status).toBe(201)
    const full = await post()
    expect(full.status).toBe(429)
    expect(full.headers.get('retry-after')).toBe('1')
    expect(((await full.json()) as J).error.code).toBe('env.limit')
  })
})
