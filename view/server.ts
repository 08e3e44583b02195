// view/server: the viewer's HTTP side (hono on @hono/node-server) — the JSON API over one world and the run folders,
// and the page's static files. Binds 127.0.0.1 unless told otherwise; every request passes infra/http's Host/Origin
// allowlist, every answer carries CSP, nosniff and frame-ancestors 'none', and the live oracle (it runs the env) only
// answers same-origin pages. Every error is JSON {error: {message, code}} with a 4xx/5xx status, never a stack trace.
// Run files are indexed in the background (view/runs); no request reads a whole trajectories.jsonl.
import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { Hono, type Context } from 'hono'
import { SearchGymError, oneLine } from '../infra/errors'
import { errorBody, HttpError } from '../infra/http/errors'
import { hostGuard } from '../infra/http/host-guard'
import { pairedComparison, type PairFilters } from './compare'
import type { ExperimentFolder } from './experiments'
import { stopIndexing } from './jsonl-index'
import { ensurePageBundle, PAGE_FILES } from './bundle'
import { OracleTracer } from './oracle-trace'
import { OUTCOMES, type Outcome, type RunFolder } from './runs'
import { TrajectoryPages, trajectoryView } from './trajectory'
import type { QuestionView } from './types'
import { paging, type WorldData } from './world-data'

export interface ViewSources {
  world: WorldData | null
  runs: RunFolder[]
  /** Experiment folders (their runs are in `runs` too). */
  experiments?: ExperimentFolder[]
}

function intParam(v: string | undefined, name: string): number | undefined {
  if (v === undefined || v === '') return undefined
  const n = Number(v)
  if (!Number.isInteger(n)) throw new HttpError(400, 'view.bad_param', `${name} must be an integer, got ${JSON.stringify(v)}`, name)
  return n
}

export interface ViewGuard {
  /** The address the server is bound to (decides which Host names are its own). */
  bindHost: string
  /** Extra Host names to accept (--allow-host; '*' any). */
  allowHosts?: string[]
}

const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#243447"/><circle cx="7" cy="7" r="3.5" fill="none" stroke="#f28e2b" stroke-width="1.8"/><path d="M9.6 9.6 13 13" stroke="#f28e2b" stroke-width="1.8" stroke-linecap="round"/></svg>'

export function createViewApp(src: ViewSources, guard: ViewGuard = { bindHost: '127.0.0.1' }): { app: Hono; close(): Promise<void> } {
  const app = new Hono()
  app.use('*', async (c, next) => {
    await next()
    c.header('content-security-policy', CSP)
    c.header('x-content-type-options', 'nosniff')
    c.header('x-frame-options', 'DENY')
    c.header('referrer-policy', 'no-referrer')
    c.header('cross-origin-resource-policy', 'same-origin')
  })
  app.use('*', hostGuard({ bindHost: guard.bindHost, allowHosts: guard.allowHosts }))
  for (const r of src.runs) r.refresh()
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

  const experiments = src.experiments ?? []
  const experimentByName = (name: string): ExperimentFolder => {
    const e = experiments.find((x) => x.name === name)
    if (!e) throw new HttpError(404, 'view.unknown_experiment', `no experiment named '${name}'; loaded experiments: ${experiments.map((x) => x.name).join(', ') || 'none (give searchgym view --runs an experiment folder, the --out of searchgym experiment run)'}`)
    return e
  }

  app.get('/api/info', (c) => c.json({ world: src.world?.info() ?? null, runs: src.runs.map((r) => r.info()), experiments: experiments.map((e) => e.summary()) }))

  app.get('/api/experiments', (c) => c.json(experiments.map((e) => e.summary())))
  app.get('/api/experiments/:name', (c) => c.json(experimentByName(c.req.param('name')).view()))
  app.get('/api/experiments/:name/curves', async (c) => {
    const e = experimentByName(c.req.param('name'))
    const q = c.req.query()
    const points = intParam(q.points, 'points') ?? 600
    if (points < 2 || points > 5000) throw new HttpError(400, 'view.bad_param', `points must be in [2, 5000], got ${points}`, 'points')
    return c.json(await e.curves((q.keys ?? '').split(',').filter(Boolean), points))
  })

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
  app.get('/api/questions/:id', async (c) => {
    const id = c.req.param('id')
    const w = needWorld()
    const runs: QuestionView['runs'] = (await Promise.all(src.runs.map(async (r) => [r, await r.has(id)] as const))).flatMap(([r, t]) =>
      t ? [{ run: r.name, f1: t.f1, em: t.em, status: t.status, stopReason: t.stopReason }] : [],
    )
    return c.json(w.question(id, runs))
  })
  app.get('/api/questions/:id/oracle', async (c) => {
    // It runs the env: only the viewer's own pages (a browser says where a request comes from) or a non-browser client.
    const site = c.req.header('sec-fetch-site')
    if (site !== undefined && site !== 'same-origin' && site !== 'none')
      return c.json(errorBody(403, 'view.cross_site', `the live oracle answers only the viewer's own pages (Sec-Fetch-Site: ${site.slice(0, 40)})`), 403)
    const w = needWorld()
    const qa = w.qaRow(c.req.param('id'))
    if (!qa) throw new HttpError(404, 'view.unknown_question', `no question with id '${c.req.param('id')}' in this world`)
    return c.json(trajectoryView('oracle (live)', await tracer!.trace(qa), qa.docs))
  })

  app.get('/api/runs', (c) => c.json(src.runs.map((r) => r.info())))
  app.get('/api/runs/:run/flagged', (c) => c.json(runByName(c.req.param('run')).flaggedLines()))
  app.get('/api/runs/:run/trajectories', (c) => {
    const r = runByName(c.req.param('run'))
    const { offset, limit } = page(c)
    const q = c.req.query()
    if (q.outcome && !OUTCOMES.includes(q.outcome as Outcome)) throw new HttpError(400, 'view.bad_param', `outcome must be one of ${OUTCOMES.join(', ')}, got ${JSON.stringify(q.outcome)}`, 'outcome')
    return c.json(r.listTrajectories({ outcome: (q.outcome || undefined) as Outcome | undefined, type: q.type || undefined, hops: intParam(q.hops, 'hops') }, offset, limit))
  })
  // Whole views of the last few trajectories opened (a 5,000-turn record is parsed and laid out once, then paged).
  const views = new Map<string, { rec: object; pages: TrajectoryPages }>()
  app.get('/api/runs/:run/trajectories/:id', async (c) => {
    const r = runByName(c.req.param('run'))
    const rec = await r.trajectory(c.req.param('id'))
    const key = `${r.name}\u0000${rec.id}`
    let hit = views.get(key)
    if (!hit || hit.rec !== rec) {
      const gold = src.world?.qaRow(rec.id)?.docs ?? []
      const info = r.info()
      hit = { rec, pages: new TrajectoryPages(r.name, rec, gold, { closedBook: info.closedBook, protocol: info.protocol }) }
      views.set(key, hit)
      if (views.size > 4) views.delete(views.keys().next().value!)
    }
    const q = c.req.query()
    const { offset, limit } = paging(q.turnOffset, q.turnLimit, 100)
    return c.json(hit.pages.page({ offset, limit, full: q.full === '1' }))
  })
  app.get('/api/compare', async (c) => {
    const q = c.req.query()
    if (!q.a || !q.b) throw new HttpError(400, 'view.bad_param', 'give two runs: /api/compare?a=RUN&b=RUN (b is compared against a)')
    const [a, b] = [runByName(q.a), runByName(q.b)]
    if (q.result && !['win', 'loss', 'tie', 'changed'].includes(q.result)) throw new HttpError(400, 'view.bad_param', `result must be one of win, loss, tie, changed, got ${JSON.stringify(q.result)}`, 'result')
    const { offset, limit } = page(c)
    try {
      return c.json(await pairedComparison(a, b, { type: q.type || undefined, hops: intParam(q.hops, 'hops'), result: (q.result || undefined) as PairFilters['result'] }, offset, limit))
    } catch (e) {
      if (e instanceof SearchGymError) throw new HttpError(400, e.code, oneLine(e))
      throw e
    }
  })
  app.get('/api/runs/:run/summary', (c) => {
    const r = runByName(c.req.param('run'))
    const s = r.summary()
    if (!s) throw new HttpError(404, 'view.no_summary', `run '${r.name}' has no summary.json${r.kind === 'bench' ? ' yet: run searchgym bench report ' + r.dir : ' (a training run)'}`)
    return c.json(s)
  })
  app.get('/api/curves', async (c) => {
    const q = c.req.query()
    const names = (q.runs ?? '').split(',').filter(Boolean)
    const x = q.x || 'step'
    if (x !== 'step' && x !== 'time') throw new HttpError(400, 'view.bad_param', `x must be step or time, got ${JSON.stringify(x)}`, 'x')
    const points = intParam(q.points, 'points') ?? 600
    if (points < 2 || points > 5000) throw new HttpError(400, 'view.bad_param', `points must be in [2, 5000], got ${points}`, 'points')
    const keys = (q.keys ?? '').split(',').filter(Boolean)
    const picked = names.length ? names.map(runByName) : src.runs.filter((r) => r.kind === 'train')
    // partial=1: what is indexed so far, at once (the page draws it and asks again until complete).
    return c.json(await Promise.all(picked.map((r) => r.curves(keys, x, points, q.partial === '1'))))
  })

  const types: Record<string, string> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' }
  const file = (name: keyof typeof PAGE_FILES) => (c: Context) => {
    const ext = name.split('.').pop()!
    return c.body(readFileSync(PAGE_FILES[name]), 200, { 'content-type': types[ext], 'cache-control': 'no-cache' })
  }
  app.get('/', file('index.html'))
  app.get('/app.js', file('app.js'))
  app.get('/app.css', file('app.css'))
  app.get('/graph.js', file('graph.js'))
  const icon = (c: Context) => c.body(FAVICON, 200, { 'content-type': 'image/svg+xml', 'cache-control': 'max-age=86400' })
  app.get('/favicon.ico', icon)
  app.get('/favicon.svg', icon)

  return {
    app,
    close: async () => {
      await tracer?.close()
      await stopIndexing()
    },
  }
}

export interface RunningViewer {
  url: string
  port: number
  /** Bound beyond loopback: a one-line warning for the console (else null). */
  warning: string | null
  close(): Promise<void>
}

const isLoopback = (h: string) => h === 'localhost' || h === '::1' || /^127\./.test(h)

/** Bundle the page if needed, then listen on host:port (port 0: any free port). */
export async function startViewer(src: ViewSources, opts: { host: string; port: number; allowHosts?: string[] }): Promise<RunningViewer> {
  await ensurePageBundle()
  const { app, close } = createViewApp(src, { bindHost: opts.host, allowHosts: opts.allowHosts })
  return new Promise((resolve, reject) => {
    const srv = serve({ fetch: app.fetch, hostname: opts.host, port: opts.port }, (info: AddressInfo) => {
      // A wildcard address is not one a browser can open: print the loopback URL.
      const shown = opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host === '::' ? '[::1]' : opts.host.includes(':') ? `[${opts.host}]` : opts.host
      resolve({
        url: `http://${shown}:${info.port}/`,
        warning: isLoopback(opts.host)
          ? null
          : `warning: bound to ${opts.host}: anyone who can reach this machine on port ${info.port} can read the world and the runs (absolute paths, full trajectories); the viewer has no login`,
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
