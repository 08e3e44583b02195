// view/page/app: the viewer's single page — a hash router over the JSON API (view/server.ts), every list paged and
// filtered on the server, the neighbourhood and question paths drawn by sigma over graphology, curves as SVG.
// Builds DOM with textContent only (documents and trajectories are data, never markup). Type-checked with the DOM
// library by view/page/tsconfig.json (view/page/typecheck.test.ts), apart from the Node program.
import Graph from 'graphology'
import Sigma from 'sigma'
import type {
  EdgeView,
  EntitySummary,
  EntityView,
  GraphView,
  ListPage,
  QuestionSummary,
  QuestionView,
  RunCurves,
  RunInfo,
  TrajectorySummary,
  TrajectoryView,
  DocSpan,
} from '../types'

type Child = Node | string | null | undefined | false
type Attrs = Record<string, string | ((e: Event) => void)>

function h(tag: string, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElement {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v)
    else el.setAttribute(k, v)
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'string' ? document.createTextNode(c) : c)
  return el
}

const link = (href: string, text: string, attrs: Attrs = {}) => h('a', { href, ...attrs }, text)
const enc = encodeURIComponent
const pct = (x: number) => `${(100 * x).toFixed(1)}`

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

async function api<T>(path: string): Promise<T> {
  const r = await fetch(path)
  const body = (await r.json().catch(() => null)) as { error?: { message: string; code: string } } | null
  if (!r.ok) throw new ApiError(r.status, body?.error?.code ?? 'http', body?.error?.message ?? `${r.status} ${r.statusText}`)
  return body as T
}

function qs(params: Record<string, string | number | undefined>): string {
  const p = Object.entries(params).filter(([, v]) => v !== undefined && v !== '')
  return p.length ? '?' + p.map(([k, v]) => `${k}=${enc(String(v))}`).join('&') : ''
}

let world: Awaited<ReturnType<typeof loadInfo>>['world'] = null
let runs: RunInfo[] = []
let graphs: Sigma[] = []

async function loadInfo() {
  return api<{ world: { name: string; hash: string; entities: number; edges: number; questions: Record<string, number>; types: string[]; qaTypes: string[]; hops: number[] } | null; runs: RunInfo[] }>('/api/info')
}

// ---- pieces -----------------------------------------------------------------------------------------------------

function pager<T>(p: ListPage<T>, go: (offset: number) => string): HTMLElement {
  const last = Math.min(p.offset + p.items.length, p.total)
  return h(
    'div',
    { class: 'pager' },
    p.offset > 0 ? link(go(Math.max(0, p.offset - p.limit)), '← previous', { 'data-testid': 'prev' }) : null,
    h('span', { 'data-testid': 'page-info' }, p.total ? `${p.offset + 1}–${last} of ${p.total}` : 'nothing matches'),
    last < p.total ? link(go(p.offset + p.limit), 'next →', { 'data-testid': 'next' }) : null,
  )
}

function spansEl(spans: DocSpan[], cls: (fact: number) => string): HTMLElement {
  return h('div', { class: 'doc' }, ...spans.map((s) => (s.fact === undefined ? s.text : h('mark', { class: cls(s.fact), 'data-fact': String(s.fact) }, s.text))))
}

/** Draw a server-laid-out graph with sigma; clicking a node opens its entity. Falls back to a note without WebGL. */
function graphEl(g: GraphView, note?: string): HTMLElement {
  const box = h('div', { class: 'graph', 'data-testid': 'graph' })
  const wrap = h('div', {}, box, h('div', { class: 'graph-note' }, `${g.nodes.length} nodes, ${g.edges.length} edges${g.omitted ? ` (${g.omitted} more edges not drawn; all are listed below)` : ''}${note ? ' — ' + note : ''}`))
  requestAnimationFrame(() => {
    try {
      const graph = new Graph({ multi: true, type: 'directed' })
      graph.import({ nodes: g.nodes, edges: g.edges })
      // Labels cost the most to draw (canvas text per item): every label on small neighbourhoods; on hubs, no edge
      // labels and sigma's own label thinning (hover shows a node's label).
      const small = g.edges.length <= 24
      const s = new Sigma(graph, box, small ? { renderEdgeLabels: true, labelRenderedSizeThreshold: 0 } : { renderEdgeLabels: false })
      s.on('clickNode', ({ node }: { node: string }) => (location.hash = `#/entity/${enc(node)}`))
      graphs.push(s)
      // How many nodes landed inside the drawing, well apart (a degenerate layout piles them up or flings them out).
      const w = box.clientWidth
      const ht = box.clientHeight
      const at = graph.nodes().map((n) => s.graphToViewport(graph.getNodeAttributes(n) as { x: number; y: number }))
      const inside = at.filter((p) => p.x >= 0 && p.x <= w && p.y >= 0 && p.y <= ht).length
      const apart = at.every((p, i) => at.every((q, j) => i === j || Math.hypot(p.x - q.x, p.y - q.y) > 4))
      box.setAttribute('data-nodes-inside', String(inside))
      box.setAttribute('data-nodes-apart', String(apart))
      box.setAttribute('data-rendered', 'sigma')
    } catch (e) {
      box.setAttribute('data-rendered', 'none')
      box.append(h('p', { class: 'muted' }, `graph not drawn: ${(e as Error).message}`))
    }
  })
  return wrap
}

function entityLink(e: EntitySummary): HTMLElement {
  return link(`#/entity/${enc(e.id)}`, e.name, { 'data-entity': e.id })
}

function verificationEl(v: EdgeView['verification']): HTMLElement {
  if (!v) return h('span', { class: 'muted' }, 'not verified')
  return h(
    'details',
    {},
    h('summary', { class: v.kept ? 'verif-ok' : 'verif-drop' }, `${v.hits} of ${v.of} hits${v.minHits !== null ? ` (keep ≥ ${v.minHits})` : ''} — ${v.kept ? 'kept' : 'dropped'}`),
    h(
      'table',
      {},
      h('tr', {}, h('th', {}, 'style'), h('th', {}, 'query'), h('th', {}, 'rank'), h('th', {}, 'retrieved')),
      ...v.queries.map((q) => h('tr', {}, h('td', {}, q.style), h('td', {}, q.query), h('td', {}, q.rank ? String(q.rank) : '—'), h('td', {}, h('ol', {}, ...q.topUrls.map((u) => h('li', {}, u.replace(/^.*\/wiki\//, ''))))))),
    ),
  )
}

function edgeRow(e: EdgeView): HTMLElement {
  return h('tr', { 'data-edge': e.id }, h('td', {}, e.id), h('td', {}, entityLink(e.source)), h('td', {}, e.relation), h('td', {}, entityLink(e.target)), h('td', {}, verificationEl(e.verification)))
}

function filterForm(fields: { name: string; label: string; options?: string[]; value: string }[], submit: (values: Record<string, string>) => void): HTMLElement {
  const inputs = fields.map((f) =>
    f.options
      ? h('select', { name: f.name }, h('option', { value: '' }, 'any'), ...f.options.map((o) => h('option', o === f.value ? { value: o, selected: 'selected' } : { value: o }, o)))
      : h('input', { name: f.name, value: f.value, type: 'search' }),
  )
  return h(
    'form',
    {
      class: 'filters',
      onsubmit: (ev: Event) => {
        ev.preventDefault()
        submit(Object.fromEntries(inputs.map((i) => [i.getAttribute('name')!, (i as HTMLInputElement).value])))
      },
    },
    ...fields.map((f, i) => h('label', {}, f.label, inputs[i])),
    h('button', { type: 'submit' }, 'Apply'),
  )
}

// ---- views --------------------------------------------------------------------------------------------------------

async function homeView(): Promise<HTMLElement> {
  return h(
    'div',
    {},
    h('h1', {}, 'SearchGym viewer'),
    world
      ? h('p', {}, `World ${world.name}: ${world.entities} entities, ${world.edges} edges, questions ${Object.entries(world.questions).map(([k, v]) => `${k} ${v}`).join(', ')}. `, link('#/entities', 'Browse entities'), ' · ', link('#/questions', 'Browse questions'))
      : h('p', { class: 'muted' }, 'No world loaded (start with --world DIR).'),
    runsTable(),
  )
}

function runsTable(): HTMLElement {
  if (!runs.length) return h('p', { class: 'muted' }, 'No runs loaded (start with --runs DIR...).')
  return h(
    'table',
    { 'data-testid': 'runs' },
    h('tr', {}, h('th', {}, 'run'), h('th', {}, 'kind'), h('th', {}, 'trajectories'), h('th', {}, 'steps'), h('th', {}, 'folder')),
    ...runs.map((r) => h('tr', {}, h('td', {}, link(`#/run/${enc(r.name)}`, r.name)), h('td', {}, r.kind), h('td', {}, String(r.trajectories)), h('td', {}, String(r.steps)), h('td', { class: 'muted' }, r.dir))),
  )
}

async function entitiesView(p: URLSearchParams): Promise<HTMLElement> {
  const q = p.get('q') ?? ''
  const type = p.get('type') ?? ''
  const offset = Number(p.get('offset') ?? 0)
  const page = await api<ListPage<EntitySummary>>(`/api/entities${qs({ q, type, offset, limit: 50 })}`)
  const go = (o: number, v = { q, type }) => `#/entities${qs({ ...v, offset: o || undefined })}`
  return h(
    'div',
    {},
    h('h1', {}, 'Entities'),
    filterForm(
      [
        { name: 'q', label: 'name contains', value: q },
        { name: 'type', label: 'type', value: type, options: world?.types ?? [] },
      ],
      (v) => (location.hash = go(0, { q: v.q, type: v.type })),
    ),
    h('table', { 'data-testid': 'entity-list' }, h('tr', {}, h('th', {}, 'name'), h('th', {}, 'type'), h('th', {}, 'id')), ...page.items.map((e) => h('tr', {}, h('td', {}, entityLink(e)), h('td', {}, e.type), h('td', { class: 'muted' }, e.id)))),
    pager(page, (o) => go(o)),
  )
}

async function entityView(id: string, p: URLSearchParams): Promise<HTMLElement> {
  const offset = Number(p.get('offset') ?? 0)
  const [v, qsPage] = await Promise.all([
    api<EntityView>(`/api/entities/${enc(id)}${qs({ offset, limit: 25 })}`),
    api<ListPage<QuestionSummary>>(`/api/questions${qs({ entity: id, limit: 20 })}`),
  ])
  const doc = v.doc
  return h(
    'div',
    {},
    h('h1', { 'data-testid': 'entity-name' }, v.entity.name),
    h('p', { class: 'muted' }, `${v.entity.type} · ${v.entity.id} · ${v.entity.url}`),
    h('table', {}, ...Object.entries(v.entity.attrs).map(([k, val]) => h('tr', {}, h('th', {}, k), h('td', {}, String(val))))),
    h(
      'div',
      { class: 'cols' },
      h(
        'div',
        {},
        h('h2', {}, 'Document'),
        doc ? spansEl(doc.spans, (i) => `fact fact-${doc.facts[i].kind}`) : h('p', { class: 'muted' }, 'no document'),
        doc ? h('p', { class: 'graph-note' }, `${doc.facts.filter((f) => f.located).length} of ${doc.facts.length} fact sentences highlighted (blue: edges, yellow: attributes)`) : null,
      ),
      h('div', {}, h('h2', {}, 'Neighbourhood'), graphEl(v.graph, 'click a node to open it')),
    ),
    h('h2', {}, `Edges and their verification (${v.edges.total})`),
    h('table', { 'data-testid': 'edges' }, h('tr', {}, h('th', {}, 'edge'), h('th', {}, 'source'), h('th', {}, 'relation'), h('th', {}, 'target'), h('th', {}, 'verification (hits, queries, retrieved)')), ...v.edges.items.map(edgeRow)),
    pager(v.edges, (o) => `#/entity/${enc(id)}${qs({ offset: o || undefined })}`),
    h('h2', {}, `Questions using this document (${qsPage.total})`),
    questionTable(qsPage.items),
    qsPage.total > qsPage.items.length ? link(`#/questions${qs({ entity: id })}`, `all ${qsPage.total} questions`) : null,
  )
}

function questionTable(items: QuestionSummary[]): HTMLElement {
  return h(
    'table',
    { 'data-testid': 'question-list' },
    h('tr', {}, h('th', {}, 'question'), h('th', {}, 'answer'), h('th', {}, 'type'), h('th', {}, 'hops'), h('th', {}, 'split')),
    ...items.map((q) => h('tr', {}, h('td', {}, link(`#/question/${enc(q.id)}`, q.question, { 'data-question': q.id })), h('td', {}, q.answer), h('td', {}, q.type), h('td', {}, String(q.hops)), h('td', {}, q.split))),
  )
}

async function questionsView(p: URLSearchParams): Promise<HTMLElement> {
  const f = { split: p.get('split') ?? '', type: p.get('type') ?? '', hops: p.get('hops') ?? '', text: p.get('text') ?? '', entity: p.get('entity') ?? '' }
  const offset = Number(p.get('offset') ?? 0)
  const page = await api<ListPage<QuestionSummary>>(`/api/questions${qs({ ...f, offset, limit: 50 })}`)
  const go = (o: number, v: Record<string, string> = f) => `#/questions${qs({ ...v, offset: o || undefined })}`
  return h(
    'div',
    {},
    h('h1', {}, 'Questions'),
    f.entity ? h('p', {}, 'Only questions that need the document of ', link(`#/entity/${enc(f.entity)}`, f.entity)) : null,
    filterForm(
      [
        { name: 'split', label: 'split', value: f.split, options: Object.keys(world?.questions ?? {}) },
        { name: 'type', label: 'type', value: f.type, options: world?.qaTypes ?? [] },
        { name: 'hops', label: 'hops', value: f.hops, options: (world?.hops ?? []).map(String) },
        { name: 'text', label: 'question contains', value: f.text },
      ],
      (v) => (location.hash = go(0, { ...v, entity: f.entity })),
    ),
    questionTable(page.items),
    pager(page, (o) => go(o)),
  )
}

async function questionView(id: string): Promise<HTMLElement> {
  const q = await api<QuestionView>(`/api/questions/${enc(id)}`)
  const oracleBox = h('div', { 'data-testid': 'oracle' }, h('p', { class: 'muted' }, 'Playing the oracle through the env…'))
  api<TrajectoryView>(`/api/questions/${enc(id)}/oracle`)
    .then((t) => oracleBox.replaceChildren(trajectoryBody(t)))
    .catch((e: Error) => oracleBox.replaceChildren(h('p', { class: 'error-page' }, `oracle: ${e.message}`)))
  return h(
    'div',
    {},
    h('h1', { 'data-testid': 'question-text' }, q.question),
    h('p', {}, h('b', {}, 'Answer: '), h('span', { 'data-testid': 'answer' }, q.answer), q.aliases.length ? ` (also: ${q.aliases.join(', ')})` : '', ` · ${q.type}, ${q.hops} hops, split ${q.split} · ${q.id}`),
    h('h2', {}, 'Path'),
    graphEl(q.graph),
    h('h2', {}, 'Hops: documents and evidence'),
    ...q.hops_.map((hp) =>
      h(
        'details',
        { class: 'turn', 'data-hop': String(hp.hop) },
        h('summary', {}, hp.hop >= 0 ? `hop ${hp.hop + 1}: ` : 'attribute: ', hp.edge ? [entityLink(hp.edge.source), ` ${hp.edge.relation} `, entityLink(hp.edge.target), ' — '] : '', h('q', { 'data-testid': 'evidence' }, hp.sentence), ` (${hp.title ?? hp.url})`),
        hp.spans.length ? spansEl(hp.spans, () => 'evidence') : h('p', { class: 'muted' }, 'document not in the world'),
      ),
    ),
    h('h2', {}, 'Trajectories in the loaded runs'),
    q.runs.length
      ? h(
          'table',
          { 'data-testid': 'question-runs' },
          h('tr', {}, h('th', {}, 'run'), h('th', {}, 'F1'), h('th', {}, 'EM'), h('th', {}, 'status'), h('th', {}, 'stop')),
          ...q.runs.map((r) => h('tr', {}, h('td', {}, link(`#/trajectory/${enc(r.run)}/${enc(q.id)}`, r.run, { 'data-run': r.run })), h('td', {}, r.f1.toFixed(3)), h('td', {}, String(r.em)), h('td', {}, r.status), h('td', {}, r.stopReason ?? ''))),
        )
      : h('p', { class: 'muted' }, 'No loaded run answered this question.'),
    h('h2', {}, "The oracle's trajectory"),
    oracleBox,
  )
}

function trajectoryBody(t: TrajectoryView): HTMLElement {
  const outcome = t.status !== 'ok' ? 'error' : t.em >= 1 ? 'correct' : t.f1 > 0 ? 'partial' : 'wrong'
  return h(
    'div',
    { 'data-testid': 'trajectory' },
    h(
      'p',
      {},
      h('b', { class: `outcome-${outcome}`, 'data-testid': 'outcome' }, outcome),
      ` · prediction `,
      h('q', { 'data-testid': 'prediction' }, t.prediction ?? '—'),
      ` · gold ${t.golds.join(' / ')} · F1 ${t.f1.toFixed(3)} EM ${t.em} · stop ${t.stopReason ?? '—'} · ${t.turns} turns${t.error ? ` · ${t.error}` : ''}`,
    ),
    t.goldDocs.length
      ? h('p', { 'data-testid': 'gold-docs' }, 'Gold documents: ', ...t.goldDocs.map((g) => h('span', { class: `gold ${g.status}`, title: g.url, 'data-gold': g.status }, `${g.url.replace(/^.*\/wiki\//, '')} ${g.status}`)), ' ')
      : h('p', { class: 'muted' }, 'Gold documents unknown (no world loaded, or the question is not in it).'),
    ...t.turns_.map((turn) =>
      h(
        'div',
        { class: 'turn', 'data-turn': String(turn.index + 1) },
        h('b', {}, `Turn ${turn.index + 1}`),
        ` · reward ${turn.reward}`,
        h('pre', {}, turn.text),
        ...turn.calls.map((c) => h('span', { class: 'call', 'data-call': c.name }, `${c.name}: ${c.argument}`, ...c.gold.map((g) => h('span', { class: 'gold opened' }, ` gold ${g.replace(/^.*\/wiki\//, '')}`)))),
        turn.answer !== null ? h('p', {}, 'Answer: ', h('b', {}, turn.answer)) : null,
        turn.malformed ? h('p', { class: 'outcome-wrong' }, `malformed: ${turn.malformed}`) : null,
        turn.observation.length ? h('details', { class: 'obs' }, h('summary', {}, `observation (${turn.observation.map((o) => o.name ?? o.role).join(', ')})`), ...turn.observation.map((o) => h('pre', {}, o.content))) : null,
      ),
    ),
  )
}

async function trajectoryView(run: string, id: string): Promise<HTMLElement> {
  const t = await api<TrajectoryView>(`/api/runs/${enc(run)}/trajectories/${enc(id)}`)
  return h('div', {}, h('p', {}, link(`#/run/${enc(run)}`, `← ${run}`), ' · ', link(`#/question/${enc(id)}`, 'the question')), h('h1', { 'data-testid': 'trajectory-question' }, t.question), trajectoryBody(t))
}

async function runView(name: string, p: URLSearchParams): Promise<HTMLElement> {
  const info = runs.find((r) => r.name === name)
  if (!info) throw new ApiError(404, 'view.unknown_run', `no run named '${name}'; loaded runs: ${runs.map((r) => r.name).join(', ') || 'none'}`)
  const f = { outcome: p.get('outcome') ?? '', type: p.get('type') ?? '', hops: p.get('hops') ?? '' }
  const offset = Number(p.get('offset') ?? 0)
  const page = await api<ListPage<TrajectorySummary>>(`/api/runs/${enc(name)}/trajectories${qs({ ...f, offset, limit: 50 })}`)
  const go = (o: number, v: Record<string, string> = f) => `#/run/${enc(name)}${qs({ ...v, offset: o || undefined })}`
  const top = info.kind === 'train' ? await curvesEl([name]) : await summariesEl([info])
  return h(
    'div',
    {},
    h('h1', {}, `${info.kind === 'train' ? 'Training run' : 'Bench run'} ${name}`),
    h('p', { class: 'muted' }, info.dir),
    top,
    h('h2', {}, `Trajectories (${info.trajectories})`),
    info.trajectories === 0
      ? h('p', { class: 'muted', 'data-testid': 'no-trajectories' }, info.kind === 'train' ? 'This training run saved no trajectories.jsonl (searchgym train does not write one); its curves are above.' : 'No trajectories.jsonl in this run.')
      : h(
          'div',
          {},
          filterForm(
            [
              { name: 'outcome', label: 'outcome', value: f.outcome, options: ['correct', 'partial', 'wrong', 'error'] },
              { name: 'type', label: 'type', value: f.type, options: world?.qaTypes ?? ['simple', 'parallel', 'combo'] },
              { name: 'hops', label: 'hops', value: f.hops, options: (world?.hops ?? [1, 2, 3, 4, 5, 6]).map(String) },
            ],
            (v) => (location.hash = go(0, v)),
          ),
          h(
            'table',
            { 'data-testid': 'trajectory-list' },
            h('tr', {}, h('th', {}, 'question'), h('th', {}, 'prediction'), h('th', {}, 'F1'), h('th', {}, 'type'), h('th', {}, 'hops'), h('th', {}, 'turns'), h('th', {}, 'stop')),
            ...page.items.map((t) =>
              h(
                'tr',
                {},
                h('td', {}, link(`#/trajectory/${enc(name)}/${enc(t.id)}`, t.question, { 'data-trajectory': t.id })),
                h('td', {}, t.prediction ?? '—'),
                h('td', {}, t.f1.toFixed(2)),
                h('td', {}, t.type),
                h('td', {}, String(t.hops)),
                h('td', {}, String(t.turns)),
                h('td', {}, t.stopReason ?? t.status),
              ),
            ),
          ),
          pager(page, (o) => go(o)),
        ),
  )
}

interface Ci {
  n: number
  mean: number
  lo: number
  hi: number
}
type Cell = { n: number; f1: Ci; em: Ci }

async function summariesEl(infos: RunInfo[]): Promise<HTMLElement> {
  const bench = infos.filter((r) => r.kind === 'bench')
  if (!bench.length) return h('span')
  const sums = await Promise.all(bench.map((r) => api<{ overall: Cell; byType?: Record<string, Cell>; byHops?: Record<string, Cell> }>(`/api/runs/${enc(r.name)}/summary`).catch(() => null)))
  const ci = (c?: Ci) => (c ? `${pct(c.mean)} [${pct(c.lo)}, ${pct(c.hi)}]` : '—')
  const groups = new Set<string>(['overall'])
  for (const s of sums) {
    for (const k of Object.keys(s?.byType ?? {})) groups.add(`type ${k}`)
    for (const k of Object.keys(s?.byHops ?? {})) groups.add(`hops ${k}`)
  }
  const cell = (s: (typeof sums)[number], g: string): Cell | undefined => {
    if (!s) return undefined
    if (g === 'overall') return s.overall
    const [kind, key] = g.split(' ')
    return (kind === 'type' ? s.byType : s.byHops)?.[key]
  }
  return h(
    'div',
    {},
    h('h2', {}, 'Bench summary: F1 and EM (%) with 95% bootstrap CIs'),
    h(
      'table',
      { 'data-testid': 'bench-summary' },
      h('tr', {}, h('th', {}, ''), ...bench.map((r) => h('th', { colspan: '2' }, r.name))),
      h('tr', {}, h('th', {}, ''), ...bench.flatMap(() => [h('th', {}, 'F1'), h('th', {}, 'EM')])),
      ...[...groups].map((g) => h('tr', {}, h('th', {}, g), ...sums.flatMap((s) => [h('td', {}, ci(cell(s, g)?.f1)), h('td', {}, ci(cell(s, g)?.em))]))),
    ),
  )
}

const CURVES: [string, string][] = [
  ['rewardMean', 'reward'],
  ['f1', 'F1'],
  ['kl', 'KL'],
  ['clipFraction', 'clip fraction'],
  ['timing/tokensPerS', 'tokens/s'],
  ['loss', 'loss'],
  ['entropy', 'entropy'],
  ['formatValid', 'format valid'],
]
const COLORS = ['#4e79a7', '#e15759', '#59a14f', '#f28e2b', '#b07aa1', '#76b7b2']

function svgEl(tag: string, attrs: Record<string, string | number>, ...children: (SVGElement | string)[]): SVGElement {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag)
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v))
  el.append(...children)
  return el
}

function chart(title: string, key: string, curves: RunCurves[]): SVGElement {
  const W = 300
  const H = 170
  const P = { l: 44, r: 8, t: 20, b: 22 }
  const pts = curves.flatMap((c) => c.series[key] ?? [])
  const x0 = Math.min(...pts.map((p) => p.step))
  const x1 = Math.max(...pts.map((p) => p.step), x0 + 1)
  let y0 = Math.min(...pts.map((p) => p.value))
  let y1 = Math.max(...pts.map((p) => p.value))
  if (y0 === y1) [y0, y1] = [y0 - 0.5, y1 + 0.5]
  const X = (s: number) => P.l + ((s - x0) / (x1 - x0)) * (W - P.l - P.r)
  const Y = (v: number) => H - P.b - ((v - y0) / (y1 - y0)) * (H - P.t - P.b)
  const parts: SVGElement[] = [
    svgEl('text', { x: P.l, y: 13, 'font-size': 12, 'font-weight': 600 }, title),
    svgEl('line', { x1: P.l, y1: H - P.b, x2: W - P.r, y2: H - P.b, stroke: '#999' }),
    svgEl('line', { x1: P.l, y1: P.t, x2: P.l, y2: H - P.b, stroke: '#999' }),
    svgEl('text', { x: P.l - 4, y: Y(y1) + 4, 'font-size': 10, 'text-anchor': 'end' }, y1.toPrecision(3)),
    svgEl('text', { x: P.l - 4, y: Y(y0) + 4, 'font-size': 10, 'text-anchor': 'end' }, y0.toPrecision(3)),
    svgEl('text', { x: P.l, y: H - 6, 'font-size': 10 }, `step ${x0}`),
    svgEl('text', { x: W - P.r, y: H - 6, 'font-size': 10, 'text-anchor': 'end' }, `${x1}`),
  ]
  curves.forEach((c, i) => {
    const s = c.series[key] ?? []
    const color = COLORS[i % COLORS.length]
    for (const sw of c.stageSwitches.slice(1)) parts.push(svgEl('line', { x1: X(sw.step), x2: X(sw.step), y1: P.t, y2: H - P.b, stroke: color, 'stroke-dasharray': '3 3', opacity: 0.6 }, svgEl('title', {}, `${c.run}: ${sw.stage} from step ${sw.step}`)))
    if (s.length) parts.push(svgEl('polyline', { points: s.map((p) => `${X(p.step)},${Y(p.value)}`).join(' '), fill: 'none', stroke: color, 'stroke-width': 1.8, 'data-run': c.run }))
    for (const p of s) parts.push(svgEl('circle', { cx: X(p.step), cy: Y(p.value), r: 2.2, fill: color }, svgEl('title', {}, `${c.run} step ${p.step}: ${p.value}`)))
  })
  return svgEl('svg', { class: 'chart', width: W, height: H, 'data-curve': key }, ...parts)
}

async function curvesEl(names: string[]): Promise<HTMLElement> {
  const curves = await api<RunCurves[]>(`/api/curves${qs({ runs: names.join(',') })}`)
  const shown = CURVES.filter(([k]) => curves.some((c) => c.series[k]?.length))
  return h(
    'div',
    { 'data-testid': 'curves' },
    h('h2', {}, 'Training curves'),
    h('p', { class: 'legend' }, ...curves.map((c, i) => h('span', {}, h('i', { style: `background:${COLORS[i % COLORS.length]}` }), c.run, c.stageSwitches.length ? ` (stages: ${c.stageSwitches.map((s) => `${s.stage}@${s.step}`).join(', ')})` : ''))),
    ...shown.map(([k, title]) => chart(title, k, curves)),
  )
}

async function runsView(p: URLSearchParams): Promise<HTMLElement> {
  const chosen = (p.get('runs') ?? '').split(',').filter(Boolean)
  const picked = chosen.length ? runs.filter((r) => chosen.includes(r.name)) : runs
  const boxes = runs.map((r) => h('label', {}, h('input', { type: 'checkbox', name: r.name, ...(picked.includes(r) ? { checked: 'checked' } : {}) }), ` ${r.name} (${r.kind}) `))
  const train = picked.filter((r) => r.kind === 'train')
  return h(
    'div',
    {},
    h('h1', {}, 'Runs'),
    runsTable(),
    h('h2', {}, 'Compare'),
    h(
      'form',
      {
        class: 'filters',
        onsubmit: (ev: Event) => {
          ev.preventDefault()
          location.hash = `#/runs${qs({ runs: boxes.map((b) => b.querySelector('input')!).filter((i) => i.checked).map((i) => i.name).join(',') })}`
        },
      },
      ...boxes,
      h('button', { type: 'submit' }, 'Overlay'),
    ),
    train.length ? await curvesEl(train.map((r) => r.name)) : null,
    await summariesEl(picked),
  )
}

function errorView(e: unknown): HTMLElement {
  const err = e instanceof ApiError ? e : new ApiError(0, 'page', (e as Error)?.message ?? String(e))
  return h('div', { class: 'error-page', 'data-testid': 'error' }, h('h1', {}, err.status === 404 ? 'Not found' : 'Something is wrong'), h('p', { 'data-testid': 'error-message' }, err.message), h('code', {}, err.code), h('p', {}, link('#/', 'back to the start')))
}

// ---- router -------------------------------------------------------------------------------------------------------

async function route(): Promise<void> {
  const main = document.getElementById('main')!
  for (const g of graphs) g.kill()
  graphs = []
  const [path, query] = location.hash.replace(/^#/, '').split('?')
  const p = new URLSearchParams(query ?? '')
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent)
  document.querySelectorAll('header nav a').forEach((a) => a.classList.toggle('active', a.getAttribute('data-nav') === parts[0]?.replace(/s?$/, 's') || (parts[0] === 'entity' && a.getAttribute('data-nav') === 'entities') || (parts[0] === 'question' && a.getAttribute('data-nav') === 'questions')))
  document.body.setAttribute('data-state', 'loading')
  let view: HTMLElement
  try {
    if (parts.length === 0) view = await homeView()
    else if (parts[0] === 'entities') view = await entitiesView(p)
    else if (parts[0] === 'entity' && parts[1]) view = await entityView(parts[1], p)
    else if (parts[0] === 'questions') view = await questionsView(p)
    else if (parts[0] === 'question' && parts[1]) view = await questionView(parts[1])
    else if (parts[0] === 'runs') view = await runsView(p)
    else if (parts[0] === 'run' && parts[1]) view = await runView(parts[1], p)
    else if (parts[0] === 'trajectory' && parts[1] && parts[2]) view = await trajectoryView(parts[1], parts[2])
    else throw new ApiError(404, 'view.not_found', `no page at #${path}`)
  } catch (e) {
    view = errorView(e)
  }
  main.replaceChildren(view)
  document.body.setAttribute('data-state', 'ready')
}

async function start(): Promise<void> {
  try {
    const info = await loadInfo()
    world = info.world
    runs = info.runs
    document.getElementById('world-name')!.textContent = world ? `world ${world.name} · ${world.hash.slice(0, 12)}` : ''
  } catch (e) {
    document.getElementById('main')!.replaceChildren(errorView(e))
    return
  }
  window.addEventListener('hashchange', () => void route())
  await route()
}

void start()
