// bench/experiment/presets.test: the bundled `train --preset` files resolve to the same training the former
// curriculum/quick.ts ran (its GRPO configs, SFT settings, worlds and held-out slices, written out below as it had
// them, in the older spelling of the episode limits: the same config), and their flags (--steps, --backend) are one
// more layer resolved with the file.
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { resolveTrainConfig } from '../../agent'
import { evalBudgets, resolveExperiment, runTrainConfig } from './spec'
import { TRAIN_PRESETS, trainPresetFile } from './presets'

const read = (name: string) => resolveExperiment(JSON.parse(readFileSync(trainPresetFile(name), 'utf8')), dirname(trainPresetFile(name)))
const GYM = { topK: 3, observationCap: 600, prompt: 'brief', accessByTitle: true }

/** The GRPO config curriculum/quick.ts wrote for a scratch preset (grpo.json), before resolution. */
const scratchGrpo = (z: { steps: number; groupSize: number; batchSize: number; maxTurns: number; maxTokensPerTurn: number; heldOut: number }) =>
  ({ steps: z.steps, groupSize: z.groupSize, batchSize: z.batchSize, microBatch: z.batchSize, maxTurns: z.maxTurns, maxTokensPerTurn: z.maxTokensPerTurn, lora: { rank: 8, alpha: 16 }, checkpointEvery: 1, evalEvery: 0, heldOut: z.heldOut, seed: 0, klBeta: 0, refillRounds: 0, lr: 1e-3, switchSteps: 1, maxHops: 2, protocol: 'search-r1', gym: { ...GYM, reward: 'em+format' } })

it('the presets are the bundled files, one each', () => {
  expect([...TRAIN_PRESETS.keys()]).toEqual(['quick', 'quick-scratch', 'quick-smoke'])
  for (const name of TRAIN_PRESETS.keys()) expect(read(name).name).toBe(name)
})

it('quick-smoke and quick-scratch: the tiny world seed 5, a random tiny model, oracle SFT, the same GRPO config as before', () => {
  for (const [name, z, sft] of [
    ['quick-smoke', { steps: 2, groupSize: 2, batchSize: 2, maxTurns: 2, maxTokensPerTurn: 16, heldOut: 4 }, { questions: 4, epochs: 1, batch: 2 }],
    ['quick-scratch', { steps: 4, groupSize: 4, batchSize: 8, maxTurns: 4, maxTokensPerTurn: 32, heldOut: 8 }, { questions: 16, epochs: 3, batch: 4 }],
  ] as const) {
    const s = read(name)
    expect(runTrainConfig(s, 0, s.arms[0])).toEqual(resolveTrainConfig(scratchGrpo(z)))
    expect([s.worlds.preset, s.worlds.trainSeeds, s.worlds.evalSeeds, s.model]).toEqual(['tiny', [5], [], { preset: 'tiny', seed: 0, vocab: 4096, embedStd: 0.25, qkNormWeight: 2.5, nameTokens: false }])
    expect(s.start.sft).toEqual({ ...sft, lr: 1e-2, maxHops: 1, loraRank: 8, loraEmbed: false, oracleAnswer: 'read', firstTurns: 0 })
    expect([s.arms, s.seeds, s.eval]).toEqual([[{ name: 'trained', curriculum: 'two-stage', reward: 'em+format', access: true }], [0], { sets: [{ name: 'held-out', worlds: 'train', split: 'heldout', maxHops: 0, perWorld: 0 }], gym: { budgets: { maxTurns: z.maxTurns, maxResponseTokens: z.maxTokensPerTurn } } }])
    expect(evalBudgets(s)).toEqual({ maxTurns: z.maxTurns, maxResponseTokens: z.maxTokensPerTurn })
  }
})

it('quick: the shipped reader start (reader-v1, its gym) on seed 103 of its recipe, GRPO as before, its one-hop questions of the 300-question held-out slice', () => {
  const s = read('quick')
  expect(s.start.model).toBe(resolve('curriculum/starts/reader-v1'))
  expect([s.worlds.preset, s.worlds.trainSeeds, s.worlds.evalSeeds]).toEqual(['small', [103], []])
  expect(s.worlds.config).toEqual(JSON.parse(readFileSync('bench/perf/configs/world-small2x-1to2.json', 'utf8')))
  const before = { steps: 80, groupSize: 8, batchSize: 64, microBatch: 64, maxTurns: 4, maxTokensPerTurn: 48, lora: { rank: 16, alpha: 32 }, checkpointEvery: 1, evalEvery: 0, heldOut: 300, seed: 0, klBeta: 0, refillRounds: 2, lr: 3e-4, temperature: 0.8, switchSteps: 80, maxHops: 1, protocol: 'search-r1', gym: { topK: 3, observationCap: 2000, prompt: 'brief', accessByTitle: true, leadSpace: true, reward: 'f1' } }
  expect(runTrainConfig(s, 0, s.arms[0])).toEqual(resolveTrainConfig(before))
  expect([evalBudgets(s), s.eval.sets[0].split, s.eval.sets[0].maxHops]).toEqual([{ maxTurns: 4, maxResponseTokens: 48 }, 'heldout', 1])
})
