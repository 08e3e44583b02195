// tests/qa-blur: a tiny world built with qa.blur on (the checked pipeline, oracle check included) — every blurred
// description fits exactly one entity when re-checked on the graph by world/qa/blur-check (not the generator's code),
// a crafted ambiguous description is rejected, the oracle solves every served blurred question through the env's
// own tools (searches on the cues, candidate pages opened), and blur off leaves the config (so the hash) as before.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CHECKED_WORLD_STAGES, runOracle } from '../agent'
import { worldOracleKnowledge } from '../agent/oracle/oracle-knowledge'
import { CHECK_GYM_OPTIONS } from '../agent/oracle/oracle-check'
import { gymWorldFromIndex, makeEnv } from '../gym'
import { canonicalJson } from '../infra/hash'
import { curriculumPreset, inStage } from '../curriculum/stages'
import { buildWorld, openSearchIndex, openWorld, worldReader } from '../world'
import { presetConfig, resolveConfig } from '../world/config'
import { checkBlurDesc, makeBlurMatcher } from '../world/qa/blur-check'
import { BLUR_REPORT_FILE, isBlurred, namedChains } from '../world/qa/blur-pool'
import { makeQaChecker } from '../world/qa/check'
import { docText, loadQaView } from '../world/qa/load'
import { readQa } from '../world/qa/store'
import type { BlurDesc, Cue } from '../world/qa/spec'
import type { Qa } from '../world/types'

const root = mkdtempSync(join(tmpdir(), 'sg-blur-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const dir = join(root, 'tiny-blur')
const config = resolveConfig({ qa: { blur: { rate: 0.5 } } }, presetConfig('tiny'))
// The two-step style (one neighbour shared by a few entities, then values and ranges): resolved via the neighbour's page.
const dir2 = join(root, 'tiny-blur-two-step')
const config2 = resolveConfig({ qa: { blur: { rate: 0.6, style: 'two-step' } } }, presetConfig('tiny'))
let served: Qa[] = []
let served2: Qa[] = []
let hash = ''

const readServed = (d: string): Qa[] => {
  const w = openWorld(d)
  try {
    return readQa(w.db)
  } finally {
    w.close()
  }
}

beforeAll(async () => {
  hash = (await buildWorld({ config, dir, quiet: true, stages: CHECKED_WORLD_STAGES })).hash
  await buildWorld({ config: config2, dir: dir2, quiet: true, stages: CHECKED_WORLD_STAGES })
  served = readServed(dir)
  served2 = readServed(dir2)
}, 120_000)

const worlds = () => [
  { name: 'direct', d: dir, qas: served },
  { name: 'two-step', d: dir2, qas: served2 },
]

const blurs = (qa: Qa): { start: string; desc: BlurDesc }[] =>
  namedChains(qa).flatMap((c) => (c.desc.kind === 'blur' ? [{ start: c.start, desc: c.desc }] : []))

test('the world serves blurred questions of every type, and the blur report counts them', () => {
  const blurred = served.filter(isBlurred)
  expect(blurred.length).toBeGreaterThan(50)
  expect(new Set(blurred.map((q) => q.type))).toEqual(new Set(['simple', 'parallel', 'combo']))
  const report = JSON.parse(readFileSync(join(dir, BLUR_REPORT_FILE), 'utf8')) as { blurred: number; drawn: number }
  expect(report.blurred).toBeGreaterThanOrEqual(blurred.length)
})

test.each(['direct', 'two-step'])('%s: every blurred description fits exactly its start entity, re-checked on the whole graph; every QA re-derives', (style) => {
  const { d, qas } = worlds().find((x) => x.name === style)!
  const w = openWorld(d)
  try {
    const view = loadQaView(w.db)
    const match = makeBlurMatcher(view)
    const names = new Map(view.entities.map((e) => [e.id, e.name]))
    let n = 0
    for (const qa of qas)
      for (const b of blurs(qa)) {
        if (style === 'two-step') expect(typeof b.desc.via).toBe('string')
        expect(checkBlurDesc(match, b.desc, b.start, names.get(b.start)!)).toEqual([])
        expect(qa.question.includes(names.get(b.start)!)).toBe(false)
        n++
      }
    expect(n).toBeGreaterThan(50)
    const check = makeQaChecker(view, (u) => docText(w.db, u))
    expect(qas.flatMap((q) => check(q))).toEqual([])
  } finally {
    w.close()
  }
})

test('a crafted ambiguous description is rejected, by the cue checker and by the QA checker', () => {
  const w = openWorld(dir)
  try {
    const view = loadQaView(w.db)
    const match = makeBlurMatcher(view)
    const qa = served.find((q) => q.type === 'simple' && isBlurred(q))!
    const { start, desc } = blurs(qa)[0]
    const e = view.entities.find((x) => x.id === start)!
    // Only the type (and one neighbour of a hub: the most shared one), which many entities satisfy.
    const typeOnly: Cue[] = [{ kind: 'type', type: e.type }]
    const ambiguous: BlurDesc = { ...desc, cues: typeOnly }
    const problems = checkBlurDesc(match, ambiguous, start, e.name)
    expect(problems.join()).toMatch(/fits \d+ entities/)
    expect(match(typeOnly).length).toBeGreaterThan(1)
    // A year range too wide to tell anyone apart, with the type: still many.
    const wide: Cue[] = [...typeOnly, ...desc.cues.filter((c) => c.kind === 'years').map((c) => ({ ...c, lo: -5000, hi: 5000 }))]
    expect(checkBlurDesc(match, { ...desc, cues: wide }, start, e.name).join()).toMatch(/fits \d+ entities/)
    const m = qa.meta as { chain: { desc: BlurDesc } }
    const forged = { ...qa, meta: { ...qa.meta, chain: { ...m.chain, desc: ambiguous } } }
    expect(makeQaChecker(view)(forged).join()).toMatch(/blurred description fits/)
  } finally {
    w.close()
  }
})

test.each(['direct', 'two-step'])('%s: the oracle solves every served blurred question through the env, searching on the cues', async (style) => {
  const { d, qas } = worlds().find((x) => x.name === style)!
  const w = openWorld(d)
  const index = await openSearchIndex(w, { quiet: true })
  const blurred = qas.filter(isBlurred)
  expect(blurred.length).toBeGreaterThan(50)
  const world = gymWorldFromIndex('blur', index, blurred)
  try {
    const k = worldOracleKnowledge(worldReader(w.db))
    const failures: string[] = []
    for (const qa of blurred) {
      const r = await runOracle(makeEnv(world, qa, CHECK_GYM_OPTIONS), qa, k)
      if (r.failure || r.f1 < 1) failures.push(`${qa.id}: ${r.failure}`)
    }
    expect(failures).toEqual([])
  } finally {
    await world.close()
    w.close()
  }
}, 120_000)

test('the same seed and blur config give the same world; blur off (absent, false) leaves the config unchanged', async () => {
  const again = await buildWorld({ config, dir: join(root, 'again'), quiet: true, stages: CHECKED_WORLD_STAGES })
  expect(again.hash).toBe(hash)
  const off = canonicalJson(resolveConfig({}, presetConfig('tiny')))
  expect(canonicalJson(resolveConfig({ qa: { blur: false } }, presetConfig('tiny')))).toBe(off)
  expect(off).not.toMatch(/blur/)
  expect(() => resolveConfig({ qa: { blur: { rate: 2 } } }, presetConfig('tiny'))).toThrow(/rate/)
  expect(() => resolveConfig({ qa: { blur: { cues: 3 } } }, presetConfig('tiny'))).toThrow(/unknown config key/)
  expect(() => resolveConfig({ qa: { blur: { positions: ['intermediate'] } } }, presetConfig('tiny'))).toThrow(/not built yet/)
  expect(() => resolveConfig({ qa: { blur: { style: 'fuzzy' } } }, presetConfig('tiny'))).toThrow(/style/)
}, 120_000)

test('curriculum three-stage: the paper\'s two stages on named starts, then a stage of blurred starts only', () => {
  const spec = curriculumPreset('three-stage', 10)
  expect(spec.stages.map((s) => s.name)).toEqual(['stage1', 'stage2', 'stage3-blur'])
  expect(spec.switches).toEqual([
    { kind: 'steps', steps: 10 },
    { kind: 'steps', steps: 10 },
  ])
  const [s1, s2, s3] = spec.stages
  const third = served.filter((q) => inStage(q, s3))
  expect(third.length).toBe(served.filter(isBlurred).length)
  expect(third.every(isBlurred)).toBe(true)
  expect(served.filter((q) => inStage(q, s1) || inStage(q, s2)).some(isBlurred)).toBe(false)
})
