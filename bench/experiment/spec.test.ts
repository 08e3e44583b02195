// bench/experiment/spec.test: the experiment file's resolution — the shipped files resolve, defaults fill in, unknown
// keys and overlapping seeds are one-line errors, SFT phases inherit the first phase's settings; the reader ablation is
// the reader's world recipe from its shipped start.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { DEFAULT_TRAIN_CONFIG, resolveTrainConfig } from '../../agent'
import { benchRunConfig } from '../run-config'
import { evalBenchKnobs, evalBudgets, resolveExperiment, runTrainConfig } from './spec'

const file = (name: string) => JSON.parse(readFileSync(join('curriculum/experiments', name), 'utf8')) as Record<string, Record<string, unknown>>

it('the shipped experiment files resolve; the paper ablation has the five arms, ≥ 3 seeds and no seed shared by train and eval worlds', () => {
  const tiny = resolveExperiment(file('tiny.json'), '/x')
  expect(tiny.arms.map((a) => a.name)).toEqual(['two-stage', 'mixed'])
  expect(tiny.worlds.cache).toBe('')
  const paper = resolveExperiment(file('paper-ablation.json'), '/x')
  expect(paper.arms.map((a) => [a.curriculum, a.access])).toEqual([['two-stage', true], ['mixed', true], ['stage1-only', true], ['adaptive', true], ['two-stage', false]])
  expect(paper.seeds.length).toBeGreaterThanOrEqual(3)
  expect(resolveExperiment(file('reward-ablation.json'), '/x').arms.map((a) => a.reward)).toEqual(['f1', 'process', 'cost'])
  expect(paper.worlds.evalSeeds.filter((s) => paper.worlds.trainSeeds.includes(s))).toEqual([])
  // One run's GRPO config: the arm's reward and Access, the seed, the experiment's protocol and gym.
  const c = runTrainConfig(paper, 2, paper.arms[4])
  expect([c.seed, c.protocol, c.gym.access, c.gym.reward, c.steps]).toEqual([2, 'search-r1', false, 'f1', 100])
  // The update measured better per CPU-hour (bench/RESULTS.md, issue 34): PPO mini-batches × epochs.
  expect([c.ppoMiniBatch, c.ppoEpochs]).toEqual([32, 2])
  // The train block is resolved once, typed: every train config key but the runs' own, defaults filled in.
  expect(paper.train.klBeta).toBe(resolveTrainConfig(file('paper-ablation.json').train).klBeta)
  expect(Object.keys(paper.train)).toEqual([...Object.keys(DEFAULT_TRAIN_CONFIG).filter((k) => !['seed', 'protocol', 'gym'].includes(k)), 'gym'])
  // Its own gym holds GRPO's episode limits alone, over the experiment's.
  expect(paper.train.gym).toEqual({ budgets: { maxTurns: 6, maxResponseTokens: 48 } })
  expect([tiny.train.heldOut, tiny.train.evalEvery, tiny.train.steps]).toEqual([0, 0, 2])
  // A run's config is composed from it, not resolved again: the same as resolving the file's layers for that run.
  for (const [seed, arm] of [[0, paper.arms[0]], [2, paper.arms[4]]] as const)
    expect(runTrainConfig(paper, seed, arm)).toEqual(resolveTrainConfig({ heldOut: 0, evalEvery: 0 }, file('paper-ablation.json').train, { seed, protocol: paper.protocol, gym: { ...paper.gym, reward: arm.reward, ...(arm.access ? {} : { access: false }) } }))
  // …in the train config's key order (its gym: the experiment's keys, then its budgets, then the arm's reward).
  expect(JSON.stringify(runTrainConfig(paper, 0, paper.arms[0]))).toBe(JSON.stringify(resolveTrainConfig({ heldOut: 0, evalEvery: 0 }, (({ gym: _g, ...t }) => t)(file('paper-ablation.json').train), { seed: 0, protocol: paper.protocol, gym: { ...paper.gym, budgets: paper.train.gym.budgets, reward: 'f1' } })))
})

it('bad files: unknown keys (top level, arm, train config), overlapping seeds, unknown presets and rewards — one line each', () => {
  const tiny = file('tiny.json')
  const bad: [object, RegExp][] = [
    [{ ...tiny, seedz: [1] }, /unknown config key 'experiment.seedz'/],
    [{ ...tiny, eval: { ...tiny.eval, sets: [{ name: 'u', wolrds: 'eval' }] } }, /unknown config key 'experiment.eval.sets\[0\].wolrds'/],
    [{ ...tiny, start: { ...tiny.start, phases: [{ epoch: 1 }] } }, /unknown config key 'experiment.start.phases\[0\].epoch'/],
    [{ ...tiny, worlds: { ...tiny.worlds, config: { entitiez: {} } } }, /unknown config key 'world config.entitiez'/],
    [{ ...tiny, worlds: { ...tiny.worlds, evalSeeds: [5] } }, /share seed 5/],
    [{ ...tiny, arms: [{ name: 'x', curriculum: 'two-stage', reward: 'f2' }] }, /f2/],
    [{ ...tiny, arms: [{ name: 'x y', curriculum: 'two-stage' }] }, /arm name 'x y'/],
    [{ ...tiny, eval: { ...tiny.eval, sets: [{ name: 't', worlds: 'train', split: 'train' }] } }, /what the arms train on/],
    [{ ...tiny, gym: { reward: 'f1' } }, /gym.reward: set reward per arm/],
    // Bounds (issue 47): a negative perWorld is not "all", absurd sizes do not start.
    [{ ...tiny, eval: { ...tiny.eval, sets: [{ name: 'u', perWorld: -3 }] } }, /experiment.eval.sets\[0\].perWorld must be an integer in \[0, 10000000\], got -3/],
    [{ ...tiny, eval: { ...tiny.eval, sets: [{ name: 'u', maxHops: 1.5 }] } }, /eval.sets\[0\].maxHops must be an integer/],
    [{ ...tiny, eval: { ...tiny.eval, gym: { budgets: { maxTurns: 0 } } } }, /experiment.eval.gym.budgets.maxTurns must be an integer in \[1, 1000\], got 0/],
    [{ ...tiny, eval: { ...tiny.eval, maxTurns: 4 } }, /^experiment.eval.maxTurns \(the older spelling of experiment.eval.gym.budgets.maxTurns\) 4 and experiment.eval.gym.budgets.maxTurns 3 set one limit/],
    [{ ...tiny, train: { ...tiny.train, gym: { topK: 2 } } }, /^experiment.train.gym holds budgets alone \(topK: set in experiment.gym\)$/],
    [{ ...tiny, bootstrap: 1e9 }, /experiment.bootstrap must be an integer in \[1, 100000\]/],
    [{ ...tiny, start: { ...tiny.start, phases: [{ epochs: 1e9 }] } }, /experiment.start.phases\[0\].epochs must be an integer in \[1, 1000\]/],
    [{ ...tiny, start: { ...tiny.start, phases: [{ lr: -1 }] } }, /experiment.start.phases\[0\].lr must be a number/],
    [{ ...tiny, train: { ...tiny.train, steps: 1e15 } }, /steps/],
    // The train block is the train config, resolved once with the file (issue 48): its keys, types and runs' keys.
    [{ ...tiny, train: { ...tiny.train, stepz: 2 } }, /^unknown config key 'experiment\.train\.stepz' \(known keys: seed, steps, /],
    [{ ...tiny, train: { ...tiny.train, lora: { rank: 8, alfa: 16 } } }, /^unknown config key 'experiment\.train\.lora\.alfa'/],
    [{ ...tiny, train: { ...tiny.train, lr: '1e-3' } }, /^experiment\.train\.lr must be a number/],
    [{ ...tiny, train: { ...tiny.train, seed: 3 } }, /^experiment\.train\.seed is set by the experiment \(seeds\)$/],
    [{ ...tiny, train: [] }, /^experiment\.train must be a JSON object$/],
    [{ ...tiny, seeds: [2 ** 32] }, /experiment\.seeds: 4294967296 is above the train seed's bound/],
    // A held-out evaluation set is the slice the runs hold out: the training worlds', one seed, train.heldOut > 0.
    [{ ...tiny, eval: { sets: [{ name: 'h', worlds: 'train', split: 'heldout' }] } }, /evaluation set 'h' \(split heldout\): the runs hold nothing out; set train\.heldOut/],
    [{ ...tiny, train: { ...tiny.train, heldOut: 4 }, eval: { sets: [{ name: 'h', worlds: 'train', split: 'heldout' }] } }, /seeds \[0,1\] would hold out different slices; give one seed/],
    [{ ...tiny, seeds: [0], train: { ...tiny.train, heldOut: 4 }, eval: { sets: [{ name: 'h', worlds: 'eval', split: 'heldout' }] } }, /the held-out slice is of the training worlds; set worlds train/],
    [{ ...tiny, seeds: [0], train: { ...tiny.train, heldOut: 4 }, eval: { sets: [{ name: 'h', worlds: 'train', split: 'heldout', perWorld: 3 }] } }, /its size is train\.heldOut; drop perWorld/],
    [{ ...tiny, seeds: [1], train: { ...tiny.train, heldOut: 4 }, eval: { sets: [{ name: 'h', worlds: 'train', split: 'heldout' }] } }, /the SFT start excludes the slice of model\.seed 0, the runs that of seed 1; make them equal/],
  ]
  for (const [v, msg] of bad) {
    let err: Error | undefined
    try {
      resolveExperiment(v, '/x')
    } catch (e) {
      err = e as Error
    }
    expect(err?.message).toMatch(msg)
    expect(err?.message.split('\n')).toHaveLength(1)
  }
})

it('SFT phases inherit the first phase settings they do not give; paths resolve against the file folder', () => {
  const tiny = file('tiny.json')
  const s = resolveExperiment({ ...tiny, worlds: { ...tiny.worlds, cache: 'w' }, start: { ...tiny.start, phases: [{ turn: 2, epochs: 3 }] } }, '/base')
  expect(s.start.phases[0]).toEqual({ questions: 4, epochs: 3, batch: 2, lr: 1e-3, maxHops: 1, firstTurns: 0, turn: 2, answerOnly: false, answerWeight: 1 })
  expect(s.worlds.cache).toBe('/base/w')
})

it("the reader ablation: the five arms × 3 seeds from the shipped reader start, on the reader's worlds, one update a GRPO step", () => {
  const r = resolveExperiment(file('reader-ablation.json'), resolve('curriculum/experiments'))
  expect(r.start.model).toBe(resolve('curriculum/starts/reader-v1'))
  expect([r.start.adapter, r.start.phases]).toEqual(['', []])
  expect(r.arms.map((a) => [a.name, a.curriculum, a.access])).toEqual([['two-stage', 'two-stage', true], ['mixed', 'mixed', true], ['stage1-only', 'stage1-only', true], ['adaptive', 'adaptive', true], ['two-stage-no-access', 'two-stage', false]])
  expect(r.seeds).toEqual([0, 1, 2])
  // curriculum/recipes/reader-v1.json: 16 of its training worlds (11–26) train, its unseen worlds (101, 102) evaluate, same world config.
  expect([r.worlds.preset, r.worlds.trainSeeds, r.worlds.evalSeeds]).toEqual(['small', Array.from({ length: 16 }, (_, i) => 11 + i), [101, 102]])
  expect(r.worlds.config).toEqual(JSON.parse(readFileSync('bench/perf/configs/world-small2x-1to2.json', 'utf8')))
  const c = runTrainConfig(r, 0, r.arms[0])
  expect([c.lr, c.ppoMiniBatch, c.ppoEpochs, c.maxHops, c.protocol]).toEqual([1e-4, 0, 1, 2, 'search-r1'])
  expect(r.gym).toEqual({ topK: 3, observationCap: 2000, prompt: 'brief', accessByTitle: true, leadSpace: true })
})

it("the evaluation's limits: its own defaults (14 turns, 48 tokens), then the experiment's gym.budgets, then eval.gym.budgets, field by field", () => {
  const tiny = JSON.parse(readFileSync('curriculum/experiments/tiny.json', 'utf8')) as Record<string, Record<string, unknown>>
  const at = (gym: object, ev: object) => evalBudgets(resolveExperiment({ ...tiny, gym, eval: { ...tiny.eval, gym: { budgets: ev } } }, 'curriculum/experiments'))
  expect(at({}, {})).toEqual({ maxTurns: 14, maxResponseTokens: 48 })
  expect(at({ budgets: { maxTurns: 4 } }, { maxResponseTokens: 8 })).toEqual({ maxTurns: 4, maxResponseTokens: 8 })
  expect(at({ budgets: { maxTurns: 4, turnsPerHop: 2 } }, { maxTurns: 6 })).toEqual({ maxTurns: 6, maxResponseTokens: 48 })
  expect(() => at({}, { maxTurn: 6 })).toThrow(/^unknown key 'experiment\.eval\.gym\.budgets\.maxTurn'/)
})

it("an evaluation bench's config: resolved through bench run's table, the very object (and key order) benchOne built by hand", () => {
  const dir = mkdtempSync(join(tmpdir(), 'eval-bench-'))
  const ids = join(dir, 'unseen.json')
  writeFileSync(ids, JSON.stringify({ set: 'unseen', worlds: ['w'], split: 'train', ids: ['w/q1', 'w/q2'] }))
  const s = resolveExperiment({ ...file('tiny.json'), gym: { topK: 3, budgets: { maxTurns: 5, turnsPerHop: 2 } }, eval: { sets: [{ name: 'unseen' }, { name: 'h', worlds: 'train', split: 'bench' }], gym: { budgets: { maxResponseTokens: 40 } } } }, '/x')
  const of = (adapter: string, set: number, access: boolean, maxContextTokens?: number) => {
    const ev = maxContextTokens === undefined ? s : { ...s, eval: { ...s.eval, gym: { budgets: { ...s.eval.gym.budgets, maxContextTokens } } } }
    const knobs = evalBenchKnobs(ev, { model: '/m', adapter, set: s.eval.sets[set], ids, access, maxContext: 2048 })
    return JSON.stringify(benchRunConfig(knobs, 'WID', ['/w1', '/w2']))
  }
  // benchOne's config before it resolved through the table (c3906aa's bench folders hold this shape).
  const byHand = (adapter: string, split: string, access: boolean, maxContextTokens = 2048) =>
    JSON.stringify({
      world: '/w1', worlds: ['/w1', '/w2'], worldId: 'WID', split, policy: 'engine', model: '/m', baseURL: '', apiKeyEnv: 'OPENAI_API_KEY', protocol: s.protocol, limit: null,
      concurrency: 1, seed: 0, timeoutMs: 120_000, maxRetries: 0, temperature: 0, maxTokens: 40, ragDocs: 3, prices: null, judge: null,
      gym: { ...s.gym, ...(access ? {} : { access: false }), budgets: { ...evalBudgets(s), maxContextTokens } },
      bootstrap: s.bootstrap, ...(adapter ? { adapter } : {}), backend: s.backend, qaIds: ['w/q1', 'w/q2'],
    })
  expect(evalBudgets(s)).toEqual({ maxTurns: 5, turnsPerHop: 2, maxResponseTokens: 40 })
  expect(of('/a', 0, true)).toBe(byHand('/a', 'train', true))
  expect(of('', 1, false)).toBe(byHand('', 'bench', false))
  expect(of('', 0, true, 512)).toBe(byHand('', 'train', true, 512))
  rmSync(dir, { recursive: true, force: true })
})

it("the model block resolves through model init's fields at the experiment's defaults: strict, typed, bounded, named by key", () => {
  const tiny = file('tiny.json')
  const at = (model: unknown) => resolveExperiment({ ...tiny, model }, '/x').model
  expect(JSON.stringify(at(undefined))).toBe(JSON.stringify({ preset: 'tiny', seed: 0, vocab: 4096, embedStd: 0.25, qkNormWeight: 2.5, nameTokens: false }))
  expect(at({ preset: 'small', seed: 3, nameTokens: true })).toEqual({ preset: 'small', seed: 3, vocab: 4096, embedStd: 0.25, qkNormWeight: 2.5, nameTokens: true })
  const bad: [unknown, RegExp][] = [
    [{ seeed: 1 }, /^unknown config key 'experiment\.model\.seeed' \(known keys: preset, seed, vocab, embedStd, qkNormWeight, nameTokens\)$/],
    [{ preset: 'mini' }, /^experiment\.model\.preset must be one of tiny, small, got "mini"$/],
    [{ embedStd: 0 }, /^experiment\.model\.embedStd must be a number > 0, got 0$/],
    [{ seed: 1.5 }, /^experiment\.model\.seed must be an integer, got 1\.5$/],
    [{ nameTokens: 'yes' }, /^experiment\.model\.nameTokens must be true or false/],
    [[], /^experiment\.model must be a JSON object$/],
  ]
  for (const [model, msg] of bad) expect(() => at(model)).toThrow(msg)
})

it("the eval block's older maxTurns is bench run's moved key (the table's), its maxTokens the evaluation's response limit", () => {
  const tiny = file('tiny.json')
  const s = resolveExperiment({ ...tiny, eval: { sets: tiny.eval.sets, maxTurns: 5, maxTokens: 12 } }, '/x')
  expect(s.eval.gym).toEqual({ budgets: { maxTurns: 5, maxResponseTokens: 12 } })
  expect(Object.keys(s.eval)).toEqual(['sets', 'gym'])
})
