// tests/helpers/view-runs: what the viewer's tests look at, made with the real CLI on the shared tiny world — an
// oracle bench run (`searchgym bench run --policy oracle`) and a two-step training run (`searchgym train`, tiny random
// model, the TEST FIXTURE sampler of tests/train-cli.test.ts), in a fresh temporary folder per test file.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from './cli-process'
import { scriptedRepliesEnv } from '../fixtures/scripted-replies'
import { sharedTinyWorld } from './shared-world'

export interface ViewRuns {
  root: string
  world: string
  bench: string
  train?: string
}

const TRAIN_CI = { steps: 2, groupSize: 2, batchSize: 4, microBatch: 2, lora: { rank: 4, alpha: 8 }, evalEvery: 0, heldOut: 0, checkpointEvery: 1, klBeta: 0, refillRounds: 0, lr: 0.01, gym: { reward: 'em+format', budgets: { maxTurns: 1, maxResponseTokens: 16 } } }

async function cli(args: string[], env?: Record<string, string>): Promise<void> {
  const r = await runCli(args, 300_000, env)
  if (r.code !== 0) throw new Error(`searchgym ${args.slice(0, 2).join(' ')} failed (exit ${r.code}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`)
}

export async function makeViewRuns(opts: { train: boolean }): Promise<ViewRuns> {
  const root = mkdtempSync(join(tmpdir(), 'sg-view-'))
  const { dir: world } = await sharedTinyWorld()
  const bench = join(root, 'oracle-bench')
  await cli(['bench', 'run', '--world', world, '--policy', 'oracle', '--out', bench, '--limit', '12', '--limit-mode', 'first', '--bootstrap', '200', '--quiet'])
  if (!opts.train) return { root, world, bench }
  const model = join(root, 'model')
  await cli(['model', 'init', '--preset', 'tiny', '--tokenizer', `world:${world}`, '--out', model, '--seed', '0'])
  const cfg = join(root, 'ci.json')
  const replies = join(root, 'replies.json')
  writeFileSync(cfg, JSON.stringify(TRAIN_CI))
  writeFileSync(replies, JSON.stringify(['<answer>unknown</answer>', 'I am not sure.']))
  const train = join(root, 'two-step-train')
  await cli(['train', '--world', world, '--model', model, '--curriculum', 'two-stage', '--out', train, '--config', cfg, '--quiet'], scriptedRepliesEnv(replies))
  return { root, world, bench, train }
}
