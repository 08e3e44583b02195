// view/world-data: the viewer's read side of one finished world — entity search, an entity's document with its fact
// sentences located, its edges with their verification, its neighbourhood as a graphology graph, and the question
// list and pages. Every list is a paged SQL query with the filters in SQL: nothing reads a whole world.
import { basename } from 'node:path'
import { MultiDirectedGraph } from 'graphology'
import { HttpError } from '../infra/http/errors'
import { openWorld, type Doc, type Qa, type World } from '../world'
import { ViewError } from './errors'
import { shownPath } from './shown-path'
import { pathTree, ROOT } from './path-tree'
import type { DocSpan, EdgeView, EntitySummary, EntityView, FactView, GraphView, HopView, ListPage, PathTreeView, QuestionSummary, QuestionView, VerificationQuery } from './types'

/** Most edges drawn around one entity (hubs have hundreds; the edge list pages through all of them). */
export const GRAPH_EDGE_CAP = 60
export const MAX_LIMIT = 200

const TYPE_COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac', '#86bcb6', '#d37295', '#8cd17d']

export interface QuestionFilters {
  split?: string
  type?: string
  hops?: number
  /** Only questions whose documents include this entity's document (an entity's questions). */
  entity?: string
  /** Substring of the question text. */
  text?: string
}

/** Offset/limit from a request, clamped (a page is at most MAX_LIMIT rows). */
export function paging(offset: unknown, limit: unknown, def = 50): { offset: number; limit: number } {
  const o = Number(offset ?? 0)
  const l = Number(limit ?? def)
  if (!Number.isSafeInteger(o) || o < 0) throw new HttpError(400, 'view.bad_offset', `offset must be a non-negative integer, got ${JSON.stringify(offset)}`, 'offset')
  if (!Number.isInteger(l) || l < 1 || l > MAX_LIMIT) throw new HttpError(400, 'view.bad_limit', `limit must be an integer in [1, ${MAX_LIMIT}], got ${JSON.stringify(limit)}`, 'limit')
  return { offset: o, limit: l }
}

/** The document text cut into plain stretches and fact sentences (each fact's first unclaimed occurrence; a fact
 *  whose sentence only occurs inside another fact's mark — one list sentence stating several facts — shares it). */
export function docSpans(text: string, sentences: string[]): { spans: DocSpan[]; located: boolean[] } {
  const marks: { start: number; end: number; fact: number; facts: number[] }[] = []
  const located = sentences.map((s, fact) => {
    if (!s) return false
    let from = 0
    for (;;) {
      const at = text.indexOf(s, from)
      if (at < 0) break
      const end = at + s.length
      if (!marks.some((m) => at < m.end && end > m.start)) {
        marks.push({ start: at, end, fact, facts: [fact] })
        return true
      }
      from = at + 1
    }
    const at = text.indexOf(s)
    if (at < 0) return false
    marks.find((m) => at < m.end && at + s.length > m.start)!.facts.push(fact)
    return true
  })
  marks.sort((a, b) => a.start - b.start)
  const spans: DocSpan[] = []
  let pos = 0
  for (const m of marks) {
    if (m.start > pos) spans.push({ text: text.slice(pos, m.start) })
    spans.push(m.facts.length > 1 ? { text: text.slice(m.start, m.end), fact: m.fact, facts: m.facts } : { text: text.slice(m.start, m.end), fact: m.fact })
    pos = m.end
  }
  if (pos < text.length) spans.push({ text: text.slice(pos) })
  return { spans, located }
}

interface QaRowLite {
  id: string
  type: string
  hops: number
  split: string
  question: string
  answer: string
}

export class WorldData {
  readonly world: World
  private readonly hasVerification: boolean
  private readonly typeColor = new Map<string, string>()

  private constructor(world: World) {
    this.world = world
    const tables = new Set((world.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name))
    this.hasVerification = tables.has('edge_verification') && tables.has('verification_queries')
    if (!tables.has('qa')) throw new ViewError('view.no_qa', `world at ${world.dir} has no questions table; rebuild it with searchgym world build`)
    // The qa table's rows carry JSON evidence: filtering or paging it directly scans megabytes. A narrow copy of the
    // filter columns and a url → question table, in this connection's temp schema (the world file stays untouched),
    // make every list query an index or small-table scan. Built once per open (paper world: ~1 s).
    world.db.exec(`
      CREATE TEMP TABLE IF NOT EXISTS view_qa AS SELECT seq, split, type, hops, question FROM qa;
      CREATE INDEX IF NOT EXISTS temp.view_qa_filters ON view_qa(split, type, hops, seq);
      CREATE TEMP TABLE IF NOT EXISTS view_qa_docs AS SELECT j.value AS url, qa.seq AS seq FROM qa, json_each(qa.docs_json) AS j;
      CREATE INDEX IF NOT EXISTS temp.view_qa_docs_url ON view_qa_docs(url, seq);
    `)
    const types = world.db.prepare('SELECT DISTINCT type FROM entities ORDER BY type').all() as { type: string }[]
    types.forEach((t, i) => this.typeColor.set(t.type, TYPE_COLORS[i % TYPE_COLORS.length]))
  }

  /** Open a finished world (an unfinished or missing one is a WorldError saying what to run). */
  static open(dir: string): WorldData {
    return new WorldData(openWorld(dir))
  }

  close(): void {
    this.world.close()
  }

  info(): { dir: string; hash: string; name: string; entities: number; edges: number; questions: Record<string, number>; types: string[]; qaTypes: string[]; hops: number[] } {
    const db = this.world.db
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n
    const questions: Record<string, number> = {}
    for (const r of db.prepare('SELECT split, COUNT(*) AS n FROM qa GROUP BY split ORDER BY split').all() as { split: string; n: number }[]) questions[r.split] = r.n
    return {
      dir: shownPath(this.world.dir),
      hash: this.world.hash,
      name: basename(this.world.dir),
      entities: count('SELECT COUNT(*) AS n FROM entities'),
      edges: count('SELECT COUNT(*) AS n FROM edges'),
      questions,
      types: [...this.typeColor.keys()],
      qaTypes: (db.prepare('SELECT DISTINCT type FROM qa ORDER BY type').all() as { type: string }[]).map((r) => r.type),
      hops: (db.prepare('SELECT DISTINCT hops FROM qa ORDER BY hops').all() as { hops: number }[]).map((r) => r.hops),
    }
  }

  /** Entities whose name contains `q` (case-insensitive), optionally of one type; exact-prefix matches first. */
  searchEntities(q: string, type: string | undefined, offset: number, limit: number): ListPage<EntitySummary> {
    const where: string[] = []
    const args: (string | number)[] = []
    if (q) {
      where.push("name LIKE ? ESCAPE '\\'")
      args.push(`%${q.replace(/[\\%_]/g, (c) => '\\' + c)}%`)
    }
    if (type) {
      where.push('type = ?')
      args.push(type)
    }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : ''
    const db = this.world.db
    const total = (db.prepare(`SELECT COUNT(*) AS n FROM entities ${w}`).get(...args) as { n: number }).n
    const order = q ? 'ORDER BY (lower(name) LIKE lower(?) || \'%\') DESC, name, id' : 'ORDER BY name, id'
    const items = db.prepare(`SELECT id, type, name, url FROM entities ${w} ${order} LIMIT ? OFFSET ?`).all(...args, ...(q ? [q] : []), limit, offset) as EntitySummary[]
    return { items, total, offset, limit }
  }

  private summary(id: string): EntitySummary {
    const r = this.world.db.prepare('SELECT id, type, name, url FROM entities WHERE id = ?').get(id) as EntitySummary | undefined
    return r ?? { id, type: '?', name: id, url: '' }
  }

  private verification(edgeId: string): EdgeView['verification'] {
    if (!this.hasVerification) return undefined
    const db = this.world.db
    const v = db.prepare('SELECT hits, kept FROM edge_verification WHERE edge_id = ?').get(edgeId) as { hits: number; kept: number } | undefined
    if (!v) return undefined
    const rows = db.prepare('SELECT style, query, rank, top_urls FROM verification_queries WHERE edge_id = ? ORDER BY qi').all(edgeId) as { style: string; query: string; rank: number; top_urls: string }[]
    const queries: VerificationQuery[] = rows.map((r) => ({ style: r.style, query: r.query, rank: r.rank, topUrls: JSON.parse(r.top_urls) as string[] }))
    const cfg = this.world.config.verification
    return { hits: v.hits, of: cfg?.queriesPerEdge ?? queries.length, kept: v.kept === 1, minHits: cfg?.minHits ?? null, queries }
  }

  edgeView(id: string): EdgeView | null {
    const e = this.world.edge(id)
    if (!e) return null
    return { id: e.id, relation: e.relation, source: this.summary(e.source), target: this.summary(e.target), verification: this.verification(e.id) }
  }

  entity(id: string, offset: number, limit: number): EntityView {
    const e = this.world.entity(id)
    if (!e) throw new HttpError(404, 'view.unknown_entity', `no entity with id '${id}' in this world; search for it by name on the entities page`)
    const db = this.world.db
    const total = (db.prepare('SELECT (SELECT COUNT(*) FROM edges WHERE source = ?) + (SELECT COUNT(*) FROM edges WHERE target = ?) AS n').get(id, id) as { n: number }).n
    const pageIds = db
      .prepare('SELECT id FROM (SELECT id, 0 AS dir FROM edges WHERE source = ? UNION ALL SELECT id, 1 AS dir FROM edges WHERE target = ?) ORDER BY dir, id LIMIT ? OFFSET ?')
      .all(id, id, limit, offset) as { id: string }[]
    const edges = pageIds.map((r) => this.edgeView(r.id)!).filter(Boolean)
    const doc = this.world.docOf(id) ?? null
    return {
      entity: { id: e.id, type: e.type, name: e.name, url: e.url, attrs: e.attrs },
      doc: doc ? this.docView(doc) : null,
      edges: { items: edges, total, offset, limit },
      graph: this.neighbourhood(id, total),
    }
  }

  private docView(doc: Doc): NonNullable<EntityView['doc']> {
    const { spans, located } = docSpans(doc.text, doc.facts.map((f) => f.sentence))
    const facts: FactView[] = doc.facts.map((f, i) => ({ kind: f.kind, ref: f.ref, sentence: f.sentence, located: located[i] }))
    return { url: doc.url, title: doc.title, spans, facts }
  }

  /** The entity and its direct neighbours (at most GRAPH_EDGE_CAP edges), on a circle around it. */
  private neighbourhood(id: string, totalEdges: number): GraphView {
    const db = this.world.db
    const rows = db
      .prepare('SELECT id, relation, source, target FROM edges WHERE source = ? UNION ALL SELECT id, relation, source, target FROM edges WHERE target = ? ORDER BY id LIMIT ?')
      .all(id, id, GRAPH_EDGE_CAP) as { id: string; relation: string; source: string; target: string }[]
    const g = new MultiDirectedGraph()
    const addNode = (nid: string) => {
      if (g.hasNode(nid)) return
      const s = this.summary(nid)
      g.addNode(nid, { label: s.name, entityType: s.type, color: this.typeColor.get(s.type) ?? '#999', size: nid === id ? 12 : 7, x: 0, y: 0 })
    }
    addNode(id)
    for (const r of rows) {
      addNode(r.source)
      addNode(r.target)
      g.addDirectedEdgeWithKey(r.id, r.source, r.target, { label: r.relation, color: '#aaa' })
    }
    const others = g.nodes().filter((n) => n !== id)
    others.forEach((n, i) => {
      // Start off the axes: sigma rescales each axis to its extent, and a flat layout (one neighbour) has none in y.
      const a = Math.PI / 4 + (2 * Math.PI * i) / Math.max(1, others.length)
      g.mergeNodeAttributes(n, { x: Math.cos(a), y: Math.sin(a) })
    })
    return this.graphView(g, Math.max(0, totalEdges - rows.length))
  }

  private graphView(g: MultiDirectedGraph, omitted: number): GraphView {
    const s = g.export()
    return {
      nodes: s.nodes.map((n) => ({ key: n.key, attributes: n.attributes as GraphView['nodes'][number]['attributes'] })),
      edges: (s.edges ?? []).map((e) => ({ key: e.key!, source: e.source, target: e.target, attributes: e.attributes as GraphView['edges'][number]['attributes'] })),
      omitted,
    }
  }

  questions(f: QuestionFilters, offset: number, limit: number): ListPage<QuestionSummary> {
    const where: string[] = []
    const args: (string | number)[] = []
    if (f.split) {
      where.push('split = ?')
      args.push(f.split)
    }
    if (f.type) {
      where.push('type = ?')
      args.push(f.type)
    }
    if (f.hops !== undefined) {
      where.push('hops = ?')
      args.push(f.hops)
    }
    if (f.entity) {
      where.push('seq IN (SELECT seq FROM temp.view_qa_docs WHERE url = (SELECT url FROM entities WHERE id = ?))')
      args.push(f.entity)
    }
    if (f.text) {
      where.push('instr(lower(question), lower(?)) > 0')
      args.push(f.text)
    }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : ''
    const db = this.world.db
    const total = (db.prepare(`SELECT COUNT(*) AS n FROM temp.view_qa ${w}`).get(...args) as { n: number }).n
    // An entity's questions list the held-out (bench) ones first: those are the ones runs answered.
    const order = f.entity ? "ORDER BY (split = 'bench') DESC, seq" : 'ORDER BY seq'
    const seqs = db.prepare(`SELECT seq FROM temp.view_qa ${w} ${order} LIMIT ? OFFSET ?`).all(...args, limit, offset) as { seq: number }[]
    const row = db.prepare('SELECT id, type, hops, split, question, answer FROM qa WHERE seq = ?')
    const items = seqs.map((r) => row.get(r.seq) as QaRowLite)
    return { items, total, offset, limit }
  }

  question(id: string, runs: QuestionView['runs']): QuestionView {
    const q = this.qaRow(id)
    if (!q) throw new HttpError(404, 'view.unknown_question', `no question with id '${id}' in this world; pick one from the questions page`)
    const hops: HopView[] = q.evidence.map((ev) => {
      const edgeId = ev.hop >= 0 ? q.path[ev.hop] : undefined
      const doc = this.world.doc(ev.url)
      const { spans } = doc ? docSpans(doc.text, [ev.sentence]) : { spans: [] as DocSpan[] }
      return { hop: ev.hop, edge: edgeId ? this.edgeView(edgeId) : null, url: ev.url, title: doc?.title ?? null, sentence: ev.sentence, spans }
    })
    return {
      id: q.id,
      type: q.type,
      hops: q.hops,
      split: q.stored,
      question: q.question,
      answer: q.answer,
      aliases: q.aliases,
      docs: q.docs,
      meta: q.meta,
      hops_: hops,
      tree: this.pathTreeView(q),
      runs,
    }
  }

  /** One question by id, whatever its stored split. */
  qaRow(id: string): (Qa & { stored: string }) | undefined {
    const r = this.world.db.prepare('SELECT * FROM qa WHERE id = ?').get(id) as Record<string, string | number> | undefined
    if (!r) return undefined
    const j = <T>(k: string) => JSON.parse(String(r[k])) as T
    return {
      id: String(r.id),
      type: String(r.type) as Qa['type'],
      hops: Number(r.hops),
      question: String(r.question),
      answer: String(r.answer),
      aliases: j<string[]>('aliases_json'),
      path: j<string[]>('path_json'),
      docs: j<string[]>('docs_json'),
      evidence: j<Qa['evidence']>('evidence_json'),
      split: String(r.split) as Qa['split'],
      meta: j<Record<string, unknown>>('meta_json'),
      stored: String(r.split),
    }
  }

  /** The question's path as a tree rooted at its answer (view/path-tree), with names, types and relations. */
  private pathTreeView(q: Qa): PathTreeView {
    const edge = (id: string) => this.world.edge(id) ?? undefined
    const t = pathTree(q.path, q.meta, edge)
    return {
      answer: q.answer,
      nodes: t.nodes.map((n) => {
        if (n.key === ROOT) return { ...n, label: q.answer, entityType: 'answer', color: '#243447' }
        const s = this.summary(n.key)
        return { ...n, label: s.name, entityType: s.type, color: this.typeColor.get(s.type) ?? '#999' }
      }),
      edges: t.edges.map((e) => {
        const w = this.world.edge(e.key)!
        return { ...e, relation: w.relation, source: w.source, target: w.target }
      }),
      joins: t.joins,
    }
  }
}
