// tests/run-folder-paths: nothing a run writes under its folder names a path of this machine (issue 59, item 8e). An
// experiment (quick-smoke: worlds, model, SFT start, a GRPO run, benches, report), a `train` run, a `bench run` of the
// local engine and `train sft` with their inputs outside their folders are copied to another root: `grep -r` of the old
// absolute paths (the folder's, the inputs', the checkout's) finds nothing in the copy. c3906aa wrote them into
// config.json (origin.world, model, adapter), experiment.json, sft.json and the adapters.
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

const LONG = 600_000
const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '')
const root = mkdtempSync(join(tmpdir(), 'sg-run-paths-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Files under dir holding any of the strings (grep -rlF, binary files included). */
function grepR(dir: string, needles: string[]): string[] {
  const r = spawnSync('grep', ['-rlF', ...needles.flatMap((n) => ['-e', n]), dir], { encoding: 'utf8' })
  return r.stdout.split('\n').filter(Boolean)
}

it('a copied experiment, train run, bench run and SFT run name no absolute path of where they were made', async () => {
  const made = join(root, 'made')
  const exp = join(made, 'exp')
  const e = await runCli(['experiment', 'run', 'curriculum/experiments/quick-smoke.json', '--out', exp, '--quiet'], LONG)
  expect(e.code).toBe(0)
  const world = (await sharedTinyWorld()).dir
  const inputs = join(root, 'inputs')
  cpSync(join(exp, 'model'), join(inputs, 'model'), { recursive: true })
  cpSync(join(exp, 'runs', 'trained-s0', 'adapter'), join(inputs, 'adapter'), { recursive: true })
  const cfg = join(inputs, 'train.json')
  writeFileSync(cfg, JSON.stringify({ steps: 1, groupSize: 2, batchSize: 2, microBatch: 2, gym: { budgets: { maxTurns: 1, maxResponseTokens: 8 } }, lora: { rank: 4, alpha: 8 }, evalEvery: 0, heldOut: 0, checkpointEvery: 1, refillRounds: 0 }))
  const runs = [
    ['train', '--world', world, '--model', join(inputs, 'model'), '--adapter', join(inputs, 'adapter'), '--config', cfg, '--out', join(made, 'train'), '--quiet'],
    ['train', 'report', join(made, 'train')],
    ['bench', 'run', world, '--policy', 'engine', '--model', join(inputs, 'model'), '--adapter', join(inputs, 'adapter'), '--protocol', 'search-r1', '--max-tokens', '8', '--max-turns', '2', '--limit', '2', '--split', 'train', '--out', join(made, 'bench'), '--quiet', '--allow-lost'],
    ['bench', 'report', join(made, 'bench')],
    ['train', 'sft', '--world', world, '--model', join(inputs, 'model'), '--init-adapter', join(inputs, 'adapter'), '--questions', '2', '--epochs', '1', '--batch', '2', '--protocol', 'search-r1',
      '--gym-options', '{"topK":3,"observationCap":600,"prompt":"brief","accessByTitle":true}', '--oracle-answer', 'read', '--max-hops', '1', '--out', join(made, 'sft'), '--quiet'],
  ]
  for (const args of runs) {
    const r = await runCli(args, LONG)
    expect({ args, code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ args, code: 0, stderr: '' })
  }
  const copy = join(root, 'copied')
  cpSync(made, copy, { recursive: true })
  expect(grepR(copy, [made, inputs, world, ROOT, root])).toEqual([])
}, LONG)
