// view/page/app: the viewer's single page — a hash router over the JSON API (view/server.ts), every list paged and
// filtered on the server, the neighbourhood and question paths drawn by sigma over graphology, curves as SVG.
// Builds DOM with textContent only (documents and trajectories are data, never markup). Type-checked with the DOM
// library by view/page/tsconfig.json (view/page/typecheck.test.ts), apart from the Node program.
import type Sigma from 'sigma'
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
  TrajectoryView,
  DocSpan,
  FlaggedRow,
  PairedComparison,
  TrajectoryPage,
  EstimateView,
  ExperimentCurves,
  ExperimentSummary,
  ExperimentView,
} from '../types'
import { chart, COLORS, type ChartOptions } from './curves'
import { pathTreeEl } from './path-tree'

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
let experiments: ExperimentSummary[] = []
/** When /api/info answered (performance.now()). */
let infoAt = -Infinity
let graphs: Sigma[] = []

async function loadInfo() {
  return api<{ world: { name: string; hash: string; entities: number; edges: number; questions: Record<string, number>; types: string[]; qaTypes: string[]; hops: number[] } | null; runs: RunInfo[]; experiments: ExperimentSummary[] }>('/api/info')
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
  return h('div', { class: 'doc' }, ...spans.map((s) => (s.fact === undefined ? s.text : h('mark', s.facts ? { class: cls(s.fact), 'data-fact': String(s.fact), 'data-facts': s.facts.join(','), title: `states ${s.facts.length} facts` } : { class: cls(s.fact), 'data-fact': String(s.fact) }, s.text))))
}

/** The URL of the graph bundle (a variable, so that the page's bundler leaves the import to the browser). */
const GRAPH_LIB: string = '/graph.js'

/** Draw a server-laid-out graph with sigma; clicking a node opens its entity. Falls back to a note without WebGL. */
function graphEl(g: GraphView, note?: string): HTMLElement {
  const box = h('div', { class: 'graph', 'data-testid': 'graph' })
  const wrap = h('div', {}, box, h('div', { class: 'graph-note' }, `${g.nodes.length} nodes, ${g.edges.length} edges${g.omitted ? ` (${g.omitted} more edges not drawn; all are listed below)` : ''}${note ? ' — ' + note : ''}`))
  // sigma and graphology are a separate bundle (view/page/graph-lib → /graph.js): only pages with a graph load them.
  void (import(GRAPH_LIB) as Promise<typeof import('./graph-lib')>).then(({ Graph, Sigma }) => requestAnimationFrame(() => {
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
  }), (e: unknown) => {
    box.setAttribute('data-rendered', 'none')
    box.append(h('p', { class: 'muted' }, `graph not drawn: ${(e as Error).message}`))
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
    experimentsEl(),
    runsTable(),
  )
}

function runsTable(list: RunInfo[] = runs): HTMLElement {
  if (!list.length) return h('p', { class: 'muted' }, 'No runs loaded (start with --runs DIR...).')
  // Runs of one experiment (a shared prefix, or one report folder) sit together under its name.
  const groups = new Map<string, RunInfo[]>()
  for (const r of list) groups.set(r.experiment, [...(groups.get(r.experiment) ?? []), r])
  const rows: HTMLElement[] = []
  for (const [exp, rs] of groups) {
    const real = experiments.some((e) => e.name === exp)
    if (rs.length > 1 || real)
      rows.push(h('tr', { class: 'group', 'data-experiment': exp }, h('th', { colspan: '6' }, `experiment ${exp} (${rs.length} runs) `, real ? [link(`#/experiment/${enc(exp)}`, 'report'), ' · '] : null, link(`#/runs${qs({ runs: rs.filter((r) => r.kind === 'train').map((r) => r.name).join(',') || rs.map((r) => r.name).join(',') })}`, 'overlay'))))
    for (const r of rs) {
      const idx = r.indexing.complete ? '' : ` (indexing ${r.indexing.total ? Math.floor((100 * r.indexing.bytes) / r.indexing.total) : 0} %)`
      rows.push(
        h(
          'tr',
          { 'data-run': r.name },
          h('td', {}, link(`#/run/${enc(r.name)}`, r.name)),
          h('td', {}, r.kind + (r.closedBook ? ' (closed-book)' : '')),
          h('td', { 'data-testid': 'run-trajectories' }, `${r.trajectories}${idx}`),
          h('td', {}, String(r.steps)),
          h('td', {}, r.flagged ? link(`#/run/${enc(r.name)}`, `${r.flagged} malformed`, { class: 'flag', 'data-testid': 'run-flagged' }) : ''),
          h('td', { class: 'muted' }, r.dir),
        ),
      )
    }
  }
  const table = h('table', { 'data-testid': 'runs' }, h('tr', {}, h('th', {}, 'run'), h('th', {}, 'kind'), h('th', {}, 'trajectories'), h('th', {}, 'steps'), h('th', {}, 'flagged'), h('th', {}, 'folder')), ...rows)
  // While a run is still being indexed, refresh the table in place every second.
  if (list.some((r) => !r.indexing.complete)) {
    const hash = location.hash
    setTimeout(() => {
      if (location.hash !== hash || !table.isConnected) return
      api<RunInfo[]>('/api/runs')
        .then((fresh) => {
          runs = fresh
          if (table.isConnected) table.replaceWith(runsTable(fresh))
        })
        .catch(() => undefined)
    }, 1000)
  }
  return table
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
    pathTreeEl(q.tree, (e) => (location.hash = `#/entity/${enc(e)}`)),
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

const COLLAPSE = 1200

/** A long text shows its first COLLAPSE characters and a button for the rest (fetched when the server cut it). */
function textEl(text: string, full: number | undefined, more: (() => Promise<string>) | null): HTMLElement {
  const len = Math.max(full ?? 0, text.length)
  if (len <= COLLAPSE) return h('pre', {}, text)
  const pre = h('pre', { 'data-collapsed': 'true' }, text.slice(0, COLLAPSE) + ' …')
  const btn = h('button', {
    type: 'button',
    class: 'more',
    onclick: async () => {
      const all = full && full > text.length && more ? await more() : text
      pre.textContent = all
      pre.setAttribute('data-collapsed', 'false')
      btn.remove()
    },
  }, `show all ${len.toLocaleString()} characters`)
  return h('div', {}, pre, btn)
}

function turnEl(t: TrajectoryView, turn: TrajectoryView['turns_'][number]): HTMLElement {
  const more = (pick: (x: TrajectoryView['turns_'][number]) => string) => async () => {
    const one = await api<TrajectoryView>(`/api/runs/${enc(t.run)}/trajectories/${enc(t.id)}${qs({ turnOffset: turn.index, turnLimit: 1, full: 1 })}`)
    return pick(one.turns_[0])
  }
  if (turn.bad) return h('div', { class: 'turn flagged', 'data-turn': String(turn.index + 1) }, h('b', {}, `Turn ${turn.index + 1}`), h('p', { class: 'outcome-wrong' }, `unreadable turn: ${turn.bad}`))
  return h(
    'div',
    { class: 'turn', 'data-turn': String(turn.index + 1) },
    h('b', {}, `Turn ${turn.index + 1}`),
    ` · reward ${turn.reward}`,
    textEl(turn.text, turn.cut, t.run.startsWith('oracle (live)') ? null : more((x) => x.text)),
    ...turn.calls.map((c) => h('span', { class: 'call', 'data-call': c.name }, `${c.name}: ${c.argument}`, ...c.gold.map((g) => h('span', { class: 'gold opened' }, ` gold ${g.replace(/^.*\/wiki\//, '')}`)))),
    turn.answer !== null ? h('p', {}, 'Answer: ', h('b', {}, turn.answer)) : null,
    turn.malformed ? h('p', { class: 'outcome-wrong' }, `malformed: ${turn.malformed}`) : null,
    turn.observation.length
      ? h('details', { class: 'obs' }, h('summary', {}, `observation (${turn.observation.map((o) => o.name ?? o.role).join(', ')})`), ...turn.observation.map((o, k) => textEl(o.content, turn.cut, more((x) => x.observation[k]?.content ?? ''))))
      : null,
  )
}

function trajectoryBody(t: TrajectoryView, go?: (turnOffset: number) => string): HTMLElement {
  const outcome = t.status !== 'ok' ? 'error' : t.em >= 1 ? 'correct' : t.f1 > 0 ? 'partial' : 'wrong'
  const turnPage: ListPage<unknown> = { items: t.turns_, total: t.turns, offset: t.turnOffset, limit: TURN_PAGE }
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
    t.closedBook
      ? h('p', { class: 'muted', 'data-testid': 'closed-book' }, 'Closed-book run: it searches and opens nothing, so gold documents get no opened / seen / missed mark.')
      : t.goldDocs.length
        ? h('p', { 'data-testid': 'gold-docs' }, 'Gold documents: ', ...t.goldDocs.map((g) => h('span', { class: `gold ${g.status}`, title: g.url, 'data-gold': g.status }, `${g.url.replace(/^.*\/wiki\//, '')} ${g.status}`)), ' ')
        : h('p', { class: 'muted' }, 'Gold documents unknown (no world loaded, or the question is not in it).'),
    go && t.turns > t.turns_.length ? pager(turnPage, go) : null,
    ...t.turns_.map((turn) => turnEl(t, turn)),
    go && t.turns > t.turns_.length ? pager(turnPage, go) : null,
  )
}

const TURN_PAGE = 100

async function trajectoryView(run: string, id: string, p: URLSearchParams): Promise<HTMLElement> {
  const turnOffset = Number(p.get('turns') ?? 0)
  const t = await api<TrajectoryView>(`/api/runs/${enc(run)}/trajectories/${enc(id)}${qs({ turnOffset: turnOffset || undefined, turnLimit: TURN_PAGE })}`)
  const go = (o: number) => `#/trajectory/${enc(run)}/${enc(id)}${qs({ turns: o || undefined })}`
  return h('div', {}, h('p', {}, link(`#/run/${enc(run)}`, `← ${run}`), ' · ', link(`#/question/${enc(id)}`, 'the question')), h('h1', { 'data-testid': 'trajectory-question' }, t.question), trajectoryBody(t, go))
}

function flaggedEl(rows: FlaggedRow[], total: number): HTMLElement | null {
  if (!total) return null
  return h(
    'div',
    { 'data-testid': 'flagged' },
    h('h2', {}, `Malformed records skipped (${total})`),
    h('table', {}, h('tr', {}, h('th', {}, 'file'), h('th', {}, 'line'), h('th', {}, 'why'), h('th', {}, 'starts with')), ...rows.map((f) => h('tr', { class: 'flagged' }, h('td', {}, f.file ?? 'trajectories.jsonl'), h('td', {}, String(f.line)), h('td', {}, f.reason), h('td', { class: 'muted' }, h('code', {}, f.preview))))),
  )
}

async function runView(name: string, p: URLSearchParams): Promise<HTMLElement> {
  const info = (await api<RunInfo[]>('/api/runs')).find((r) => r.name === name)
  if (!info) throw new ApiError(404, 'view.unknown_run', `no run named '${name}'; loaded runs: ${runs.map((r) => r.name).join(', ') || 'none'}`)
  const f = { outcome: p.get('outcome') ?? '', type: p.get('type') ?? '', hops: p.get('hops') ?? '' }
  const offset = Number(p.get('offset') ?? 0)
  const [page, flagged] = await Promise.all([api<TrajectoryPage>(`/api/runs/${enc(name)}/trajectories${qs({ ...f, offset, limit: 50 })}`), api<FlaggedRow[]>(`/api/runs/${enc(name)}/flagged`)])
  const go = (o: number, v: Record<string, string> = f) => `#/run/${enc(name)}${qs({ ...v, offset: o || undefined })}`
  const top = later(() => (info.kind === 'train' ? curvesEl([name], p) : summariesEl([info])))
  return h(
    'div',
    {},
    h('h1', {}, `${info.kind === 'train' ? 'Training run' : 'Bench run'} ${name}`),
    h('p', { class: 'muted' }, info.dir),
    flaggedEl(flagged.slice(0, 100), flagged.length),
    top,
    h('h2', {}, `Trajectories (${page.complete ? info.trajectories : `${page.indexed.total ? Math.floor((100 * page.indexed.bytes) / page.indexed.total) : 0} % indexed`})`),
    !page.complete ? h('p', { class: 'muted', 'data-testid': 'indexing' }, 'The run is still being indexed: the list shows what is read so far; reload for more.') : null,
    page.complete && page.total === 0 && !f.outcome && !f.type && !f.hops
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

const DEFAULT_CURVES = ['rewardMean', 'f1', 'kl', 'clipFraction', 'timing/tokensPerS', 'loss', 'entropy', 'formatValid']
const TITLES: Record<string, string> = { rewardMean: 'reward', f1: 'F1', kl: 'KL', clipFraction: 'clip fraction', 'timing/tokensPerS': 'tokens/s', loss: 'loss', entropy: 'entropy', formatValid: 'format valid' }

/** Curves of `names` with the chart settings of the page's query (keys, smooth, log, x), and a form to change them. */
async function curvesEl(names: string[], p: URLSearchParams): Promise<HTMLElement> {
  const asked = (p.get('keys') ?? '').split(',').filter(Boolean)
  const o: ChartOptions = { smooth: Math.min(0.99, Math.max(0, Number(p.get('smooth') ?? 0) || 0)), log: p.get('log') === '1', x: p.get('x') === 'time' ? 'time' : 'step' }
  // partial=1: drawn from what is indexed so far, then drawn again until every line is in.
  const curves = await api<RunCurves[]>(`/api/curves${qs({ runs: names.join(','), keys: (asked.length ? asked : DEFAULT_CURVES).join(','), x: o.x, partial: 1 })}`)
  const available = [...new Set(curves.flatMap((c) => c.keys))]
  const keys = (asked.length ? asked : DEFAULT_CURVES).filter((k) => curves.some((c) => c.series[k]?.x.length))
  const set = (change: Record<string, string | undefined>) => {
    const q = new URLSearchParams(location.hash.split('?')[1] ?? '')
    for (const [k, v] of Object.entries(change)) if (v === undefined || v === '') q.delete(k)
    else q.set(k, v)
    location.hash = `${location.hash.split('?')[0]}?${q.toString()}`
  }
  const picker = h(
    'details',
    { class: 'metric-picker' },
    h('summary', {}, `metrics (${keys.length} of ${available.length} shown)`),
    h(
      'div',
      { class: 'metric-list' },
      ...available.map((k) =>
        h('label', {}, h('input', { type: 'checkbox', 'data-key': k, ...(keys.includes(k) ? { checked: 'checked' } : {}), onchange: () => set({ keys: [...picker.querySelectorAll<HTMLInputElement>('input[data-key]:checked')].map((i) => i.dataset.key!).join(',') || undefined }) }), ` ${k}`),
      ),
    ),
  )
  const controls = h(
    'div',
    { class: 'chart-controls', 'data-testid': 'chart-controls' },
    picker,
    h('label', {}, 'smoothing ', h('input', { type: 'range', min: '0', max: '0.99', step: '0.01', value: String(o.smooth), 'data-testid': 'smooth', onchange: (e: Event) => set({ smooth: (e.target as HTMLInputElement).value === '0' ? undefined : (e.target as HTMLInputElement).value }) }), ` ${o.smooth.toFixed(2)}`),
    h('label', {}, h('input', { type: 'checkbox', 'data-testid': 'log', ...(o.log ? { checked: 'checked' } : {}), onchange: (e: Event) => set({ log: (e.target as HTMLInputElement).checked ? '1' : undefined }) }), ' log scale'),
    h(
      'label',
      {},
      'x axis ',
      h('select', { 'data-testid': 'x-axis', onchange: (e: Event) => set({ x: (e.target as HTMLSelectElement).value === 'time' ? 'time' : undefined }) }, h('option', o.x === 'step' ? { value: 'step', selected: 'selected' } : { value: 'step' }, 'step'), h('option', o.x === 'time' ? { value: 'time', selected: 'selected' } : { value: 'time' }, 'wall clock')),
    ),
  )
  const incomplete = curves.some((c) => !c.complete)
  const el = h(
    'div',
    { 'data-testid': 'curves', 'data-complete': String(!incomplete) },
    h('h2', {}, 'Training curves'),
    incomplete ? h('p', { class: 'muted', 'data-testid': 'curves-indexing' }, 'Still reading metrics.jsonl: the curves show the lines read so far and redraw when all are in.') : null,
    controls,
    h('p', { class: 'legend' }, ...curves.map((c, i) => h('span', {}, h('i', { style: `background:${COLORS[i % COLORS.length]}` }), c.run, c.stageSwitches.length ? ` (stages: ${c.stageSwitches.map((s) => `${s.stage}@${s.step}`).join(', ')})` : ''))),
    ...keys.map((k) => chart(TITLES[k] ?? k, k, curves, o)),
  )
  if (incomplete) {
    const hash = location.hash
    setTimeout(() => {
      if (location.hash !== hash || !el.isConnected) return
      curvesEl(names, p)
        .then((fresh) => el.isConnected && el.replaceWith(fresh))
        .catch(() => undefined)
    }, 500)
  }
  return el
}

async function runsView(p: URLSearchParams): Promise<HTMLElement> {
  // The first page of a visit already has the runs (from /api/info, a moment ago): no second round trip.
  if (performance.now() - infoAt > 1000) runs = await api<RunInfo[]>('/api/runs')
  const chosen = (p.get('runs') ?? '').split(',').filter(Boolean)
  const picked = chosen.length ? runs.filter((r) => chosen.includes(r.name)) : runs
  const boxes = runs.map((r) => h('label', {}, h('input', { type: 'checkbox', name: r.name, ...(picked.includes(r) ? { checked: 'checked' } : {}) }), ` ${r.name} (${r.kind}) `))
  const train = picked.filter((r) => r.kind === 'train')
  const bench = runs.filter((r) => r.kind === 'bench' || r.trajectories > 0)
  return h(
    'div',
    {},
    h('h1', {}, 'Runs'),
    experimentsEl(),
    runsTable(),
    h('h2', {}, 'Overlay'),
    h(
      'form',
      {
        class: 'filters',
        onsubmit: (ev: Event) => {
          ev.preventDefault()
          const q = new URLSearchParams(location.hash.split('?')[1] ?? '')
          q.set('runs', boxes.map((b) => b.querySelector('input')!).filter((i) => i.checked).map((i) => i.name).join(','))
          location.hash = `#/runs?${q.toString()}`
        },
      },
      ...boxes,
      h('button', { type: 'submit' }, 'Overlay'),
    ),
    bench.length >= 2 ? h('p', {}, link(`#/compare${qs({ a: bench[0].name, b: bench[1].name })}`, 'Paired comparison of two runs, question by question →', { 'data-testid': 'to-compare' })) : null,
    train.length ? later(() => curvesEl(train.map((r) => r.name), p)) : null,
    later(() => summariesEl(picked)),
  )
}

/** A part of a page drawn when its data arrives (the page around it renders first). */
function later(make: () => Promise<HTMLElement>): HTMLElement {
  const box = h('div', { class: 'later' }, h('p', { class: 'muted' }, 'loading…'))
  make()
    .then((el) => box.replaceChildren(el))
    .catch((e: unknown) => box.replaceChildren(errorView(e)))
  return box
}

// ---- experiments ---------------------------------------------------------------------------------------------------

function experimentsEl(): HTMLElement | null {
  if (!experiments.length) return null
  return h(
    'div',
    {},
    h('h2', {}, 'Experiments'),
    h(
      'table',
      { 'data-testid': 'experiments' },
      h('tr', {}, h('th', {}, 'experiment'), h('th', {}, 'arms'), h('th', {}, 'seeds'), h('th', {}, 'steps'), h('th', {}, 'runs done'), h('th', {}, 'folder')),
      ...experiments.map((e) =>
        h(
          'tr',
          { 'data-experiment': e.name },
          h('td', {}, link(`#/experiment/${enc(e.name)}`, e.name)),
          h('td', {}, e.arms.map((a) => a.name).join(', ')),
          h('td', {}, e.seeds.join(', ')),
          h('td', {}, String(e.steps)),
          h('td', {}, `${e.runsDone}/${e.runsTotal}`),
          h('td', { class: 'muted' }, e.dir),
        ),
      ),
    ),
  )
}

/** The report's own number formats (bench/report: pct and ci; bench/experiment/report: gains). */
const pctR = (x: number) => (Number.isFinite(x) ? (100 * x).toFixed(1) : '–')
const ciR = (e: EstimateView | undefined) => (!e || e.n === 0 ? '–' : `${pctR(e.mean)} [${pctR(e.lo)}, ${pctR(e.hi)}]`)
const gainR = (e: EstimateView) => `${e.mean >= 0 ? '+' : ''}${pctR(e.mean)} [${pctR(e.lo)}, ${pctR(e.hi)}]`

const EXP_CURVES = ['rewardMean', 'f1']

async function experimentView(name: string, p: URLSearchParams): Promise<HTMLElement> {
  const x = await api<ExperimentView>(`/api/experiments/${enc(name)}`)
  const runLink = (r: string | null | undefined, text?: string) => (r ? link(`#/run/${enc(r)}`, text ?? r, { 'data-run-link': r }) : h('span', { class: 'muted' }, '–'))
  const setEl = (set: ExperimentView['sets'][number]) => {
    const label = `${set.set}${set.access ? '' : ' — without Access'}`
    const startBench = x.start.find((b) => b.set === set.set && b.access === set.access)?.run
    const rows: HTMLElement[] = [
      h('tr', { class: 'exp-start', 'data-arm': 'start' }, h('td', {}, 'start'), h('td', {}, '–'), h('td', {}, '–'), h('td', { 'data-cell': 'f1' }, ciR(set.start.f1)), h('td', { 'data-cell': 'em' }, pctR(set.start.em)), h('td', {}, '–'), h('td', {}, '–'), h('td', {}, runLink(startBench))),
    ]
    for (const a of x.arms) {
      const res = set.arms.find((r) => r.arm === a.name)
      x.seeds.forEach((seed, i) => {
        const run = x.runs.find((r) => r.arm === a.name && r.seed === seed)
        const bench = run?.benches.find((b) => b.set === set.set && b.access === set.access)?.run
        const f1 = res?.seedF1[`s${seed}`]
        rows.push(
          h(
            'tr',
            { class: 'exp-seed', 'data-arm': a.name, 'data-seed': String(seed) },
            i === 0 ? h('td', { rowspan: String(x.seeds.length), 'data-cell': 'arm' }, a.name) : null,
            h('td', {}, `s${seed}`),
            h('td', { 'data-cell': 'seed-f1' }, f1 === undefined ? '–' : pctR(f1)),
            i === 0 ? h('td', { rowspan: String(x.seeds.length), 'data-cell': 'f1' }, res ? ciR(res.f1) : '–') : null,
            i === 0 ? h('td', { rowspan: String(x.seeds.length), 'data-cell': 'em' }, res ? pctR(res.em) : '–') : null,
            i === 0 ? h('td', { rowspan: String(x.seeds.length), 'data-cell': 'gain' }, res ? gainR(res.gain) : '–') : null,
            h('td', {}, runLink(run?.run)),
            h('td', {}, runLink(bench)),
          ),
        )
      })
    }
    return h(
      'div',
      { 'data-set': `${set.set}${set.access ? '' : '+noaccess'}` },
      h('h2', {}, `${label} (${set.questions} questions)`),
      h(
        'table',
        { class: 'exp-table', 'data-testid': 'exp-table' },
        h('tr', {}, ...['arm', 'seed', 'seed F1 %', 'F1 % [95% CI]', 'EM %', 'gain vs start, pp [95% CI]', 'GRPO run', 'bench'].map((t) => h('th', {}, t))),
        ...rows,
      ),
      set.between.length
        ? h('table', { 'data-testid': 'exp-between' }, h('tr', {}, h('th', {}, 'b − a'), h('th', {}, 'diff pp [95% CI]')), ...set.between.map((b) => h('tr', {}, h('td', {}, `${b.b} − ${b.a}`), h('td', {}, gainR(b.diff)))))
        : null,
      set.arms.length
        ? h(
            'details',
            {},
            h('summary', {}, 'by type and hops (F1 %, gain vs start in pp [95% CI])'),
            h(
              'table',
              {},
              h('tr', {}, h('th', {}, 'group'), h('th', {}, 'n'), h('th', {}, 'start'), ...set.arms.map((a) => h('th', {}, a.arm))),
              ...set.arms[0].groups.map((g) =>
                h('tr', {}, h('td', {}, g.group), h('td', {}, String(g.n)), h('td', {}, pctR(g.start)), ...set.arms.map((a) => {
                  const y = a.groups.find((z) => z.group === g.group)
                  return h('td', {}, y ? `${pctR(y.mean)} (${gainR(y.gain)})` : '–')
                })),
              ),
            ),
          )
        : null,
    )
  }
  return h(
    'div',
    {},
    h('h1', { 'data-testid': 'experiment-name' }, `Experiment ${x.name}`),
    h(
      'p',
      {},
      `Arms: ${x.arms.map((a) => `${a.name} (${a.curriculum}, reward ${a.reward}${a.access ? '' : ', no Access'})`).join(', ')}; seeds ${x.seeds.join(', ')}; ${x.steps} GRPO steps per run. Runs finished: ${x.runsDone}/${x.runsTotal}. `,
      h('span', { class: 'muted' }, `${x.dir} · figures from ${x.source === 'report.json' ? 'its report.json' : 'the report code (no report.json yet)'}`),
    ),
    h('p', { class: 'muted' }, 'F1 in %, greedy. Arm rows: mean over seeds and questions with a 95 % CI from a two-way bootstrap (seeds and questions resampled independently). Gains are paired by question (and by seed between arms), in percentage points.'),
    ...x.sets.map(setEl),
    x.sets.length ? null : h('p', { class: 'muted' }, 'No bench results yet.'),
    later(() => experimentCurvesEl(x, p)),
  )
}

async function experimentCurvesEl(x: ExperimentView, p: URLSearchParams): Promise<HTMLElement> {
  const asked = (p.get('keys') ?? '').split(',').filter(Boolean)
  const band = p.get('band') === 'sd' ? 'sd' : 'minmax'
  const want = asked.length ? asked : EXP_CURVES
  const c = await api<ExperimentCurves>(`/api/experiments/${enc(x.name)}/curves${qs({ keys: want.join(',') })}`)
  const keys = want.filter((k) => c.arms.some((a) => a.series[k]?.x.length))
  const set = (change: Record<string, string | undefined>) => {
    const q = new URLSearchParams(location.hash.split('?')[1] ?? '')
    for (const [k, v] of Object.entries(change)) if (v === undefined || v === '') q.delete(k)
    else q.set(k, v)
    location.hash = `${location.hash.split('?')[0]}?${q.toString()}`
  }
  const asCurves = (k: string): RunCurves[] =>
    c.arms.map((a) => {
      const s = a.series[k] ?? { x: [], mean: [], sd: [], min: [], max: [], seeds: [], n: 0 }
      return {
        run: a.arm,
        x: 'step',
        keys: c.keys,
        series: { [k]: { x: s.x, y: s.mean, lo: band === 'sd' ? s.mean.map((m, i) => m - s.sd[i]) : s.min, hi: band === 'sd' ? s.mean.map((m, i) => m + s.sd[i]) : s.max, n: s.n } },
        stageSwitches: [],
        complete: true,
      }
    })
  const picker = h(
    'details',
    { class: 'metric-picker' },
    h('summary', {}, `metrics (${keys.length} of ${c.keys.length} shown)`),
    h('div', { class: 'metric-list' }, ...c.keys.map((k) => h('label', {}, h('input', { type: 'checkbox', 'data-key': k, ...(keys.includes(k) ? { checked: 'checked' } : {}), onchange: () => set({ keys: [...picker.querySelectorAll<HTMLInputElement>('input[data-key]:checked')].map((i) => i.dataset.key!).join(',') || undefined }) }), ` ${k}`))),
  )
  return h(
    'div',
    { 'data-testid': 'exp-curves' },
    h('h2', {}, 'Training curves per arm (line: mean over seeds; band: ' + (band === 'sd' ? 'mean ± 1 sd' : 'min–max') + ' across seeds)'),
    h(
      'div',
      { class: 'chart-controls' },
      picker,
      h('label', {}, 'band ', h('select', { 'data-testid': 'band', onchange: (e: Event) => set({ band: (e.target as HTMLSelectElement).value === 'sd' ? 'sd' : undefined }) }, h('option', band === 'minmax' ? { value: 'minmax', selected: 'selected' } : { value: 'minmax' }, 'min–max'), h('option', band === 'sd' ? { value: 'sd', selected: 'selected' } : { value: 'sd' }, 'mean ± sd'))),
    ),
    h('p', { class: 'legend' }, ...c.arms.map((a, i) => h('span', {}, h('i', { style: `background:${COLORS[i % COLORS.length]}` }), `${a.arm} (${a.runs.length} seeds: `, ...a.runs.flatMap((r, j) => [j ? ', ' : '', link(`#/run/${enc(r)}`, r)]), ') '))),
    ...keys.map((k) => chart(TITLES[k] ?? k, k, asCurves(k), { smooth: 0, log: false, x: 'step', bands: true })),
    keys.length ? null : h('p', { class: 'muted' }, 'No run of this experiment has a metrics line yet.'),
  )
}

const RESULTS = ['win', 'loss', 'tie', 'changed']

async function compareView(p: URLSearchParams): Promise<HTMLElement> {
  const withTraj = runs.filter((r) => r.trajectories > 0 || r.kind === 'bench')
  const f = { a: p.get('a') ?? withTraj[0]?.name ?? '', b: p.get('b') ?? withTraj[1]?.name ?? '', type: p.get('type') ?? '', hops: p.get('hops') ?? '', result: p.get('result') ?? '' }
  const offset = Number(p.get('offset') ?? 0)
  const go = (o: number, v: Record<string, string> = f) => `#/compare${qs({ ...v, offset: o || undefined })}`
  const form = filterForm(
    [
      { name: 'a', label: 'run A (baseline)', value: f.a, options: withTraj.map((r) => r.name) },
      { name: 'b', label: 'run B', value: f.b, options: withTraj.map((r) => r.name) },
      { name: 'type', label: 'type', value: f.type, options: world?.qaTypes ?? ['simple', 'parallel', 'combo'] },
      { name: 'hops', label: 'hops', value: f.hops, options: (world?.hops ?? [1, 2, 3, 4, 5, 6]).map(String) },
      { name: 'result', label: 'B vs A on F1', value: f.result, options: RESULTS },
    ],
    (v) => (location.hash = go(0, v)),
  )
  if (!f.a || !f.b) return h('div', {}, h('h1', {}, 'Paired comparison'), form, h('p', { class: 'muted' }, 'Pick two runs with trajectories.'))
  const c = await api<PairedComparison>(`/api/compare${qs({ ...f, offset, limit: 50 })}`)
  const sign = (x: number) => `${x >= 0 ? '+' : ''}${pct(x)}`
  const pv = (x: number) => (x < 0.001 ? '<0.001' : x.toFixed(3))
  return h(
    'div',
    {},
    h('h1', {}, `Paired comparison: ${c.b} against ${c.a}`),
    form,
    h('p', {}, `${c.paired} questions scored in both runs${c.unpaired ? `; ${c.unpaired} left out (in one run only, or lost to the endpoint)` : ''}. Differences are B − A in percentage points with paired bootstrap 95% CIs (bench compare's own computation).`),
    h(
      'table',
      { 'data-testid': 'compare-table' },
      h('tr', {}, ...['group', 'metric', 'n', `${c.a} %`, `${c.b} %`, 'diff pp [95% CI]', 'win/loss/tie', 'p (perm)', 'p (sign)'].map((x) => h('th', {}, x))),
      ...c.table.map((r) => h('tr', {}, h('td', {}, r.group), h('td', {}, r.metric.toUpperCase()), h('td', {}, String(r.n)), h('td', {}, pct(r.aMean)), h('td', {}, pct(r.bMean)), h('td', {}, `${sign(r.diff)} [${pct(r.lo)}, ${pct(r.hi)}]`), h('td', {}, `${r.wins}/${r.losses}/${r.ties}`), h('td', {}, pv(r.pPermutation)), h('td', {}, pv(r.pSign)))),
    ),
    h('h2', {}, `Questions${f.type || f.hops ? ' (filtered)' : ''}: ${c.counts.win} wins, ${c.counts.loss} losses, ${c.counts.tie} ties for ${c.b}`),
    h(
      'table',
      { 'data-testid': 'pair-list' },
      h('tr', {}, ...['', 'question', 'type', 'hops', `${c.a} F1`, `${c.b} F1`, `${c.a} answer`, `${c.b} answer`].map((x) => h('th', {}, x))),
      ...c.questions.items.map((q) =>
        h(
          'tr',
          { 'data-pair': q.id, 'data-result': q.result },
          h('td', { class: `result-${q.result}` }, q.result),
          h('td', {}, link(`#/pair/${enc(c.a)}/${enc(c.b)}/${enc(q.id)}`, q.question)),
          h('td', {}, q.type),
          h('td', {}, String(q.hops)),
          h('td', {}, q.a.f1.toFixed(2)),
          h('td', {}, q.b.f1.toFixed(2)),
          h('td', {}, q.a.prediction ?? '—'),
          h('td', {}, q.b.prediction ?? '—'),
        ),
      ),
    ),
    pager(c.questions, (o) => go(o)),
  )
}

async function pairView(a: string, b: string, id: string): Promise<HTMLElement> {
  const [ta, tb] = await Promise.all([a, b].map((r) => api<TrajectoryView>(`/api/runs/${enc(r)}/trajectories/${enc(id)}${qs({ turnLimit: TURN_PAGE })}`)))
  return h(
    'div',
    {},
    h('p', {}, link(`#/compare${qs({ a, b })}`, '← the comparison'), ' · ', link(`#/question/${enc(id)}`, 'the question')),
    h('h1', { 'data-testid': 'trajectory-question' }, ta.question),
    h(
      'div',
      { class: 'cols', 'data-testid': 'pair' },
      ...[ta, tb].map((t) => h('div', { 'data-side': t.run }, h('h2', {}, link(`#/trajectory/${enc(t.run)}/${enc(id)}`, t.run)), trajectoryBody(t))),
    ),
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
    else if (parts[0] === 'trajectory' && parts[1] && parts[2]) view = await trajectoryView(parts[1], parts[2], p)
    else if (parts[0] === 'experiment' && parts[1]) view = await experimentView(parts[1], p)
    else if (parts[0] === 'compare') view = await compareView(p)
    else if (parts[0] === 'pair' && parts[1] && parts[2] && parts[3]) view = await pairView(parts[1], parts[2], parts[3])
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
    experiments = info.experiments ?? []
    infoAt = performance.now()
    document.getElementById('world-name')!.textContent = world ? `world ${world.name} · ${world.hash.slice(0, 12)}` : ''
  } catch (e) {
    document.getElementById('main')!.replaceChildren(errorView(e))
    return
  }
  window.addEventListener('hashchange', () => void route())
  await route()
}

void start()
