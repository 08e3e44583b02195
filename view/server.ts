// view/server: the viewer's HTTP side (hono on @hono/node-server) — the JSON API over one world and the run folders,
// and the page's static files. Binds 127.0.0.1 unless told otherwise. Every error is JSON {error: {message, code}}
// with a 4xx/5xx status (infra/http's kit), never a stack trace.
import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { Hono, type Context } from 'hono'
import { SearchGymError, oneLine } from '../infra/errors'
import { errorBody, HttpError } from '../infra/http/errors'
import { ensurePageBundle, PAGE_FILES } from './bundle'
import { OracleTracer } from './oracle-trace'
import { OUTCOMES, type Outcome, type RunFolder } from './runs'
import { trajectoryView } from './trajectory'
import type { QuestionView } from './types'
import { paging, type WorldData } from './world-data'

export interface ViewSources {
  world: WorldData | null
  runs: RunFolder[]
}

function intParam(v: string | undefined, name: string): number | undefined {
  if (v === undefined || v === '') return undefined
  const n = Number(v)
  if (!Number.isInteger(n)) throw new HttpError(400, 'view.bad_param', `${name} must be an integer, got ${JSON.stringify(v)}`, name)
  return n
}

export function createViewApp(src: ViewSources): { app: Hono; close(): Promise<void> } {
  const app = new Hono()
  const tracer = src.world ? new OracleTracer(src.world) : null
  const needWorld = (): WorldData => {
    if (!src.world) throw new HttpError(404, 'view.no_world', 'no world loaded: start the viewer with --world DIR (a built world folder)')
    return src.world
  }
  const runByName = (name: string): RunFolder => {
    const r = src.runs.find((x) => x.name === name)
    if (!r) throw new HttpError(404, 'view.unknown_run', `no run named '${name}'; loaded runs: ${src.runs.map((x) => x.name).join(', ') || 'none (start the viewer with --runs DIR...)'}`)
    return r
  }
  const page = (c: Context) => paging(c.req.query('offset'), c.req.query('limit'))

  app.onError((err, c) => {
    if (err instanceof HttpError) return c.json(err.body(), err.status)
    if (err instanceof SearchGymError) return c.json(errorBody(400, err.code, oneLine(err)), 400)
    return c.json(errorBody(500, 'view.internal', oneLine(err)), 500)
  })
  app.notFound((c) => c.json(errorBody(404, 'view.not_found', `no such page or API route: ${c.req.path}`), 404))

  app.get('/api/info', (c) => c.json({ world: src.world?.info() ?? null, runs: src.runs.map((r) => r.info()) }))

  app.get('/api/entities', (c) => {
    const { offset, limit } = page(c)
    return c.json(needWorld().searchEntities(c.req.query('q') ?? '', c.req.query('type') || undefined, offset, limit))
  })
  app.get('/api/entities/:id', (c) => {
    const { offset, limit } = paging(c.req.query('offset'), c.req.query('limit'), 25)
    return c.json(needWorld().entity(c.req.param('id'), offset, limit))
  })

  app.get('/api/questions', (c) => {
    const { offset, limit } = page(c)
    const q = c.req.query()
    return c.json(needWorld().questions({ split: q.split || undefined, type: q.type || undefined, hops: intParam(q.hops, 'hops'), entity: q.entity || undefined, text: q.text || undefined }, offset, limit))
  })
  app.get('/api/questions/:id', (c) => {
    const id = c.req.param('id')
    const runs: QuestionView['runs'] = src.runs.flatMap((r) => {
      const t = r.has(id)
      return t ? [{ run: r.name, f1: t.f1, em: t.em, status: t.status, stopReason: t.stopReason }] : []
    })
    return c.json(needWorld().question(id, runs))
  })
  app.get('/api/questions/:id/oracle', async (c) => {
    const w = needWorld()
    const qa = w.qaRow(c.req.param('id'))
    if (!qa) throw new HttpError(404, 'view.unknown_question', `no question with id '${c.req.param('id')}' in this world`)
    return c.json(trajectoryView('oracle (live)', await tracer!.trace(qa), qa.docs))
  })

  app.get('/api/runs', (c) => c.json(src.runs.map((r) => r.info())))
  app.get('/api/runs/:run/trajectories', (c) => {
    const r = runByName(c.req.param('run'))
    const { offset, limit } = page(c)
    const q = c.req.query()
    if (q.outcome && !OUTCOMES.includes(q.outcome as Outcome)) throw new HttpError(400, 'view.bad_param', `outcome must be one of ${OUTCOMES.join(', ')}, got ${JSON.stringify(q.outcome)}`, 'outcome')
    return c.json(r.listTrajectories({ outcome: (q.outcome || undefined) as Outcome | undefined, type: q.type || undefined, hops: intParam(q.hops, 'hops') }, offset, limit))
  })
  app.get('/api/runs/:run/trajectories/:id', (c) => {
    const r = runByName(c.req.param('run'))
    const rec = r.trajectory(c.req.param('id'))
    const gold = src.world?.qaRow(rec.id)?.docs ?? []
    return c.json(trajectoryView(r.name, rec, gold))
  })
  app.get('/api/runs/:run/summary', (c) => {
    const r = runByName(c.req.param('run'))
    const s = r.summary()
    if (!s) throw new HttpError(404, 'view.no_summary', `run '${r.name}' has no summary.json${r.kind === 'bench' ? ' yet: run searchgym bench report ' + r.dir : ' (a training run)'}`)
    return c.json(s)
  })
  app.get('/api/curves', (c) => {
    const names = (c.req.query('runs') ?? '').split(',').filter(Boolean)
    return c.json((names.length ? names.map(runByName) : src.runs.filter((r) => r.kind === 'train')).map((r) => r.curves()))
  })

  const types: Record<string, string> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' }
  const file = (name: keyof typeof PAGE_FILES) => (c: Context) => {
    const ext = name.split('.').pop()!
    return c.body(readFileSync(PAGE_FILES[name]), 200, { 'content-type': types[ext], 'cache-control': 'no-cache' })
  }
  app.get('/', file('index.html'))
  app.get('/app.js', file('app.js'))
  app.get('/app.css', file('app.css'))

  return { app, close: async () => tracer?.close() }
}

export interface RunningViewer {
  url: string
  port: number
  close(): Promise<void>
}

/** Bundle the page if needed, then listen on host:port (port 0: any free port). */
export async function startViewer(src: ViewSources, opts: { host: string; port: number }): Promise<RunningViewer> {
  await ensurePageBundle()
  const { app, close } = createViewApp(src)
  return new Promise((resolve, reject) => {
    const srv = serve({ fetch: app.fetch, hostname: opts.host, port: opts.port }, (info: AddressInfo) => {
      const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host
      resolve({
        url: `http://${host}:${info.port}/`,
        port: info.port,
        close: async () => {
          await new Promise<void>((done) => srv.close(() => done()))
          await close()
        },
      })
    })
    srv.once('error', reject)
  })
}
