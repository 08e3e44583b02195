// bench/perf/learn-demo: the learning demonstration end to end through the real CLI — world build → model init
// (world tokenizer) → `train sft` (oracle warm start) → `bench run` of the SFT adapter → `train` GRPO two-stage
// from the SFT adapter → `bench run` of the GRPO adapter → `bench compare` (paired CI of the gain) → `train report`.
// `--ablation` also trains the four other arms (mixed, stage1-only, adaptive, two-stage --no-access) for the same
// budget from the same SFT start and compares all five. Prints the wall time of every phase; writes everything
// under --out. Sizes: --quick (tiny world and model, CPU) or the default (small; for the native/cuda backends).
//
// Usage: node bin/run-ts.mjs bench/perf/learn-demo.ts --out runs/learn-demo [--quick] [--ablation] [--backend auto]
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

function arg(name: string, def?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] && !process.argv[i + 1].startsWith('--') ? process.argv[i + 1] : def
}
const flag = (name: string) => process.argv.includes(`--${name}`)

const out = resolve(arg('out', 'runs/learn-demo')!)
const quick = flag('quick')
const ablation = flag('ablation')
const backend = arg('backend', 'auto')!
const S = quick
  ? { world: 'tiny', preset: 'tiny', sftQuestions: 48, sftEpochs: 10, sftBatch: 8, sftLr: 2e-2, steps: 4, groupSize: 4, batchSize: 8, switchSteps: 2, benchLimit: 12, maxTurns: 4, maxTokens: 40, heldOut: 4, evalEvery: 2 }
  : { world: 'small', preset: 'small', sftQuestions: 0, sftEpochs: 3, sftBatch: 16, sftLr: 1e-2, steps: 60, groupSize: 8, batchSize: 64, switchSteps: 30, benchLimit: 200, maxTurns: 16, maxTokens: 128, heldOut: 32, evalEvery: 10 }
const BIN = resolve('bin/searchgym.mjs')
process.env.SEARCHGYM_DEMO_KEY = 'local-engine' // the local server ignores it; the OpenAI client wants one
const times: Record<string, number> = {}

function cli(phase: string, args: string[]): void {
  const t = performance.now()
  process.stderr.write(`\n== ${phase}: searchgym ${args.join(' ')}\n`)
  const r = spawnSync(process.execPath, [BIN, ...args], { stdio: 'inherit' })
  times[phase] = (performance.now() - t) / 1000
  if (r.status !== 0) {
    process.stderr.write(`learn-demo: ${phase} failed (exit ${r.status})\n`)
    process.exit(1)
  }
}

/** `model serve --adapter` in the background, `bench run` against it, then stop the server (by its own pid). */
async function benchAdapter(phase: string, adapter: string, run: string): Promise<void> {
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
    const name = adapter.split('/').filter(Boolean).at(-1)!
    cli(`${phase} (bench)`, ['bench', 'run', '--world', world, '--policy', 'openai', '--protocol', 'hermes', '--base-url', url, '--model', name, '--api-key-env', 'SEARCHGYM_DEMO_KEY',
      '--temperature', '0', '--max-tokens', String(S.maxTokens), '--limit', String(S.benchLimit), '--concurrency', '4', '--out', run, '--quiet',
      '--gym-options', JSON.stringify({ budgets: { maxTurns: S.maxTurns, maxResponseTokens: S.maxTokens, maxContextTokens: 4096 } })])
  } finally {
    p.kill('SIGTERM')
  }
  times[phase] = (performance.now() - t) / 1000
}

mkdirSync(out, { recursive: true })
const world = join(out, 'world')
const model = join(out, 'model')
const t0 = performance.now()
if (!existsSync(join(world, 'world.db'))) cli('world build', ['world', 'build', '--preset', S.world, '--seed', '1', '--out', world, '--quiet'])
// --embed-std 0.25 --qk-norm-weight 2.5: LoRA cannot change the embedding or the norms. With the defaults (0.02, 1) a
// random model's largest output logit is ≈ 1.3 and its attention logits are ≤ √headDim, so SFT stalls near ln V
// (bench/RESULTS.md, "Learning demonstration").
if (!existsSync(join(model, 'config.json'))) cli('model init', ['model', 'init', '--preset', S.preset, '--tokenizer', `world:${world}`, '--out', model, '--seed', '0', '--embed-std', '0.25', '--qk-norm-weight', '2.5'])
const sft = join(out, 'sft')
if (!existsSync(join(sft, 'adapter'))) cli('train sft', ['train', 'sft', '--world', world, '--model', model, '--out', sft, '--questions', String(S.sftQuestions), '--epochs', String(S.sftEpochs), '--batch', String(S.sftBatch), '--lr', String(S.sftLr), '--held-out', String(S.heldOut), '--backend', backend])
const cfg = join(out, 'grpo.json')
writeFileSync(cfg, JSON.stringify({ turnBudget: 'hop-scaled', turnsPerHop: 3, steps: S.steps, groupSize: S.groupSize, batchSize: S.batchSize, microBatch: 16, maxTurns: S.maxTurns, maxTokensPerTurn: S.maxTokens, lr: 1e-4, klBeta: 0, evalEvery: S.evalEvery, heldOut: S.heldOut, checkpointEvery: 2, switchSteps: S.switchSteps, refillRounds: 1 }, null, 2))
const arms: [string, string[]][] = [['two-stage', ['--curriculum', 'two-stage']]]
if (ablation) arms.push(['mixed', ['--curriculum', 'mixed']], ['stage1-only', ['--curriculum', 'stage1-only']], ['adaptive', ['--curriculum', 'adaptive']], ['two-stage-no-access', ['--curriculum', 'two-stage', '--no-access']])
for (const [name, flags] of arms) {
  const run = join(out, `grpo-${name}`)
  cli(`train ${name}`, ['train', '--world', world, '--model', model, '--adapter', join(sft, 'adapter'), ...flags, '--out', run, '--config', cfg, '--backend', backend])
  cli(`report ${name}`, ['train', 'report', run])
}
const sftBench = join(out, 'bench-sft')
await benchAdapter('bench sft', join(sft, 'adapter'), sftBench)
const benches = [sftBench]
for (const [name] of arms) {
  const b = join(out, `bench-${name}`)
  await benchAdapter(`bench ${name}`, join(out, `grpo-${name}`, 'adapter'), b)
  benches.push(b)
}
cli('bench compare', ['bench', 'compare', ...benches, '--out', join(out, 'compare'), '--groups', 'all'])
times.total = (performance.now() - t0) / 1000
writeFileSync(join(out, 'times.json'), JSON.stringify(times, null, 2) + '\n')
process.stdout.write(`learn-demo: done in ${times.total.toFixed(0)} s; phases ${JSON.stringify(Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(v)])))}\n`)
