// world/qa/blur-pool: blurs a drawn QA pool (config.qa.blur) — per question one seeded draw whether to blur, which
// chain start, and its cues (world/qa/blur); the description replaces the start's words in the question; then each
// description is verified like an edge: its cue queries go to the world's own engine and it is kept iff at least
// minHits of them put the start's page in the top-K. Questions not blurred are returned untouched.
import { Rng } from '../../infra/rng'
import type { BlurConfig } from '../config'
import type { SearchIndex } from '../search/types'
import type { Qa } from '../types'
import { buildBlurIndex, drawBlur } from './blur'
import { startText } from './describe'
import { buildGraphIndex, type GraphIndex } from './graph-index'
import type { BlurDesc, ChainSpec, ComboMeta, ParallelMeta, SimpleMeta } from './spec'
import { capitalise } from './verbalise'
import type { QaWorldView } from './view'

/** The blur's counts in the world folder (written by the qa stage when config.qa.blur is on). */
export const BLUR_REPORT_FILE = 'blur-report.json'

export interface BlurStats {
  /** Questions the rate drew for blurring. */
  drawn: number
  /** Of those: no cue set fits exactly the start / the start's words not found once in the question / search did not
   *  resolve the description (fewer than minHits queries hit). */
  noDescription: number
  noPlace: number
  unresolved: number
  blurred: number
  /** Blurred questions by QA type, and cues (besides the type) per kept description by entity type. */
  byQaType: Record<string, number>
  cuesByType: Record<string, Record<number, number>>
  /** Cues (besides the type) the draw needed before exactly one entity was left, by entity type. */
  neededByType: Record<string, Record<number, number>>
  /** Queries asked and hits over all verified descriptions. */
  queries: number
  hits: number
}

/** The chains of a QA whose start is named (the ones a blur may replace), in meta order. */
export function namedChains(qa: Qa): ChainSpec[] {
  if (qa.type === 'simple') return [(qa.meta as unknown as SimpleMeta).chain]
  if (qa.type === 'parallel') {
    const m = qa.meta as unknown as ParallelMeta
    return [m.a, m.b]
  }
  const m = qa.meta as unknown as ComboMeta
  return m.kind === 'compare-chain' ? [m.part1.a, m.part1.b] : [m.part1.chain]
}

/** Whether any chain of the QA starts from a blurred description. */
export function isBlurred(qa: Qa): boolean {
  return namedChains(qa).some((c) => c.desc.kind === 'blur')
}

/** The one place `old` stands in the question (its first letter may be capitalised), or -1. */
function placeOf(question: string, old: string): number {
  const forms = [old, capitalise(old)]
  let at = -1
  let n = 0
  for (const f of new Set(forms))
    for (let i = question.indexOf(f); i >= 0; i = question.indexOf(f, i + 1)) {
      at = i
      n++
    }
  return n === 1 ? at : -1
}

interface Pending {
  index: number
  chain: ChainSpec
  url: string
  draft: { cues: BlurDesc['cues']; text: string; queries: string[]; needed: number; via?: string }
  /** two-step: the neighbour's page, when it names the entity (else the description cannot be resolved through it). */
  viaUrl?: string
  question: string
}

export async function blurPool(
  view: QaWorldView,
  qas: readonly Qa[],
  cfg: BlurConfig,
  seed: number,
  search: SearchIndex,
  topK: number,
  maxHops = 12,
  /** A document's text (two-step descriptions: the neighbour's page must name the entity). */
  docText: (url: string) => string | undefined = () => undefined,
): Promise<{ qas: Qa[]; stats: BlurStats }> {
  const g: GraphIndex = buildGraphIndex(view, maxHops)
  const b = buildBlurIndex(g)
  const root = Rng.derive(seed, 'qa-blur')
  const stats: BlurStats = { drawn: 0, noDescription: 0, noPlace: 0, unresolved: 0, blurred: 0, byQaType: {}, cuesByType: {}, neededByType: {}, queries: 0, hits: 0 }
  const out = qas.slice()
  const pending: Pending[] = []
  qas.forEach((qa, index) => {
    // One stream per question (by id): whether and how a question is blurred does not depend on the others.
    const rng = root.fork(qa.id)
    if (!rng.bool(cfg.rate)) return
    stats.drawn++
    const chains = namedChains(qa)
    const chain = rng.pick(chains)
    const i = g.entityIndex.get(chain.start)
    if (i === undefined) return void stats.noDescription++
    // The question's own entities (both ends of every edge of its path) are never cues.
    const avoid = new Set<number>()
    for (const id of qa.path) {
      const e = g.edges[g.edgeIndex.get(id) ?? -1]
      if (!e) continue
      for (const x of [e.source, e.target]) {
        const k = g.entityIndex.get(x)
        if (k !== undefined && k !== i) avoid.add(k)
      }
    }
    for (const c of chains) if (c !== chain) avoid.add(g.entityIndex.get(c.start) ?? -1)
    const draft = drawBlur(b, rng, i, avoid, { minCues: cfg.minCues, maxCues: cfg.maxCues, style: cfg.style })
    if (!draft) return void stats.noDescription++
    const old = startText(g, i, chain.desc)
    const at = placeOf(qa.question, old)
    if (at < 0) return void stats.noPlace++
    // A template's own article before a bare name ("the {s}" around "Falcioni Medal") would double the description's.
    let before = qa.question.slice(0, at)
    const article = /(^|\s)(the|The|a|A|an|An) $/.exec(before)
    if (article) before = before.slice(0, before.length - article[2].length - 1)
    const words = before.length === 0 || /[.?!]\s*$/.test(before) ? capitalise(draft.text) : draft.text
    const question = before + words + qa.question.slice(at + old.length)
    if (question.includes(g.entities[i].name)) return void stats.noPlace++
    let viaUrl: string | undefined
    if (draft.via !== undefined) {
      const v = g.entities[g.entityIndex.get(draft.via)!]
      if (!(docText(v.url) ?? '').includes(g.entities[i].name)) return void stats.unresolved++
      viaUrl = v.url
    }
    pending.push({ index, chain, url: g.entities[i].url, draft: { ...draft, queries: draft.queries.slice(0, cfg.queries) }, question, ...(viaUrl ? { viaUrl } : {}) })
  })
  // Verification: every description's queries in one batched search, chunked so memory stays flat.
  const CHUNK = 512
  for (let s = 0; s < pending.length; s += CHUNK) {
    const part = pending.slice(s, s + CHUNK)
    const flat = part.flatMap((p) => p.draft.queries)
    const results = await search.searchMany(flat, { k: topK })
    let r = 0
    for (const p of part) {
      const hit = p.draft.queries.map(() => results[r++].slice(0, topK).some((h) => h.url === p.url || h.url === p.viaUrl))
      const hits = hit.filter(Boolean).length
      stats.queries += hit.length
      stats.hits += hits
      if (hits < cfg.minHits) {
        stats.unresolved++
        continue
      }
      // Hits first (the order the oracle tries them), each group in draw order.
      const queries = [...p.draft.queries.filter((_, k) => hit[k]), ...p.draft.queries.filter((_, k) => !hit[k])]
      const desc: BlurDesc = { kind: 'blur', cues: p.draft.cues, text: p.draft.text, queries, hits, ...(p.draft.via !== undefined ? { via: p.draft.via } : {}) }
      const qa = out[p.index]
      out[p.index] = { ...qa, question: p.question, meta: replaceDesc(qa.meta, p.chain, desc) }
      stats.blurred++
      stats.byQaType[qa.type] = (stats.byQaType[qa.type] ?? 0) + 1
      const type = g.entities[g.entityIndex.get(p.chain.start)!].type
      const n = p.draft.cues.length - 1
      const row = (stats.cuesByType[type] ??= {})
      row[n] = (row[n] ?? 0) + 1
      const need = (stats.neededByType[type] ??= {})
      need[p.draft.needed] = (need[p.draft.needed] ?? 0) + 1
    }
  }
  return { qas: out, stats }
}

/** A copy of meta with `chain`'s description replaced (the chain found by identity in the original meta). */
function replaceDesc(meta: Record<string, unknown>, chain: ChainSpec, desc: BlurDesc): Record<string, unknown> {
  const walk = (v: unknown): unknown => {
    if (v === chain) return { ...chain, desc }
    if (Array.isArray(v)) return v.map(walk)
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
    return v
  }
  return walk(meta) as Record<string, unknown>
}
