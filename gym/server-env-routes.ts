// gym/server-env-routes: the gym server's env API — /health (open and reaped envs, workers), /v1/qa (question metadata,
// never answers) and the env sessions (/v1/envs: create by QA id or split + index, step, close). The sessions are
// gym/env-sessions' (this process's or routed between workers); this file maps HTTP onto them. Loaded when a server is
// made (it imports the zod schemas).
import cluster from 'node:cluster'
import type { Context, Hono } from 'hono'
import { errorBody, HttpError } from '../infra/http/errors'
import type { Qa, Split } from '../world'
import type { EnvSessions } from './env-sessions'
import { checkBody, toAction, type GymSchemas } from './server-schemas'
import { jsonBody } from './server-validate'
import type { GymWorld } from './world-view'

export interface EnvRouteDeps {
  world: GymWorld
  sessions: EnvSessions
  qaList(split?: Split): Qa[]
  schemas: GymSchemas
  authorized: (c: Context) => boolean
}

/** A 200 whose body is JSON text already (a step or close answer, possibly from another worker). */
const jsonText = (c: Context, text: string) => c.body(text, 200, { 'content-type': 'application/json' })

/** A question's metadata as clients see it (its answers stay on the server). */
const qaMeta = (q: Qa) => ({ id: q.id, type: q.type, hops: q.hops, split: q.split, question: q.question })

export function mountEnvRoutes(app: Hono, r: EnvRouteDeps): void {
  mountHealth(app, r)
  app.get('/v1/qa', (c) => listQa(c, r))
  app.post('/v1/envs', (c) => createEnv(c, r))
  app.post('/v1/envs/:id/step', async (c) => {
    const a = toAction(checkBody(r.schemas.step, await jsonBody(c)).action)
    return jsonText(c, await r.sessions.step(c.req.param('id'), a))
  })
  const close = async (c: Context) => jsonText(c, await r.sessions.close(c.req.param('id') ?? ''))
  app.delete('/v1/envs/:id', close)
  app.post('/v1/envs/:id/close', close)
}

// Public, for load balancers: with a token set, an unauthenticated /health answers only that the server is up (no world,
// counts or pids, and no call to another worker); with the token (or without one set), the detail (open envs, envs reaped
// by idle expiry since start, the world's content hash, the serving process's pid — the primary's under --workers N):
// "degraded" while a worker of --workers N is down (still 200: the other workers serve; a server with none up does not
// answer at all). 503 server.starting while a worker's peers are still coming up, with the token or without.
function mountHealth(app: Hono, { world, sessions, qaList, authorized }: EnvRouteDeps): void {
  const servingPid = cluster.isWorker ? process.ppid : process.pid
  app.get('/health', async (c) => {
    if (sessions.starting?.()) return c.json(errorBody(503, 'server.starting', 'gym serve is starting: not every worker is up yet'), 503)
    if (!authorized(c)) return c.json({ status: 'up' })
    const h = await sessions.health()
    // Degraded while a worker is down or up but silent (each is named in workers.list: alive, responding, silentSince).
    const status = h.workers && h.workers.responding < h.workers.count ? 'degraded' : 'ok'
    return c.json({ status, world: world.name, ...(world.hash ? { worldHash: world.hash } : {}), qa: qaList().length, ...h, pid: servingPid })
  })
}

function listQa(c: Context, r: EnvRouteDeps) {
  const split = c.req.query('split')
  if (split !== undefined && split !== 'train' && split !== 'bench')
    throw new HttpError(400, 'request.bad_field', 'split must be train or bench')
  const num = (k: string, d: number, hi: number) => {
    const v = c.req.query(k)
    if (v === undefined) return d
    const n = Number(v)
    if (!Number.isInteger(n) || n < 0 || n > hi) throw new HttpError(400, 'request.bad_field', `${k} must be an integer in [0, ${hi}]`)
    return n
  }
  const all = r.qaList(split as Split | undefined)
  const offset = num('offset', 0, Number.MAX_SAFE_INTEGER)
  const limit = num('limit', 100, 10_000)
  // Question metadata only: answers stay on the server.
  const items = all.slice(offset, offset + limit).map(qaMeta)
  return c.json({ total: all.length, offset, items })
}

async function createEnv(c: Context, r: EnvRouteDeps) {
  const b = checkBody(r.schemas.createEnv, await jsonBody(c))
  let qa
  if (b.qaId != null) {
    if (b.split != null || b.index != null) throw new HttpError(400, 'request.bad_body', 'give either qaId or split + index, not both')
    qa = r.world.qa(b.qaId)
    if (!qa) throw new HttpError(404, 'qa.not_found', `no QA with id ${JSON.stringify(b.qaId.slice(0, 100))}`)
  } else {
    if (b.split == null) throw new HttpError(400, 'request.missing_field', 'give qaId, or split (train or bench) + index', 'split')
    if (b.index == null) throw new HttpError(400, 'request.missing_field', 'the field "index" is required with split', 'index')
    const list = r.qaList(b.split)
    if (b.index >= list.length)
      throw new HttpError(404, 'qa.not_found', `split ${b.split} has ${list.length} questions; index ${b.index} is out of range`)
    qa = list[b.index]
  }
  const { envId, observation, tools } = await r.sessions.create(qa, b.options ?? {}, b.idleSeconds == null ? undefined : Math.round(b.idleSeconds * 1000))
  // The question's text beside its metadata (as /v1/qa lists it): a client need not dig it out of the observation.
  return c.json({ envId, qa: qaMeta(qa), observation, tools }, 201)
}
