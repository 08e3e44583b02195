// tests/gym-options-once: gym options travel typed — resolved once at the edge and the reward spec parsed once per run
// (a bench run over several questions, a train run over several groups of several steps, an SFT run over several
// episodes: counted on the run points 'gym-options-resolve' and 'reward-spec-parse', which the gym publishes and this
// test subscribes to from outside), and no package's source declares gym options as an untyped Record<string, unknown>
// (the types carry GymOptionsJson at the edge, GymOptions below).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { resolveGymOptions, scoreAnswer } from '../gym'
import type { RunPoint } from '../infra/run-points'
import { initModel } from '../infra/engine'
import { runTraining } from '../curriculum/run'
import { runSft } from '../curriculum/sft-run'
import { resolveSftConfig } from '../curriculum/sft-config'
import { resolveTrainConfig } from '../agent'
import { configFromArgs, parseGymOptions, type RunArgs } from '../bench/cli/run'
import { gymBenchWorld } from '../bench/gym-world'
import { LocalEnvSessions } from '../gym/env-sessions'
import { policyFactory } from '../bench/policies'
import { runBench } from '../bench/run'
import { openFixtureWorld } from './fixtures/gym-fixture-world'
import { ORACLE_KNOWLEDGE, ORACLE_QA } from './fixtures/oracle-fixture'
import { sharedTinyWorld } from './helpers/shared-world'
import { FixtureSampler, readReplies } from './fixtures/fixture-sampler'
import { worldTokenizer } from './helpers/world-texts'

const LONG = 600_000

/** Run points passed since the test began, by name. */
const passed = new Map<string, number>()
const onPoint = (m: unknown) => {
  const p = (m as RunPoint).point
  passed.set(p, (passed.get(p) ?? 0) + 1)
}
beforeAll(() => subscribe('searchgym:run-point', onPoint))
afterAll(() => unsubscribe('searchgym:run-point', onPoint))
const rewardSpecParses = () => passed.get('reward-spec-parse') ?? 0
const gymResolutions = () => passed.get('gym-options-resolve') ?? 0
const root = mkdtempSync(join(tmpdir(), 'sg-gym-once-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

it('resolveGymOptions parses a reward name once and passes a parsed spec through', () => {
  const n0 = rewardSpecParses()
  const o = resolveGymOptions({ reward: 'em+format' })
  expect(rewardSpecParses() - n0).toBe(1)
  expect(o.reward).toEqual({ name: 'em+format', terms: ['em', 'format'] })
  resolveGymOptions({ ...o, budgets: { ...o.budgets, maxTurns: 3 } })
  expect(rewardSpecParses() - n0).toBe(1)
  // A JSON object in the reward's place is checked, not trusted.
  expect(() => resolveGymOptions({ reward: { name: 'x', terms: ['f2'] } })).toThrow(/reward must be a spec name/)
})

it('a bench run parses its reward spec once, whatever the number of questions', async () => {
  const qa = ORACLE_QA.map((q) => ({ ...q, split: 'bench' as const }))
  expect(qa.length).toBeGreaterThan(2)
  const world = gymBenchWorld('oracle-fixture', 'oracle-fixture', openFixtureWorld({ qa }), ORACLE_KNOWLEDGE)
  const gymFile = join(root, 'gym.json')
  writeFileSync(gymFile, JSON.stringify({ reward: 'em', budgets: { maxTurns: 1000, maxResponseTokens: 100_000, maxContextTokens: 100_000_000 } }))
  const args = { world: 'oracle-fixture', split: 'bench', policy: 'oracle', apiKeyEnv: 'X', concurrency: 2, protocol: 'hermes', out: '', seed: 0, timeoutMs: 1000, maxRetries: 0, ragDocs: 3, judgeApiKeyEnv: 'X', bootstrap: 50, retryErrors: false, quiet: true, gym: parseGymOptions(gymFile) } as RunArgs
  const n0 = rewardSpecParses()
  const r0 = gymResolutions()
  const config = configFromArgs(args, world.id)
  // config.json keeps the JSON shape: the reward by name.
  expect(config.gym).toEqual({ reward: 'em', budgets: { maxTurns: 1000, maxResponseTokens: 100_000, maxContextTokens: 100_000_000 } })
  const res = await runBench(join(root, 'bench'), config, { world, policyFor: policyFactory(config, world), scorer: scoreAnswer, quiet: true })
  expect(res.summary.questions).toBe(qa.length)
  // The run's spec once, plus the oracle ceiling's own F1 (bench/ceiling), parsed once per process.
  expect(rewardSpecParses() - n0).toBe(2)
  expect(gymResolutions() - r0).toBe(1)
  // A second run in this process: its own spec once, nothing per question.
  const n1 = rewardSpecParses()
  await runBench(join(root, 'bench2'), config, { world, policyFor: policyFactory(config, world), scorer: scoreAnswer, quiet: true })
  expect(rewardSpecParses() - n1).toBe(1)
  expect(JSON.parse(readFileSync(join(root, 'bench', 'config.json'), 'utf8')).gym.reward).toBe('em')
})

it('a train run parses its reward spec once over every group of every step', async () => {
  const world = (await sharedTinyWorld()).dir
  const model = join(root, 'model')
  initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(world), out: model, seed: 0 })
  const replies = join(root, 'replies.json')
  writeFileSync(replies, JSON.stringify(['<tool_call>{"name": "search", "arguments": {"query": "city"}}</tool_call>', '<answer>unknown</answer>']))
  const config = { steps: 2, groupSize: 2, batchSize: 4, microBatch: 4, gym: { budgets: { maxTurns: 2, maxResponseTokens: 32 } }, lora: { rank: 4, alpha: 8 }, evalEvery: 0, heldOut: 0, checkpointEvery: 2, klBeta: 0, refillRounds: 0 }
  const n0 = rewardSpecParses()
  const r0 = gymResolutions()
  const out = join(root, 'train')
  await runTraining({ world, model, curriculum: 'two-stage', out, config: resolveTrainConfig(config, { gym: { reward: 'cost' } }), sampler: (l, c) => new FixtureSampler(l, c, readReplies(replies)) })
  expect(rewardSpecParses() - n0).toBe(1)
  // Once for the run, not per group of every step (2 steps × 2 groups here).
  expect(gymResolutions() - r0).toBe(1)
  const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n')
  expect(lines).toHaveLength(2)
  // config.json keeps the JSON shape: the reward by name.
  expect(JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')).train.gym).toEqual({ budgets: { maxTurns: 2, maxResponseTokens: 32 }, reward: 'cost' })
}, LONG)

it('an SFT run resolves its gym options once over every episode', async () => {
  const world = (await sharedTinyWorld()).dir
  const model = join(root, 'model-sft')
  initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(world), out: model, seed: 0 })
  const config = resolveSftConfig({ questions: 3, epochs: 1, batch: 2, heldOut: 0, loraRank: 4, maxHops: 1, protocol: 'search-r1', gym: { topK: 2, reward: 'em' } })
  const r0 = gymResolutions()
  const n0 = rewardSpecParses()
  const r = await runSft({ world, model, out: join(root, 'sft') }, config)
  expect(r.episodes).toBe(3)
  expect([gymResolutions() - r0, rewardSpecParses() - n0]).toEqual([1, 1])
}, LONG)

it('an HTTP create resolves its options once (local sessions; a cluster create also checks them in the asking worker)', async () => {
  const world = openFixtureWorld()
  const sessions = new LocalEnvSessions(world, resolveGymOptions({}), 8, 60_000)
  const r0 = gymResolutions()
  await sessions.create(world.listQa()[0], { topK: 2 })
  expect(gymResolutions() - r0).toBe(1)
})

/** Every non-test source file of the packages (tests and node_modules aside). */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    if (name === 'node_modules' || name.startsWith('.')) return []
    if (statSync(p).isDirectory()) return sources(p)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [p] : []
  })
}

it('no package declares gym options as Record<string, unknown>', () => {
  const repo = new URL('..', import.meta.url).pathname
  const offenders: string[] = []
  // A field, parameter or variable whose name says gym (gym, gymOptions, gymJson, ORACLE_GYM...) typed as a loose record.
  const loose = /\bgym\w*\??\s*:\s*(Partial<)?Record<string,\s*unknown>/i
  for (const pkg of ['infra', 'world', 'gym', 'agent', 'curriculum', 'bench', 'view'])
    for (const f of sources(join(repo, pkg)))
      readFileSync(f, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (loose.test(line) || (/gym/i.test(line) && /\):\s*Record<string,\s*unknown>/.test(line))) offenders.push(`${relative(repo, f)}:${i + 1}: ${line.trim()}`)
        })
  expect(offenders).toEqual([])
})
