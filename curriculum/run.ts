// curriculum/run: `searchgym train` as a library call — open the world (gym), the model (+ adapter) on the chosen
// backend, its tokenizer and chat template (the chat codec), the curriculum preset over the world's training
// questions, then agent/train's loop. Writes runs/NAME/config.json and refuses to resume a run with another config
// (a larger --steps alone lengthens the run).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { comparableBudgets, resolveGymOptions, resolveRunGym } from '../gym'
import { folderFingerprint, recordedPath, sameRecordedPath } from '../infra/recorded-path'
import { ConfigError } from '../infra/errors'
import { canonicalJson } from '../infra/hash'
import { lockDir } from '../infra/lock'
import { ChatCodec } from '../infra/engine'
import { chatTemplateOf, SIMPLE_QWEN_TEMPLATE } from '../infra/engine'
import { Learner } from '../infra/engine'
import { LORA_TARGETS, loadLoraAdapter } from '../infra/engine'
import { loadModel } from '../infra/engine'
import { loadTokenizer } from '../infra/engine'
import type { TokenSampler } from '../agent'
import { openBackend } from '../agent'
import { movedBudgetKeys, type TrainConfig } from '../agent'
import { train, type TrainResult } from '../agent'
import { CHECKED_WORLD_STAGES } from '../agent'
import { checkWorldDir } from '../world'
import { CurriculumSource } from './source'
import { capHops, curriculumPreset } from './stages'
import { WorldPool } from './world-pool'

export interface TrainRunOptions {
  /** A world folder, or several (a pool: every question's env searches its own world; ids become WORLD/ID). */
  world: string | readonly string[]
  model: string
  adapter?: string
  curriculum: string
  out: string
  /** The run's train config, resolved once by the caller (`train`: resolveTrainConfig(--config FILE, flag overrides);
   *  an experiment: its typed train block composed per run); not resolved again here. */
  config: TrainConfig
  backend?: string
  /** The rollout sampler, when not the learner's own sampling: an injected dependency (tests inject scripted replies
   *  carrying the model's real log-probs, in process or through the CLI's composition root); no flag reaches it. */
  sampler?: RolloutSamplerFactory
  log?: (line: string) => void
  /** Lines shown even when quiet (resuming from step K / no checkpoint yet: starting over); default: log. */
  notice?: (line: string) => void
}

/** A train run's config.json. Paths are relative to the run folder (a copied folder keeps its provenance) and no
 *  absolute path is written; `identity` says what they named by content — each world's content hash, the model's and
 *  the start adapter's folder fingerprint — so a folder moved away from its inputs still recognises them. */
export interface RunConfig {
  /** One folder, or the pool's folders in order (a list only when there are several). */
  world: string | string[]
  model: string
  adapter: string | null
  curriculum: string
  backend: string
  train: TrainConfig
  identity: { world: string | string[]; model: string; adapter: string | null }
}

/** A config.json written before identity: the absolute paths the run was started with (read, never written). */
type OlderRunConfig = RunConfig & { origin?: { world?: string | string[]; model?: string; adapter?: string | null } }

/** Makes the rollout sampler of a run from its learner and chat codec (at the run's sampling temperature). */
export type RolloutSamplerFactory = (learner: Learner, codec: ChatCodec, temperature: number) => TokenSampler

const PATH_KEYS = ['world', 'model', 'adapter'] as const

/** Whether the stored config is this run's (in all but train.steps when anySteps): every other field equal, and each
 *  recorded path naming the path given now — from where the folder is (copied with its inputs), or by content (its
 *  identity: moved away from them), or, in a folder written before identity, by the absolute origin it recorded. */
function sameRun(stored: OlderRunConfig, run: RunConfig, given: GivenPaths, out: string, anySteps: boolean): boolean {
  // fixtureReplies: a field older run folders carry (null unless a test played scripted replies); it names no setting.
  const rest = (c: OlderRunConfig, steps: number) => {
    const { world: _w, model: _m, adapter: _a, origin: _o, identity: _i, fixtureReplies: _f, ...others } = c as OlderRunConfig & { fixtureReplies?: unknown }
    return canonicalJson({ ...others, train: { ...comparableTrain(c.train), steps } })
  }
  if (!Number.isInteger(stored?.train?.steps)) return false
  if (rest(stored, anySteps ? 0 : stored.train.steps) !== rest(run, anySteps ? 0 : run.train.steps)) return false
  return PATH_KEYS.every((k) => {
    const list = (v: string | string[] | null | undefined) => (v == null ? [] : typeof v === 'string' ? [v] : v)
    const rec = list(stored[k]), origin = list(stored.origin?.[k]), now = list(given[k]), was = list(stored.identity?.[k]), is = list(run.identity[k])
    return rec.length === now.length && rec.every((r, i) => sameRecordedPath(out, r, now[i], origin[i]) || (was[i] !== undefined && was[i] !== '' && was[i] === is[i]))
  })
}

/** A train config as two runs compare it: a config.json of the older spelling (its episode limits at the top, always
 *  written out) read into gym.budgets (agent legacy-keys), and the two limits it always carried filled with the gym's
 *  defaults on both sides, so the same limits are the same run however they were written. */
function comparableTrain(t: TrainConfig): TrainConfig {
  const moved = movedBudgetKeys(t, 'train.') as TrainConfig
  return { ...moved, gym: { ...moved.gym, budgets: comparableBudgets(moved.gym?.budgets ?? {}) } }
}

/** The absolute paths a run was given (compared with what a stored config names; never written). */
type GivenPaths = { world: string | string[]; model: string; adapter: string | null }

export function openLearner(modelDir: string, adapterDir: string | undefined, c: Pick<TrainConfig, 'lora' | 'seed'>, backend = 'ts') {
  const model = loadModel(modelDir, openBackend(backend))
  if (adapterDir) model.adapter = loadLoraAdapter(adapterDir, model.backend, model.config)
  const learner = new Learner(model, { lora: { rank: c.lora.rank, alpha: c.lora.alpha, targets: [...LORA_TARGETS], embedTokens: c.lora.embedTokens === true }, seed: c.seed, baseModelNameOrPath: resolve(modelDir) })
  const tokenizer = loadTokenizer(modelDir)
  const codec = new ChatCodec(tokenizer, chatTemplateOf(tokenizer, SIMPLE_QWEN_TEMPLATE))
  return { learner, codec }
}

/** The stored config, or null when it is not JSON. */
function parseStored(text: string): OlderRunConfig | null {
  try {
    return JSON.parse(text) as OlderRunConfig
  } catch {
    return null
  }
}

export async function runTraining(o: TrainRunOptions): Promise<TrainResult> {
  const cfg = o.config
  const spec = capHops(curriculumPreset(o.curriculum, cfg.switchSteps), cfg.maxHops)
  // The gym options are resolved once, here, before anything is written (an unknown reward name or option is a one-line
  // error, not a failed step); the loop gets them typed, its reward spec parsed.
  const gym = resolveRunGym(cfg.gym, cfg.protocol)
  const worlds = typeof o.world === 'string' ? [o.world] : [...o.world]
  // Every world's rows against its hash before the run folder is touched (once per process and file state).
  const hashes = worlds.map((w) => checkWorldDir(w, CHECKED_WORLD_STAGES).hash)
  const rec = (p: string) => recordedPath(o.out, p)
  const abs = worlds.map((w) => resolve(w))
  const given: GivenPaths = { world: abs.length === 1 ? abs[0] : abs, model: resolve(o.model), adapter: o.adapter ? resolve(o.adapter) : null }
  const identity: RunConfig['identity'] = { world: hashes.length === 1 ? hashes[0] : hashes, model: folderFingerprint(given.model), adapter: given.adapter && folderFingerprint(given.adapter) }
  const run: RunConfig = {
    world: abs.length === 1 ? rec(abs[0]) : abs.map(rec), model: rec(given.model), adapter: given.adapter && rec(given.adapter), curriculum: o.curriculum, backend: o.backend ?? 'ts',
    train: cfg, identity,
  }
  mkdirSync(o.out, { recursive: true })
  // One writer per run folder: a second `train` (or an experiment's run) on it is a one-line error naming the first.
  const lock = lockDir(o.out, 'train')
  try {
    return await trainLocked(o, run, given, spec, gym, worlds)
  } finally {
    lock.release()
  }
}

async function trainLocked(o: TrainRunOptions, run: RunConfig, given: GivenPaths, spec: ReturnType<typeof capHops>, gym: ReturnType<typeof resolveGymOptions>, worlds: string[]): Promise<TrainResult> {
  const cfg = o.config
  const cfgFile = join(o.out, 'config.json')
  const text = JSON.stringify(run, null, 2) + '\n'
  const existingRun = existsSync(cfgFile)
  if (existingRun) {
    const was = readFileSync(cfgFile, 'utf8')
    const stored = parseStored(was)
    // The same run from a copied or moved folder resumes with its config.json as it was.
    if (was !== text && !(stored && sameRun(stored, run, given, o.out, false))) {
      const steps = stored && sameRun(stored, run, given, o.out, true) ? stored.train.steps : null
      if (steps === null) throw new ConfigError('train.resume_mismatch', `${o.out} holds a run with another config; use a new --out or the same flags to resume`)
      if (cfg.steps < steps)
        throw new ConfigError('train.resume_shorten', `${o.out} holds a run of ${steps} steps; --steps ${cfg.steps} would shorten it (use --steps ≥ ${steps}, or a new --out)`)
      // Only --steps grew: the run goes on from its last checkpoint, drawing what one longer run would have drawn.
      o.log?.(`train: lengthening ${o.out} from ${steps} to ${cfg.steps} steps (resuming from its last checkpoint)`)
      writeFileSync(cfgFile, text)
    }
  } else writeFileSync(cfgFile, text)
  const pool = await WorldPool.open(worlds)
  const world = pool.members[0].gym
  try {
    const { learner, codec } = openLearner(o.model, o.adapter, cfg, run.backend)
    const source = new CurriculumSource(spec, pool.listQa('train'), {
      seed: cfg.seed,
      // Held out of training whether or not the run evaluates on it (train sft and bench run --qa-ids use the same slice).
      heldOut: cfg.heldOut,
    })
    if (cfg.heldOut > 0) o.log?.(`train: ${source.heldOutLine()}`)
    const sampler = o.sampler?.(learner, codec, cfg.temperature)
    return await train({ learner, codec, world, worldFor: pool.single ? undefined : pool.worldFor, source, config: cfg, gym, out: o.out, log: o.log, notice: o.notice, existingRun, sampler })
  } finally {
    await pool.close()
  }
}
