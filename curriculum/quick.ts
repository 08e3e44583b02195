// curriculum/quick: `searchgym train --preset quick --out DIR` — the whole training loop at toy size in one resumable
// command: a tiny world and a tiny model under DIR (reused when there), an oracle SFT warm start, a few GRPO steps
// (a checkpoint after every step), then the start (SFT) and the trained adapter scored on the held-out slice and their
// paired difference. Each piece is the CLI command a user would type, printed before it runs; SFT and GRPO run in this
// process, the others as child CLI processes (`bench run` / `bench compare` sit above curriculum, so they are not
// imported). It knows the sizes of its presets; it does not tune them to a result: the numbers are printed as they come.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../infra/errors'
import { NO_UPDATE_LINE } from '../agent'
import { runTraining } from './run'
import { runSft } from './sft-run'
import { CurriculumSource } from './source'
import { curriculumPreset } from './stages'
import { WorldPool } from './world-pool'
import { fileURLToPath } from 'node:url'

/** The repository root (shipped starts and world configs are repo-relative). */
const REPO = fileURLToPath(new URL('..', import.meta.url))

/** The sizes of one quick preset. */
export interface QuickSize {
  worldSeed: number
  sftQuestions: number
  sftEpochs: number
  sftBatch: number
  sftLr: number
  heldOut: number
  steps: number
  groupSize: number
  batchSize: number
  maxTurns: number
  maxTokensPerTurn: number
  /** Start from a shipped model folder (repo-relative) instead of a random model + SFT: the world is then built from
   *  `worldConfig` over `worldPreset` at worldSeed (a seed the start never trained on), GRPO trains a LoRA on the start,
   *  and the held-out slice is the world's own (the same CurriculumSource split `train` holds out). */
  start?: { model: string; worldPreset: string; worldConfig: string; maxHops: number; lr: number; temperature: number; observationCap: number }
}

/** quick: from the shipped start, ≤ 5 minutes on 2 idle cores; quick-scratch: from a random model; quick-smoke: the scratch
 *  pipeline at the smallest size that still runs every piece (tests). */
export const QUICK_PRESETS: Record<string, QuickSize> = {
  // From the shipped reader start, on a world of its recipe it never trained on (seed 103).
  quick: {
    worldSeed: 103, sftQuestions: 0, sftEpochs: 0, sftBatch: 0, sftLr: 0, heldOut: 100, steps: 80, groupSize: 8, batchSize: 64, maxTurns: 4, maxTokensPerTurn: 48,
    start: { model: 'curriculum/starts/reader-v0', worldPreset: 'small', worldConfig: 'bench/perf/configs/world-small2x-1to2.json', maxHops: 1, lr: 3e-4, temperature: 0.8, observationCap: 2000 },
  },
  // The loop from nothing: a tiny world and a random tiny model, an oracle SFT, GRPO (what `quick` was before the shipped start).
  'quick-scratch': { worldSeed: 5, sftQuestions: 16, sftEpochs: 3, sftBatch: 4, sftLr: 1e-2, heldOut: 8, steps: 4, groupSize: 4, batchSize: 8, maxTurns: 4, maxTokensPerTurn: 32 },
  'quick-smoke': { worldSeed: 5, sftQuestions: 4, sftEpochs: 1, sftBatch: 2, sftLr: 1e-2, heldOut: 4, steps: 2, groupSize: 2, batchSize: 2, maxTurns: 2, maxTokensPerTurn: 16 },
}

export function quickPresetNames(): string[] {
  return Object.keys(QUICK_PRESETS)
}

const PROTOCOL = 'search-r1'
const GYM = { topK: 3, observationCap: 600, prompt: 'brief' as const, accessByTitle: true }

export interface QuickOptions {
  preset: string
  out: string
  /** Override the preset's GRPO steps (a larger value lengthens a finished quick run). */
  steps?: number
  backend: string
  /** Progress and the commands as they run (stderr in the CLI). */
  log: (line: string) => void
  /** Lines shown even when quiet (resume notices). */
  notice: (line: string) => void
}

export interface QuickResult {
  startF1: number
  trainedF1: number
  /** Paired difference trained − start over the held-out questions, with its bootstrap 95% CI. */
  gain: { n: number; mean: number; lo: number; hi: number }
  line: string
}

/** Run `searchgym ARGS` as a child process (the same CLI entry that runs this one); its output goes to `log`. */
function cli(args: string[], log: (line: string) => void): Promise<void> {
  const entry = process.argv[1]
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...process.execArgv, entry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let tail = ''
    const take = (d: Buffer) => {
      const s = d.toString()
      tail = (tail + s).slice(-2000)
      for (const l of s.split('\n')) if (l.trim()) log(`  ${l}`)
    }
    p.stdout.on('data', take)
    p.stderr.on('data', take)
    p.on('error', reject)
    p.on('close', (code) => (code === 0 ? resolve() : reject(new ConfigError('train.quick', `searchgym ${args[0]} ${args[1] ?? ''} failed (exit ${code}): ${tail.trim().split('\n').pop() ?? ''}`))))
  })
}

const shown = (args: string[]) => 'searchgym ' + args.map((a) => (/^[\w./:@=-]+$/.test(a) ? a : `'${a}'`)).join(' ')

export async function runQuick(o: QuickOptions): Promise<QuickResult> {
  const size = Object.hasOwn(QUICK_PRESETS, o.preset) ? QUICK_PRESETS[o.preset] : undefined
  if (!size) throw new ConfigError('train.quick', `unknown train preset '${o.preset}'; use one of: ${quickPresetNames().join(', ')}`)
  if (o.steps !== undefined && !(Number.isInteger(o.steps) && o.steps >= 1)) throw new ConfigError('train.quick', `--steps must be a positive integer, got ${o.steps}`)
  const t0 = performance.now()
  const d = (x: string) => join(o.out, x)
  mkdirSync(o.out, { recursive: true })
  const step = (n: number, what: string, args?: string[]) => o.log(`quick [${n}/6] ${what}${args ? `: ${shown(args)}` : ''} (${((performance.now() - t0) / 1000).toFixed(0)} s)`)

  if (size.start) return runQuickFromStart(o, size, size.start, d, step, t0)
  // 1. World: `world build` skips a finished world (same config), so a rerun reuses it.
  const world = ['world', 'build', '--preset', 'tiny', '--seed', String(size.worldSeed), '--out', d('world'), '--quiet']
  step(1, 'world', world)
  await cli(world, o.log)

  // 2. Model: a random tiny model on the world's tokenizer (the demo init of curriculum/README.md); kept when there.
  const model = ['model', 'init', '--preset', 'tiny', '--tokenizer', `world:${d('world')}`, '--out', d('model'), '--seed', '0', '--embed-std', '0.25', '--qk-norm-weight', '2.5', '--backend', o.backend]
  if (existsSync(join(d('model'), 'config.json'))) step(2, 'model (kept)')
  else {
    step(2, 'model', model)
    await cli(model, o.log)
  }

  // 3. SFT warm start on oracle trajectories (skipped when its adapter exists).
  const sftDir = d('sft')
  const gymJson = JSON.stringify(GYM)
  if (existsSync(join(sftDir, 'adapter', 'adapter_model.safetensors'))) step(3, 'sft (kept)')
  else {
    step(3, 'sft', ['train', 'sft', '--world', d('world'), '--model', d('model'), '--out', sftDir, '--questions', String(size.sftQuestions), '--epochs', String(size.sftEpochs), '--batch', String(size.sftBatch), '--lr', String(size.sftLr), '--held-out', String(size.heldOut), '--max-hops', '1', '--protocol', PROTOCOL, '--gym-options', gymJson, '--oracle-answer', 'read', '--lora-rank', '8', '--backend', o.backend])
    await runSft({ world: d('world'), model: d('model'), out: sftDir, questions: size.sftQuestions, epochs: size.sftEpochs, batchSize: size.sftBatch, lr: size.sftLr, seed: 0, heldOut: size.heldOut, loraRank: 8, loraEmbed: false, backend: o.backend, protocol: PROTOCOL, gym: GYM, maxHops: 1, oraclePages: 'needed', oracleAnswer: 'read', log: (l) => o.log(`  ${l}`) })
  }

  // 4. GRPO from the SFT adapter: a checkpoint after every step; the run folder resumes (loudly) on a rerun.
  const cfgFile = d('grpo.json')
  const cfg = { steps: size.steps, groupSize: size.groupSize, batchSize: size.batchSize, microBatch: size.batchSize, maxTurns: size.maxTurns, maxTokensPerTurn: size.maxTokensPerTurn, lora: { rank: 8, alpha: 16 }, checkpointEvery: 1, evalEvery: 0, heldOut: size.heldOut, seed: 0, klBeta: 0, refillRounds: 0, lr: 1e-3, switchSteps: 1, maxHops: 2, protocol: PROTOCOL, gym: { ...GYM, reward: 'em+format' } }
  writeFileSync(cfgFile, JSON.stringify(cfg, null, 2) + '\n')
  const grpoArgs = ['train', '--world', d('world'), '--model', d('model'), '--adapter', join(sftDir, 'adapter'), '--curriculum', 'two-stage', '--config', cfgFile, '--out', d('grpo'), '--backend', o.backend, ...(o.steps !== undefined ? ['--steps', String(o.steps)] : [])]
  step(4, 'grpo', grpoArgs)
  const r = await runTraining({ world: d('world'), model: d('model'), adapter: join(sftDir, 'adapter'), curriculum: 'two-stage', out: d('grpo'), config: cfg, overrides: o.steps !== undefined ? [{ steps: o.steps }] : [], backend: o.backend, log: (l) => o.log(`  ${l}`), notice: o.notice })

  // 5. The start (SFT adapter) and the trained adapter, greedy, on the held-out slice (same protocol and gym options).
  // A bench run resumes; a finished one is rerun from scratch only when its adapter changed (GRPO went further).
  const evalGym = JSON.stringify({ ...GYM, budgets: { maxTurns: size.maxTurns } })
  const bench = (adapter: string, out: string) => ['bench', 'run', '--world', d('world'), '--split', 'train', '--qa-ids', join(sftDir, 'heldout.json'), '--policy', 'engine', '--model', d('model'), '--adapter', adapter, '--protocol', PROTOCOL, '--temperature', '0', '--max-tokens', String(size.maxTokensPerTurn), '--gym-options', evalGym, '--backend', o.backend, '--out', out]
  const startRun = d('eval-start')
  const trainedRun = d(`eval-trained-step-${r.steps}`)
  for (const [what, args] of [['held-out, start', bench(join(sftDir, 'adapter'), startRun)], ['held-out, trained', bench(r.adapterDir, trainedRun)]] as const) {
    step(5, what, [...args])
    await cli([...args], o.log)
  }

  return compareAndSay(o, d, step, startRun, trainedRun, r, t0)
}


/** 6. The paired difference trained − start on the same questions, with its bootstrap CI, as the run's last line. */
async function compareAndSay(o: QuickOptions, d: (x: string) => string, step: (n: number, what: string, args?: string[]) => void, startRun: string, trainedRun: string, r: { steps: number; optimizerSteps: number }, t0: number): Promise<QuickResult> {
  const cmpOut = d('compare')
  const cmp = ['bench', 'compare', startRun, trainedRun, '--groups', 'all', '--out', cmpOut]
  step(6, 'compare', cmp)
  await cli(cmp, o.log)
  const rows = (JSON.parse(readFileSync(join(cmpOut, 'compare.json'), 'utf8')) as { rows: { group: string; metric: string; baselineMean: number; runMean: number; diff: { n: number; mean: number; lo: number; hi: number } }[] }).rows
  const f1 = rows.find((x) => x.group === 'all' && x.metric === 'f1')
  if (!f1) throw new ConfigError('train.quick', `${cmpOut}/compare.json has no F1 row`)
  const pp = (x: number) => (100 * x).toFixed(1)
  const sign = (x: number) => (x >= 0 ? '+' : '') + pp(x)
  const verdict = r.optimizerSteps === 0 ? NO_UPDATE_LINE : f1.diff.lo > 0 ? 'a gain (CI above 0)' : f1.diff.hi < 0 ? 'a loss (CI below 0)' : 'no gain at this size (CI includes 0)'
  const line =
    `held-out F1 (${f1.diff.n} questions): start ${pp(f1.baselineMean)}% → trained ${pp(f1.runMean)}% after ${r.steps} GRPO steps (${r.optimizerSteps} optimizer steps); ` +
    `paired gain ${sign(f1.diff.mean)} pp [95% CI ${sign(f1.diff.lo)}, ${sign(f1.diff.hi)}]: ${verdict}; ${((performance.now() - t0) / 1000).toFixed(0)} s`
  return { startF1: f1.baselineMean, trainedF1: f1.runMean, gain: f1.diff, line }
}

/** The quick loop from a shipped start: an unseen world of the start's recipe, GRPO (LoRA) on the start, the start and
 *  the trained adapter benched on the world's held-out slice, compared. */
async function runQuickFromStart(o: QuickOptions, size: QuickSize, st: NonNullable<QuickSize['start']>, d: (x: string) => string, step: (n: number, what: string, args?: string[]) => void, t0: number): Promise<QuickResult> {
  const model = join(REPO, st.model)
  if (!existsSync(join(model, 'model.safetensors'))) throw new ConfigError('train.quick', `the shipped start ${st.model} is missing (no model.safetensors); restore it from git`)
  const world = ['world', 'build', '--preset', st.worldPreset, '--config', join(REPO, st.worldConfig), '--seed', String(size.worldSeed), '--out', d('world'), '--quiet']
  step(1, 'world (never trained on by the start)', world)
  await cli(world, o.log)
  step(2, `model: the shipped start ${st.model}`)
  // 3. No SFT: the start is one. The held-out slice is the one `train` holds out of this world with the same seed.
  const gym = { topK: 3, observationCap: st.observationCap, prompt: 'brief' as const, accessByTitle: true }
  const heldFile = d('heldout.json')
  if (!existsSync(heldFile)) {
    const pool = await WorldPool.open([d('world')])
    try {
      const src = new CurriculumSource(curriculumPreset('mixed', 1), pool.listQa('train'), { seed: 0, heldOut: size.heldOut })
      writeFileSync(heldFile, JSON.stringify(src.heldOut().map((q) => q.id)) + '\n')
      step(3, `held-out slice: ${src.heldOutLine()}`)
    } finally {
      await pool.close()
    }
  } else step(3, 'held-out slice (kept)')
  const cfgFile = d('grpo.json')
  const cfg = { steps: size.steps, groupSize: size.groupSize, batchSize: size.batchSize, microBatch: size.batchSize, maxTurns: size.maxTurns, maxTokensPerTurn: size.maxTokensPerTurn, lora: { rank: 16, alpha: 32 }, checkpointEvery: 1, evalEvery: 0, heldOut: size.heldOut, seed: 0, klBeta: 0, refillRounds: 2, lr: st.lr, temperature: st.temperature, switchSteps: size.steps, maxHops: st.maxHops, protocol: PROTOCOL, gym: { ...gym, reward: 'f1' } }
  writeFileSync(cfgFile, JSON.stringify(cfg, null, 2) + '\n')
  const grpoArgs = ['train', '--world', d('world'), '--model', model, '--curriculum', 'two-stage', '--config', cfgFile, '--out', d('grpo'), '--backend', o.backend, ...(o.steps !== undefined ? ['--steps', String(o.steps)] : [])]
  step(4, 'grpo', grpoArgs)
  const r = await runTraining({ world: d('world'), model, curriculum: 'two-stage', out: d('grpo'), config: cfg, overrides: o.steps !== undefined ? [{ steps: o.steps }] : [], backend: o.backend, log: (l) => o.log(`  ${l}`), notice: o.notice })
  const evalGym = JSON.stringify({ ...gym, budgets: { maxTurns: size.maxTurns } })
  const bench = (adapter: string | undefined, out: string) => ['bench', 'run', '--world', d('world'), '--split', 'train', '--qa-ids', heldFile, '--policy', 'engine', '--model', model, ...(adapter ? ['--adapter', adapter] : []), '--protocol', PROTOCOL, '--temperature', '0', '--max-tokens', String(size.maxTokensPerTurn), '--gym-options', evalGym, '--backend', o.backend, '--out', out]
  const startRun = d('eval-start')
  const trainedRun = d(`eval-trained-step-${r.steps}`)
  for (const [what, args] of [['held-out, start', bench(undefined, startRun)], ['held-out, trained', bench(r.adapterDir, trainedRun)]] as const) {
    step(5, what, [...args])
    await cli([...args], o.log)
  }
  return compareAndSay(o, d, step, startRun, trainedRun, r, t0)
}
