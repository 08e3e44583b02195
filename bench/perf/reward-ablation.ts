// bench/perf/reward-ablation: issue 14's ablation end to end through the real CLI — `two-stage` GRPO with terminal F1
// vs `process` vs `cost` (curriculum/ablations REWARD_ABLATION), same config, budget and seed, from the SAME SFT start;
// `bench run` of each adapter (through `model serve`), `bench compare` (paired CIs against the f1 arm) and
// ablation.md: per arm F1, EM and tool calls per question with bootstrap 95% CIs. Every phase is resumable (rerun
// the same command: finished trainings and benches are kept). Prints the wall time of every phase.
//
// Usage: node bin/run-ts.mjs bench/perf/reward-ablation.ts --out runs/reward-ablation [--from runs/learn-demo]
//          [--quick] [--steps N] [--bench-limit N] [--backend auto]
//   --from DIR  reuse DIR/world, DIR/model and DIR/sft/adapter (e.g. learn-demo's); otherwise they are built here with
//               learn-demo's commands and sizes (--quick: tiny world and model; default: small).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { REWARD_ABLATION } from '../../curriculum'
import { bootstrapMean, type Estimate } from '../stats'
import { latestById, loadTrajectories } from '../trajectory-log'

function arg(name: string, def?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] && !process.argv[i + 1].startsWith('--') ? process.argv[i + 1] : def
}
const flag = (name: string) => process.argv.includes(`--${name}`)
function intArg(name: string, def: number): number {
  const v = arg(name)
  if (v === undefined) return def
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`reward-ablation: --${name} must be a positive integer, got ${JSON.stringify(v)}\n`)
    process.exit(2)
  }
  return n
}

const out = resolve(arg('out', 'runs/reward-ablation')!)
const from = arg('from')
const quick = flag('quick')
const backend = arg('backend', 'auto')!
const S = quick
  ? { world: 'tiny', preset: 'tiny', sftQuestions: 48, sftEpochs: 10, sftBatch: 8, sftLr: 2e-2, steps: 4, groupSize: 4, batchSize: 8, switchSteps: 2, benchLimit: 12, maxTurns: 4, maxTokens: 40, heldOut: 4, evalEvery: 2 }
  : { world: 'small', preset: 'small', sftQuestions: 0, sftEpochs: 3, sftBatch: 16, sftLr: 1e-2, steps: 60, groupSize: 8, batchSize: 64, switchSteps: 30, benchLimit: 200, maxTurns: 16, maxTokens: 128, heldOut: 32, evalEvery: 10 }
S.steps = intArg('steps', S.steps)
S.switchSteps = Math.max(1, Math.min(S.switchSteps, Math.floor(S.steps / 2)))
S.benchLimit = intArg('bench-limit', S.benchLimit)
const BIN = resolve('bin/searchgym.mjs')
process.env.SEARCHGYM_DEMO_KEY = 'local-engine' // the local server ignores it; the OpenAI client wants one
const times: Record<string, number> = {}

function cli(phase: string, args: string[]): void {
  const t = performance.now()
  process.stderr.write(`\n== ${phase}: searchgym ${args.join(' ')}\n`)
  const r = spawnSync(process.execPath, [BIN, ...args], { stdio: 'inherit' })
  times[phase] = (performance.now() - t) / 1000
  if (r.status !== 0) {
    process.stderr.write(`reward-ablation: ${phase} failed (exit ${r.status})\n`)
    process.exit(1)
  }
}

/** `model serve --adapter` in the background, `bench run` against it, then stop the server (by its own pid). */
async function benchAdapter(phase: string, adapter: string, run: string): Promise<void> {
  if (existsSync(join(run, 'summary.json'))) return
  const t = performance.now()
  const p = spawn(process.execPath, [BIN, 'model', 'serve', model, '--adapter', adapter, '--port', '0', '--host', '127.0.0.1', '--seed', '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const url = await new Promise<string>((res, rej) => {
    let buf = ''
    p.stdout!.on('data', (d: Buffer) => {
      buf += d.toString()
      const m = /listening on (http:\/\/\S+\/v1)/.exec(buf)
      if (m) res(m[1])
    })
    p.on('exit', (c) => rej(new Error(`model serve exited ${c}`)))
  })
  try {
    const name = adapter.split('/').filter(Boolean).at(-2)!
    cli(`${phase} (bench)`, ['bench', 'run', '--world', world, '--policy', 'openai', '--protocol', 'hermes', '--base-url', url, '--model', name, '--api-key-env', 'SEARCHGYM_DEMO_KEY',
      '--temperature', '0', '--max-tokens', String(S.maxTokens), '--limit', String(S.benchLimit), '--concurrency', '4', '--out', run, '--quiet',
      '--gym-options', JSON.stringify({ budgets: { maxTurns: S.maxTurns, maxResponseTokens: S.maxTokens, maxContextTokens: 4096 } })])
  } finally {
    p.kill('SIGTERM')
  }
  times[phase] = (performance.now() - t) / 1000
}

const base = from ? resolve(from) : out
const world = join(base, 'world')
const model = join(base, 'model')
const sft = join(base, 'sft')
const t0 = performance.now()
if (from) {
  for (const need of [join(world, 'world.db'), join(model, 'config.json'), join(sft, 'adapter')])
    if (!existsSync(need)) {
      process.stderr.write(`reward-ablation: --from ${from} has no ${need}; run bench/perf/learn-demo.ts there first or drop --from\n`)
      process.exit(2)
    }
}
mkdirSync(out, { recursive: true })
if (!from) {
  // The same start as learn-demo (bench/perf/learn-demo.ts): world, model with the world's tokenizer, oracle SFT.
  if (!existsSync(join(world, 'world.db'))) cli('world build', ['world', 'build', '--preset', S.world, '--seed', '1', '--out', world, '--quiet'])
  if (!existsSync(join(model, 'config.json'))) cli('model init', ['model', 'init', '--preset', S.preset, '--tokenizer', `world:${world}`, '--out', model, '--seed', '0', '--embed-std', '0.25', '--qk-norm-weight', '2.5'])
  if (!existsSync(join(sft, 'adapter'))) cli('train sft', ['train', 'sft', '--world', world, '--model', model, '--out', sft, '--questions', String(S.sftQuestions), '--epochs', String(S.sftEpochs), '--batch', String(S.sftBatch), '--lr', String(S.sftLr), '--held-out', String(S.heldOut), '--backend', backend])
}
// One config for every arm; only --reward differs (the arms' own flags).
const cfg = join(out, 'grpo.json')
writeFileSync(cfg, JSON.stringify({ turnBudget: 'hop-scaled', turnsPerHop: 3, steps: S.steps, groupSize: S.groupSize, batchSize: S.batchSize, microBatch: 16, maxTurns: S.maxTurns, maxTokensPerTurn: S.maxTokens, lr: 1e-4, klBeta: 0, evalEvery: S.evalEvery, heldOut: S.heldOut, checkpointEvery: 2, switchSteps: S.switchSteps, refillRounds: 1 }, null, 2))
const A = REWARD_ABLATION
for (const arm of A.arms) {
  const run = join(out, `grpo-${arm.name}`)
  cli(`train ${arm.name}`, ['train', '--world', world, '--model', model, '--adapter', join(sft, 'adapter'), '--curriculum', A.curriculum, ...arm.flags, '--out', run, '--config', cfg, '--backend', backend])
}
const benches: string[] = []
for (const arm of A.arms) {
  const b = join(out, `bench-${arm.name}`)
  await benchAdapter(`bench ${arm.name}`, join(out, `grpo-${arm.name}`, 'adapter'), b)
  benches.push(b)
}
cli('bench compare', ['bench', 'compare', ...benches, '--out', join(out, 'compare'), '--groups', 'all'])

// Per arm: F1, EM and tool calls per question with percentile-bootstrap 95% CIs (2,000 resamples, seed 0).
const fmt = (e: Estimate, d = 3) => `${e.mean.toFixed(d)} [${e.lo.toFixed(d)}, ${e.hi.toFixed(d)}]`
const rows = A.arms.map((arm, i) => {
  const recs = [...latestById(loadTrajectories(join(benches[i], 'trajectories.jsonl')).records).values()]
  const est = (label: string, xs: number[]) => bootstrapMean(xs, { resamples: 2000, seed: 0, label: `${arm.name}/${label}` })
  return `| ${arm.name} | ${recs.length} | ${fmt(est('f1', recs.map((r) => r.f1)))} | ${fmt(est('em', recs.map((r) => r.em)))} | ${fmt(est('tools', recs.map((r) => r.counts.search + r.counts.access)), 2)} |`
})
const md = [
  `# Reward ablation (${A.curriculum}; ${A.arms.map((a) => a.name).join(' vs ')}), ${S.steps} GRPO steps each from ${sft}/adapter`,
  '',
  '| arm | questions | F1 [95% CI] | EM [95% CI] | tool calls / question [95% CI] |',
  '| --- | ---: | --- | --- | --- |',
  ...rows,
  '',
  `Paired differences against the ${A.arms[0].name} arm: compare/compare.md (bench compare).`,
  '',
].join('\n')
writeFileSync(join(out, 'ablation.md'), md)
times.total = (performance.now() - t0) / 1000
writeFileSync(join(out, 'times.json'), JSON.stringify(times, null, 2) + '\n')
process.stdout.write(md + `\nreward-ablation: done in ${times.total.toFixed(0)} s; phases ${JSON.stringify(Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(v)])))}\n`)
