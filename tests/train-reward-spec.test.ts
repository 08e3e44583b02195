// tests/train-reward-spec: `searchgym train --reward` end to end through the real CLI on the shared tiny world and a
// tiny random model with the TEST FIXTURE sampler (scripted replies with real log-probs): under `cost` every search
// turn is paid −0.02 by the env step by step, and the trainer's reward is exactly F1 − 0.02 × tool calls per episode
// (the step credit reached the trainer; groups with step credit train on per-turn advantages); an unknown spec is a
// one-line error with a non-zero exit and nothing written.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from './helpers/cli-process'
import { scriptedRepliesEnv } from './fixtures/scripted-replies'
import { sharedTinyWorld } from './helpers/shared-world'

const LONG = 600_000
const root = mkdtempSync(join(tmpdir(), 'sg-train-reward-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const model = join(root, 'model')
const cfgFile = join(root, 'ci.json')
const replies = join(root, 'replies.json')
// Every `train` this file starts plays the scripted replies (TEST FIXTURE, injected by env, not by a flag).
Object.assign(process.env, scriptedRepliesEnv(replies))
let world = ''

beforeAll(async () => {
  world = (await sharedTinyWorld()).dir
  const m = await runCli(['model', 'init', '--preset', 'tiny', '--tokenizer', `world:${world}`, '--out', model, '--seed', '0'], 300_000)
  expect(m.code).toBe(0)
  // 2 steps × 2 questions × N = 4, up to 3 turns of at most 64 tokens
  writeFileSync(cfgFile, JSON.stringify({ steps: 2, groupSize: 4, batchSize: 8, microBatch: 4, gym: { budgets: { maxTurns: 3, maxResponseTokens: 64 } }, lora: { rank: 4, alpha: 8 }, evalEvery: 0, heldOut: 0, checkpointEvery: 2, klBeta: 0, refillRounds: 0, lr: 0.01 }))
  writeFileSync(replies, JSON.stringify(['<tool_call>{"name": "search", "arguments": {"query": "city"}}</tool_call>', '<answer>unknown</answer>']))
}, LONG)

const lines = (f: string) => readFileSync(f, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number>)
const args = (out: string, reward: string) => ['train', '--world', world, '--model', model, '--curriculum', 'two-stage', '--reward', reward, '--out', out, '--config', cfgFile, '--quiet']

describe('searchgym train --reward', () => {
  it('cost: the trainer reward is F1 − 0.02 per tool call, episodes mixed, the update ran', async () => {
    const out = join(root, 'cost')
    const r = await runCli(args(out, 'cost'), LONG)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')).train.gym).toEqual({ budgets: { maxTurns: 3, maxResponseTokens: 64 }, reward: 'cost' })
    const m = lines(join(out, 'metrics.jsonl'))
    expect(m).toHaveLength(2)
    for (const x of m) {
      expect(x.rewardMean).toBeCloseTo(x.f1 - 0.02 * (x.searches + x.accesses), 10)
      expect(x.stepCredit).toBeCloseTo(-0.02 * (x.searches + x.accesses), 10)
    }
    expect(m.some((x) => x.searches > 0)).toBe(true)
    expect(m.reduce((a, x) => a + x.groupsKept, 0)).toBeGreaterThan(0)
    expect(m.some((x) => x.trainedTokens > 0 && x.gradNorm > 0)).toBe(true)
  }, LONG)

  it('an unknown reward spec is a one-line error before anything is written', async () => {
    const out = join(root, 'bad')
    const r = await runCli(args(out, 'f1+proces'), 120_000)
    expect(r.code).not.toBe(0)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/unknown reward spec 'f1\+proces'/)
    expect(existsSync(join(out, 'config.json'))).toBe(false)
  }, LONG)
})
