// agent/cli/verify-edges: `gym check DIR --verify-edges [--retrieve-unit passage]` — the world's edge verification re-run
// through the gym's /retrieve units (gym/unit-verify), with progress, plus how many served questions use an edge that
// fails through passages; and the report as printed. Knows the CLI's wording, not how units rank.
import { ENTITY_TYPES, RELATIONS, verificationQuerySets } from '../../world'
import { verifyEdgesByUnit, type GymWorld, type RetrieveUnit, type UnitVerifyReport } from '../../gym'
import { progress } from '../../infra/progress'
import type { Db } from '../../infra/store'

export interface VerifyEdgesCheck extends UnitVerifyReport {
  /** Served questions (train and bench) whose gold path uses an edge the build kept but passages fail; they are
   *  still served through passages when the oracle solves them (this figure does not decide serving). */
  questionsUsingLostEdges?: { questions: number; of: number }
}

export async function verifyEdgesCheck(
  world: GymWorld,
  db: Db,
  opts: { unit: RetrieveUnit; edges?: number; quiet?: boolean },
): Promise<VerifyEdgesCheck> {
  const { settings, edges: all } = verificationQuerySets(db, { relations: RELATIONS, types: ENTITY_TYPES })
  const edges = opts.edges === undefined ? all : all.slice(0, opts.edges)
  const units: RetrieveUnit[] = opts.unit === 'passage' ? ['page', 'passage'] : ['page']
  const bar = progress(`verify edges through ${units.join(' and ')}`, edges.length, { quiet: opts.quiet })
  const r: VerifyEdgesCheck = await verifyEdgesByUnit(world, settings, edges, { units, worldEdges: all.length, onEdge: () => bar.tick() })
  bar.done()
  if (r.passage) {
    const lost = new Set(r.lostThroughPassages)
    const qas = world.listQa()
    r.questionsUsingLostEdges = { questions: qas.filter((q) => q.path.some((e) => lost.has(e))).length, of: qas.length }
  }
  return r
}

const pct = (n: number, d: number) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`)

export function formatUnitVerifyReport(dir: string, r: VerifyEdgesCheck): string {
  const n = r.edges
  const lines = [
    `edge verification of ${dir} re-run through ${r.units.join(' and ')}: ${n}${n < r.worldEdges ? ` of ${r.worldEdges}` : ''} edges, engine ${r.engine}, ${r.queriesPerEdge} queries per edge, kept iff the target is in the top-${r.topK} for >= ${r.minHits} (${r.seconds} s)`,
    `  build (stored):  kept ${r.stored.kept}/${n} (${pct(r.stored.kept, n)})`,
  ]
  if (r.page)
    lines.push(
      `  pages (re-run):  kept ${r.page.kept}/${n} (${pct(r.page.kept, n)}); ${r.page.mismatches.length === 0 ? 'every edge has the hits the build stored' : `${r.page.mismatches.length} edges differ from the build: ${r.page.mismatches.slice(0, 10).join(', ')}`}`,
    )
  if (r.passage) lines.push(`  passages:        kept ${r.passage.kept}/${n} (${pct(r.passage.kept, n)}) — a hit is a passage of the target document in the top-${r.topK} passages`)
  if (r.passageEvidence)
    lines.push(
      `  passages+evidence: kept ${r.passageEvidence.kept}/${n} (${pct(r.passageEvidence.kept, n)}) — a hit is a top-${r.topK} passage of the target holding a sentence that states the edge${r.passageEvidence.edgesWithoutEvidence ? ` (${r.passageEvidence.edgesWithoutEvidence} edges have no such sentence in the target)` : ''}`,
    )
  if (r.passage) {
    lines.push(`  kept by the build but failing through passages: ${r.lostThroughPassages.length}${r.lostThroughPassages.length ? ` (${r.lostThroughPassages.slice(0, 10).join(', ')}${r.lostThroughPassages.length > 10 ? ', …' : ''})` : ''}`)
    if (r.questionsUsingLostEdges)
      lines.push(
        `  served questions using such an edge: ${r.questionsUsingLostEdges.questions}/${r.questionsUsingLostEdges.of} — informational: gym serve --retrieve-unit passage serves the world's questions; which are solvable through passages is what \`gym check --format NAME --retrieve-unit passage\` (and world export --retrieve-unit passage) decide`,
      )
  }
  const rels = Object.entries(r.byRelation).sort(([x], [y]) => (x < y ? -1 : 1))
  lines.push(`  by relation (edges: build${r.page ? ' / pages' : ''}${r.passage ? ' / passages / passages+evidence' : ''} kept):`)
  for (const [rel, c] of rels)
    lines.push(`    ${rel} ${c.edges}: ${[c.stored, c.page, c.passage, c.passageEvidence].filter((x) => x !== undefined).join(' / ')}`)
  for (const u of r.units) {
    const l = r.latency[u]
    if (l) lines.push(`  latency per query, ${u}s: mean ${l.meanMs} ms, p50 ${l.p50Ms} ms, p95 ${l.p95Ms} ms (${l.queries} distinct queries, top-${r.topK})`)
  }
  return lines.join('\n') + '\n'
}
