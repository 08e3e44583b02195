// gym/unit-verify: the world's edge verification re-run through a /retrieve unit — each verified edge's queries (as
// world/verify generated them for the build) asked at the same top-K, once of the engine's pages (which must reproduce
// the build's figures) and once of the passages gym/passages ranks; keep rule and K are the build's. Reports kept
// edges per unit, by relation, and the per-query latency of each unit. Knows no CLI and no HTTP.
import type { EdgeQuerySet, RetrieveUnit, VerifySettings } from '../world'
import { passageRetriever } from './passages'
import type { GymWorld } from './world-view'

export interface UnitCounts {
  /** Edges kept: at least minHits of their queries put the target in the top-K. */
  kept: number
  /** Total query hits over all edges. */
  hits: number
}

export interface LatencySummary {
  /** Distinct queries timed (a query asked by several edges is searched once, as the build does). */
  queries: number
  meanMs: number
  p50Ms: number
  p95Ms: number
}

export interface UnitVerifyReport {
  engine: string
  topK: number
  minHits: number
  queriesPerEdge: number
  units: RetrieveUnit[]
  /** Edges re-run (all the world verified, or the first `limit` by id). */
  edges: number
  worldEdges: number
  /** The build's own figures for these edges. */
  stored: UnitCounts
  /** Page unit re-run; `mismatches`: edges whose hits differ from the build's (0 when the re-run reproduces it). */
  page?: UnitCounts & { mismatches: string[] }
  /** Passage unit: a hit is a passage of the target document in the top-K passages. */
  passage?: UnitCounts
  /** Passage unit, stricter: a hit is a top-K passage of the target document that holds one of the edge's sentences. */
  passageEvidence?: UnitCounts & { edgesWithoutEvidence: number }
  /** Edges the build kept that fail through passages (ids, sorted). */
  lostThroughPassages: string[]
  byRelation: Record<string, { edges: number; stored: number; page?: number; passage?: number; passageEvidence?: number }>
  latency: Partial<Record<RetrieveUnit, LatencySummary>>
  seconds: number
}

export interface UnitVerifyOptions {
  units: RetrieveUnit[]
  /** Called after each edge (done, total) — progress. */
  onEdge?: (done: number, total: number) => void
}

const summarize = (ms: number[]): LatencySummary => {
  const s = ms.slice().sort((a, b) => a - b)
  const at = (q: number) => (s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : 0)
  const r = (x: number) => Math.round(x * 1000) / 1000
  return { queries: s.length, meanMs: r(s.length ? s.reduce((a, b) => a + b, 0) / s.length : 0), p50Ms: r(at(0.5)), p95Ms: r(at(0.95)) }
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim()

/** Re-run the verification of `edges` (from world verificationQuerySets) through `units` against `world`. */
export async function verifyEdgesByUnit(
  world: GymWorld,
  settings: VerifySettings,
  edges: EdgeQuerySet[],
  opts: UnitVerifyOptions & { worldEdges?: number },
): Promise<UnitVerifyReport> {
  const t0 = performance.now()
  const { topK, minHits } = settings
  const units = opts.units
  const retrieve = units.includes('passage') ? passageRetriever(world) : undefined
  // query → result, per unit (each distinct query searched once, as world/verify does); the timings of those searches.
  const pageTop = new Map<string, string[]>()
  const passTop = new Map<string, { url: string; contents: string }[]>()
  const times: Record<RetrieveUnit, number[]> = { page: [], passage: [] }
  const pageOf = async (q: string) => {
    let r = pageTop.get(q)
    if (!r) {
      const t = performance.now()
      r = (await world.search(q, topK)).map((h) => h.url)
      times.page.push(performance.now() - t)
      pageTop.set(q, r)
    }
    return r
  }
  const passagesOf = async (q: string) => {
    let r = passTop.get(q)
    if (!r) {
      const t = performance.now()
      r = (await retrieve!(q, topK)).map((p) => ({ url: p.url, contents: squash(p.contents) }))
      times.passage.push(performance.now() - t)
      passTop.set(q, r)
    }
    return r
  }
  const zero = (): UnitCounts => ({ kept: 0, hits: 0 })
  const stored = zero()
  const page = units.includes('page') ? { ...zero(), mismatches: [] as string[] } : undefined
  const passage = retrieve ? zero() : undefined
  const passageEvidence = retrieve ? { ...zero(), edgesWithoutEvidence: 0 } : undefined
  const lost: string[] = []
  const byRelation: UnitVerifyReport['byRelation'] = {}
  let done = 0
  for (const e of edges) {
    const rel = (byRelation[e.relation] ??= { edges: 0, stored: 0, ...(page ? { page: 0 } : {}), ...(passage ? { passage: 0, passageEvidence: 0 } : {}) })
    rel.edges++
    stored.hits += e.hits
    if (e.kept) {
      stored.kept++
      rel.stored++
    }
    if (page) {
      let hits = 0
      for (const q of e.queries) if ((await pageOf(q.query)).includes(e.targetUrl)) hits++
      page.hits += hits
      if (hits !== e.hits) page.mismatches.push(e.id)
      if (hits >= minHits) {
        page.kept++
        rel.page!++
      }
    }
    if (passage && passageEvidence) {
      const evidence = e.evidence.map(squash)
      if (evidence.length === 0) passageEvidence.edgesWithoutEvidence++
      let hits = 0
      let evHits = 0
      for (const q of e.queries) {
        const top = (await passagesOf(q.query)).filter((p) => p.url === e.targetUrl)
        if (top.length > 0) hits++
        if (top.some((p) => evidence.some((s) => p.contents.includes(s)))) evHits++
      }
      passage.hits += hits
      passageEvidence.hits += evHits
      if (hits >= minHits) {
        passage.kept++
        rel.passage!++
      } else if (e.kept) lost.push(e.id)
      if (evHits >= minHits) {
        passageEvidence.kept++
        rel.passageEvidence!++
      }
    }
    opts.onEdge?.(++done, edges.length)
  }
  const latency: UnitVerifyReport['latency'] = {}
  for (const u of units) latency[u] = summarize(times[u])
  return {
    engine: settings.engine,
    topK,
    minHits,
    queriesPerEdge: settings.queriesPerEdge,
    units,
    edges: edges.length,
    worldEdges: opts.worldEdges ?? edges.length,
    stored,
    ...(page ? { page } : {}),
    ...(passage ? { passage } : {}),
    ...(passageEvidence ? { passageEvidence } : {}),
    lostThroughPassages: lost.sort(),
    byRelation,
    latency,
    seconds: Math.round((performance.now() - t0) / 10) / 100,
  }
}
