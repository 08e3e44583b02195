// tests/gym-verify-edges: the world's edge verification re-run through /retrieve units on the shared tiny world. The
// page re-run must reproduce the build's stored figures exactly (per edge hits, per query the same query text), which
// is what makes the passage figure comparable; the passage figure is computed from real passages (an edge whose target
// page is made to lose its query words falls out of the top-K passages and fails); and the CLI reports both.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openGymWorld, verifyEdgesByUnit, type GymWorld } from '../gym'
import { ENTITY_TYPES, RELATIONS, openWorld, verificationQuerySets } from '../world'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

const schema = { relations: RELATIONS, types: ENTITY_TYPES }
let dir: string
let out: string
beforeAll(async () => {
  dir = (await sharedTinyWorld()).dir
  out = mkdtempSync(join(tmpdir(), 'sg-verify-edges-'))
}, 300_000)
afterAll(() => rmSync(out, { recursive: true, force: true }))

test('the regenerated queries are the ones the build stored, and the page re-run reproduces every stored hit count', async () => {
  const w = openWorld(dir)
  const gw = await openGymWorld(dir)
  try {
    const { settings, edges } = verificationQuerySets(w.db, schema)
    const stored = w.db.prepare('SELECT edge_id, qi, query FROM verification_queries ORDER BY edge_id, qi').all() as { edge_id: string; qi: number; query: string }[]
    const regenerated = edges.flatMap((e) => e.queries.map((q, qi) => ({ edge_id: e.id, qi, query: q.query })))
    expect(regenerated).toEqual(stored)
    const keptInDb = (w.db.prepare('SELECT COUNT(*) AS n FROM edge_verification WHERE kept = 1').get() as { n: number }).n
    const hitsInDb = (w.db.prepare('SELECT SUM(hits) AS n FROM edge_verification').get() as { n: number }).n
    const r = await verifyEdgesByUnit(gw, settings, edges, { units: ['page', 'passage'] })
    expect(r.edges).toBe(edges.length)
    expect(r.page!.mismatches).toEqual([])
    expect(r.page!.kept).toBe(keptInDb)
    expect(r.page!.hits).toBe(hitsInDb)
    // Passage figures are computed, in range, and the stricter evidence rule keeps no more than the document rule.
    expect(r.passage!.kept).toBeGreaterThan(0)
    expect(r.passage!.kept).toBeLessThanOrEqual(edges.length)
    expect(r.passageEvidence!.kept).toBeLessThanOrEqual(r.passage!.kept)
    expect(r.latency.page!.queries).toBeGreaterThan(0)
    expect(r.latency.passage!.queries).toBe(r.latency.page!.queries)
  } finally {
    w.close()
    await gw.close()
  }
})

test("an edge whose target page loses its query words falls out of the top-K passages and fails through passages only", async () => {
  const w = openWorld(dir)
  const gw = await openGymWorld(dir)
  try {
    const { settings, edges } = verificationQuerySets(w.db, schema)
    const base = await verifyEdgesByUnit(gw, settings, edges, { units: ['page', 'passage'] })
    const lost = new Set(base.lostThroughPassages)
    // An edge kept both ways whose target is the target of no other edge (so the change touches one edge's figure).
    const targets = new Map<string, number>()
    for (const e of edges) targets.set(e.targetUrl, (targets.get(e.targetUrl) ?? 0) + 1)
    const edge = edges.find((e) => e.kept && !lost.has(e.id) && targets.get(e.targetUrl) === 1)!
    expect(edge).toBeDefined()
    // Same engine ranking of pages; only the target page's text (what passages are cut from) holds none of the words.
    const filler = Array.from({ length: 60 }, (_, i) => `Filler sentence number ${i} says nothing here.`).join(' ')
    const crafted: GymWorld = {
      ...gw,
      search: (q, k) => gw.search(q, k),
      access: async (url) => {
        const p = await gw.access(url)
        return p && url === edge.targetUrl ? { ...p, title: 'Untitled', text: filler } : p
      },
    }
    const r = await verifyEdgesByUnit(crafted, settings, [edge], { units: ['page', 'passage'] })
    expect(r.page!.kept).toBe(1)
    expect(r.page!.mismatches).toEqual([])
    expect(r.passage!.kept).toBe(0)
    expect(r.lostThroughPassages).toEqual([edge.id])
  } finally {
    w.close()
    await gw.close()
  }
})

test('gym check --retrieve-unit passage --verify-edges prints and writes both units; bad flags exit non-zero with one line', async () => {
  const json = join(out, 've.json')
  const r = await runCli(['gym', 'check', dir, '--retrieve-unit', 'passage', '--verify-edges', '--json', json, '--quiet'])
  expect(r.code).toBe(0)
  expect(r.stdout).toMatch(/pages \(re-run\): +kept \d+\/\d+ .*every edge has the hits the build stored/)
  expect(r.stdout).toMatch(/passages: +kept \d+\/\d+/)
  expect(r.stdout).toMatch(/latency per query, passages: mean [\d.]+ ms/)
  expect(r.stdout).toMatch(/informational/)
  const rep = JSON.parse(readFileSync(json, 'utf8'))
  const w = openWorld(dir)
  try {
    const keptInDb = (w.db.prepare('SELECT COUNT(*) AS n FROM edge_verification WHERE kept = 1').get() as { n: number }).n
    expect(rep.page.kept).toBe(keptInDb)
    expect(rep.stored.kept).toBe(keptInDb)
  } finally {
    w.close()
  }
  expect(typeof rep.passage.kept).toBe('number')
  expect(rep.questionsUsingLostEdges.of).toBeGreaterThan(0)
  const few = await runCli(['gym', 'check', dir, '--verify-edges', '--set', 'edges=20', '--set', 'quiet=true'])
  expect(few.code).toBe(0)
  expect(few.stdout).toMatch(/through page: 20 of \d+ edges/)
  expect(few.stdout).not.toMatch(/passages:/)
  const bad = await runCli(['gym', 'check', dir, '--verify-edges', '--set', 'edges=0'])
  expect(bad.code).not.toBe(0)
  expect(bad.stderr.trim().split('\n')).toHaveLength(1)
  expect(bad.stderr).toMatch(/edges \(--set\) must be an integer ≥ 1, got 0/)
})
