// tests/world-fact-disjoint: held out by fact, on real tiny worlds built by the CLI. The held-out slice `train` and
// `train sft` take (CurriculumSource) shares no edge with any question left to train on, for several seeds and
// sizes; `world stats --json` reports the bench's and that slice's fact overlap (checked against a count written
// here from the world file); and a world built with split.factDisjoint keeps the same bench (exactly the tiny
// preset's 20 / 6 / 3) while no training question shares an edge with it. The paper preset's 462 / 134 / 46 with
// the option is in bench/RESULTS.md ("Fact-disjoint evaluation (issue 34)"): a paper build is minutes, not CI.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Rng } from '../infra/rng'
import { openWorld, pickHeldOut, readQa, type Qa } from '../world'
import { CurriculumSource } from '../curriculum/source'
import { curriculumPreset } from '../curriculum/stages'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

const root = mkdtempSync(join(tmpdir(), 'sg-fact-disjoint-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function questions(dir: string): { train: Qa[]; bench: Qa[] } {
  const w = openWorld(dir)
  try {
    return { train: readQa(w.db, ['train']), bench: readQa(w.db, ['bench']) }
  } finally {
    w.close()
  }
}


test('within a world, the held-out slice shares no edge with any question left to train on', async () => {
  const { dir } = await sharedTinyWorld()
  const { train } = questions(dir)
  expect(train.length).toBeGreaterThan(100)
  for (const seed of [0, 1, 7])
    for (const heldOut of [8, 24, 64]) {
      const src = new CurriculumSource(curriculumPreset('mixed', 1), train, { seed, heldOut })
      const held = src.heldOut()
      const pool = src.trainingPool()
      const heldEdges = new Set(held.flatMap((q) => q.path))
      expect(held).toHaveLength(heldOut)
      // the same pick as before the exclusion existed: only what it may train on changed
      expect(held.map((q) => q.id).sort()).toEqual([...pickHeldOut(train, heldOut, seed)].sort())
      expect(pool.length).toBeGreaterThan(0)
      expect(pool.filter((q) => q.path.some((e) => heldEdges.has(e)))).toEqual([])
      const info = src.heldOutInfo()
      expect(info).toEqual({ heldOut, heldFacts: heldEdges.size, excluded: train.length - heldOut - pool.length, train: pool.length })
      // what is excluded really shares an edge (the exclusion costs no more than it must)
      const poolIds = new Set(pool.map((q) => q.id))
      const heldIds = new Set(held.map((q) => q.id))
      for (const q of train) if (!poolIds.has(q.id) && !heldIds.has(q.id)) expect(q.path.some((e) => heldEdges.has(e))).toBe(true)
      // and the stage orders draw from that pool only
      const drawn = src.next(200, Rng.derive(seed, 'draw'))
      expect(drawn.every((q) => poolIds.has(q.id))).toBe(true)
      expect(src.heldOutLine()).toContain(`held out ${heldOut} training questions (${heldEdges.size} edges); excluded ${info.excluded} of the other ${info.excluded + info.train}`)
    }
}, 300_000)

test('world stats --json reports the fact overlap of the bench and of the held-out slice with the training questions', async () => {
  const { dir } = await sharedTinyWorld()
  const { train, bench } = questions(dir)
  const r = await runCli(['world', 'stats', dir, '--json', '--held-out', '24', '--held-out-seed', '1'])
  expect(r.code).toBe(0)
  const facts = JSON.parse(r.stdout).facts
  // Counted here from the world file, the plain way.
  const onTrain = new Set(train.flatMap((q) => q.path))
  const direct = new Set(train.filter((q) => q.type === 'simple' && q.hops === 1).map((q) => q.path[0]))
  const every = (qs: Qa[], on: Set<string>) => qs.filter((q) => q.path.every((e) => on.has(e))).length
  const asked = (qs: Qa[], d: Set<string>) => qs.filter((q) => q.path.some((e) => d.has(e))).length
  expect(facts.bench.questions).toBe(29)
  expect(facts.bench.everyEdge).toBe(every(bench, onTrain))
  expect(facts.bench.askedDirectly).toBe(asked(bench, direct))
  expect(facts.bench.anyEdge).toBe(bench.filter((q) => q.path.some((e) => onTrain.has(e))).length)
  expect(facts.bench.everyEdge).toBeGreaterThan(0) // the tiny world's bench does share facts with its training split
  expect(facts.bench.insideOne).toBeLessThanOrEqual(facts.bench.everyEdge)
  expect(facts.factDisjoint).toBeNull()
  // The held-out slice: the one train --held-out 24 --seed 1 takes, before and after its fact exclusion.
  const src = new CurriculumSource(curriculumPreset('mixed', 1), train, { seed: 1, heldOut: 24 })
  const heldIds = new Set(src.heldOut().map((q) => q.id))
  const rest = train.filter((q) => !heldIds.has(q.id))
  expect(facts.heldOut).toMatchObject({ size: 24, seed: 1, picked: 24, excluded: src.heldOutInfo().excluded, train: src.heldOutInfo().train })
  expect(facts.heldOut.beforeExclusion.everyEdge).toBe(every(src.heldOut(), new Set(rest.flatMap((q) => q.path))))
  expect(facts.heldOut.afterExclusion).toEqual({ questions: 24, anyEdge: 0, everyEdge: 0, insideOne: 0, askedDirectly: 0 })
  const human = await runCli(['world', 'stats', dir, '--held-out', '24', '--held-out-seed', '1'])
  expect(human.stdout).toContain(`facts      bench vs train: every edge on a training path ${facts.bench.everyEdge} of 29`)
  expect(human.stdout).toContain(`an edge a one-hop training question asks ${facts.bench.askedDirectly}`)
  expect(human.stdout).toContain(`held-out 24 (seed 1) vs the rest as picked`)
  const bad = await runCli(['world', 'stats', dir, '--held-out', '-3'])
  expect(bad.code).not.toBe(0)
  expect(bad.stderr).toContain('--held-out must be a non-negative integer, got -3')
}, 300_000)

test('split.factDisjoint builds the same bench (exactly 20 / 6 / 3) and no training question shares an edge with it', async () => {
  const shared = await sharedTinyWorld()
  const cfg = join(root, 'fact-disjoint.json')
  writeFileSync(cfg, JSON.stringify({ split: { factDisjoint: true } }))
  const dir = join(root, 'tiny-fd')
  const b = await runCli(['world', 'build', '--preset', 'tiny', '--config', cfg, '--out', dir, '--quiet'], 300_000)
  expect(b.code).toBe(0)
  const hash = /^hash\s+([0-9a-f]{64})$/m.exec(b.stdout)?.[1]
  expect(hash).toBeDefined()
  expect(hash).not.toBe(shared.hash) // the training split differs, so does the content
  const plain = questions(shared.dir)
  const fd = questions(dir)
  const count = (qs: Qa[]) => ({ simple: qs.filter((q) => q.type === 'simple').length, parallel: qs.filter((q) => q.type === 'parallel').length, combo: qs.filter((q) => q.type === 'combo').length })
  expect(count(fd.bench)).toEqual({ simple: 20, parallel: 6, combo: 3 })
  expect(fd.bench.map((q) => q.id).sort()).toEqual(plain.bench.map((q) => q.id).sort())
  const benchEdges = new Set(fd.bench.flatMap((q) => q.path))
  expect(fd.train.length).toBeGreaterThan(0)
  expect(fd.train.filter((q) => q.path.some((e) => benchEdges.has(e)))).toEqual([])
  // it removes exactly the plain world's training questions that share a bench edge
  const cost = plain.train.filter((q) => q.path.some((e) => benchEdges.has(e))).length
  expect(cost).toBeGreaterThan(0)
  expect(fd.train.map((q) => q.id).sort()).toEqual(plain.train.filter((q) => !q.path.some((e) => benchEdges.has(e))).map((q) => q.id).sort())
  const s = await runCli(['world', 'stats', dir, '--json'])
  const facts = JSON.parse(s.stdout).facts
  expect(facts.factDisjoint).toEqual({ excluded: cost, trainBefore: plain.train.length, benchFacts: benchEdges.size })
  expect(facts.bench).toMatchObject({ questions: 29, anyEdge: 0, everyEdge: 0, askedDirectly: 0 })
  expect((await runCli(['world', 'stats', dir])).stdout).toContain(`split.factDisjoint: ${cost} of ${plain.train.length} training questions excluded`)
}, 600_000)
