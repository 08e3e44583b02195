// curriculum/sft-config: `train sft`'s one typed config — the field table (every knob's key, type, default, help,
// bounds and old flag, once), the defaults object derived from it, and resolveSftConfig: the table's checks plus the
// cross-field ones (turn / answerOnly / answerWeight / mix exclude each other, full takes no initAdapter, gym without
// protocol), each naming keys through the caller's Namer — `turn (--turn)` on a command line, `experiment.start.sft.turn`
// in a file. The run's identity (world, model, out) is not config; runSft takes both. Knows no command line.
import { ConfigError } from '../infra/errors'
import { keyNamer, resolveFields, type FieldTable, type Namer } from '../infra/fields'
import { resolveRunGym, TEXT_PROTOCOLS, type GymOptionsJson, type TextProtocolName } from '../gym'

export const SFT_KINDS = ['demo', 'search', 'access', 'answer', 'read', 'fact'] as const
export type SftKind = (typeof SFT_KINDS)[number]
export type SftMix = Partial<Record<SftKind, number>>

/** The largest weight of one kind in a mix (a weight is relative to the others; 1000 is far past any useful ratio). */
export const MAX_MIX_WEIGHT = 1000

export interface SftConfig {
  /** Training questions the oracle plays (0: all). */
  questions: number
  epochs: number
  /** Sequences per optimizer step. */
  batch: number
  lr: number
  /** Must equal the GRPO run's seed (the same held-out slice). */
  seed: number
  /** Held-out slice excluded (must equal the GRPO run's heldOut with the same seed). */
  heldOut: number
  loraRank: number
  /** LoRA on the input embedding too (PEFT target embed_tokens). */
  loraEmbed: boolean
  backend: string
  /** The protocol the demonstrations are written in (must equal the GRPO run's). */
  protocol: TextProtocolName
  /** Gym options of the demonstrations' envs (must equal the GRPO run's `gym`); never protocol. */
  gym?: GymOptionsJson
  /** Only questions with at most this many hops (0: all). */
  maxHops: number
  /** How the oracle reads paged documents: 'needed' (pages in order until the hop's fact is read) or 'all'. */
  oraclePages: 'all' | 'needed'
  /** An entity answer: open its page ('open') or answer once the last hop's evidence sentence is read ('read'). */
  oracleAnswer: 'open' | 'read'
  /** Start from this adapter's weights (a continuation: new optimizer state) instead of a new adapter. */
  initAdapter?: string
  /** Also the oracle's first turn of up to this many other training questions (0: none). */
  firstTurns: number
  /** Train only each demonstration's final (answer) turn, the whole episode as context. */
  answerOnly: boolean
  /** Loss weight of each demonstration's final turn against 1 on its other assistant tokens (unset: 1, no weights). */
  answerWeight?: number
  /** Train only each demonstration's K-th assistant turn (1 = its first search), the turns before it as context. */
  turn?: number
  /** Train every weight of a float32 model (no adapter): OUT/model is a model folder. */
  full: boolean
  /** One mixed SFT: a sequence of each kind with a weight > 0 from every solved demonstration (see sft-run). */
  mix?: SftMix
  /** With a pool and `questions` > 0: questions round-robin across the pool's worlds. */
  spread: boolean
  /** Epoch 0 in order of increasing sequence length. */
  shortFirst: boolean
  /** Stop after this many CPU seconds of training steps (resumable). */
  cpuBudgetS?: number
  /** The funnel on unseen worlds: `questions` of each hop count in `hops`, after every `every` steps and at the end. */
  eval: { worlds?: string[]; questions: number; hops: number[]; every?: number }
}

/** `demo=1,answer=2,read=4` → a mix; one-line errors (named `name`) for unknown kinds and weights that are not finite
 *  and in [0, MAX_MIX_WEIGHT]. */
export function parseSftMix(text: string, name = 'mix'): SftMix {
  const mix: SftMix = {}
  for (const part of text.split(',').map((x) => x.trim()).filter(Boolean)) {
    const m = /^([a-z]+)(?:=([^=]+))?$/.exec(part)
    if (!m || !(SFT_KINDS as readonly string[]).includes(m[1])) throw new ConfigError('sft.mix', `${name}: '${part}' is not KIND or KIND=WEIGHT with KIND one of ${SFT_KINDS.join(', ')}`)
    if (Object.prototype.hasOwnProperty.call(mix, m[1])) throw new ConfigError('sft.mix', `${name} names ${m[1]} twice; give each kind once`)
    mix[m[1] as SftKind] = m[2] === undefined ? 1 : Number(m[2])
  }
  checkSftMix(mix, name)
  return mix
}

/** A mix object's kinds and weights (bounded: the weights multiply token losses that are summed — 1e308 × 2 is
 *  Infinity, a run of NaN losses). */
function checkSftMix(mix: unknown, name: string): void {
  if (typeof mix !== 'object' || mix === null || Array.isArray(mix)) throw new ConfigError('sft.mix', `${name} must be an object of kind weights, e.g. {"demo":1,"answer":2}`)
  for (const [k, w] of Object.entries(mix)) {
    if (!(SFT_KINDS as readonly string[]).includes(k)) throw new ConfigError('sft.mix', `${name}: '${k}' is not a kind (kinds: ${SFT_KINDS.join(', ')})`)
    if (!(typeof w === 'number' && Number.isFinite(w) && w >= 0 && w <= MAX_MIX_WEIGHT)) throw new ConfigError('sft.mix', `${name}: the weight of ${k} must be a number in [0, ${MAX_MIX_WEIGHT}], got '${String(w)}'`)
  }
  if (!Object.values(mix).some((w) => (w as number) > 0)) throw new ConfigError('sft.mix', `${name} gives no kind a weight > 0 (kinds: ${SFT_KINDS.join(', ')})`)
}

function jsonText(t: string, name: string): unknown {
  try {
    return JSON.parse(t)
  } catch (e) {
    throw new ConfigError('sft.mix', `${name} is not valid JSON: ${(e as Error).message}`)
  }
}

/** Every knob of `train sft`, once. Only backend keeps a visible flag; the old flags stay as aliases for one release. */
export const SFT_FIELDS: FieldTable = [
  { key: 'questions', type: 'int', default: 0, min: 0, max: 10_000_000, help: 'training questions for the oracle (0: all)', aliases: ['questions'] },
  { key: 'epochs', type: 'int', default: 3, min: 1, max: 1000, help: 'passes over the oracle demonstrations', aliases: ['epochs'] },
  { key: 'batch', type: 'int', default: 16, min: 1, max: 4096, help: 'sequences per optimizer step', aliases: ['batch'] },
  { key: 'lr', type: 'number', default: 1e-3, gt: 0, max: 1, help: 'AdamW learning rate (of the LoRA weights, or of every weight with full)', aliases: ['lr'] },
  { key: 'seed', type: 'int', default: 0, min: 0, help: 'must equal the GRPO run seed (same held-out slice)', aliases: ['seed'] },
  { key: 'heldOut', type: 'int', default: 64, min: 0, help: 'must equal the GRPO run heldOut', aliases: ['held-out'] },
  { key: 'loraRank', type: 'int', default: 32, min: 1, max: 1024, help: 'LoRA rank of the adapter', aliases: ['lora-rank'] },
  { key: 'loraEmbed', type: 'bool', default: false, help: 'LoRA on the input embedding too (PEFT target embed_tokens)', aliases: ['lora-embed'] },
  { key: 'backend', type: 'string', default: 'auto', help: 'engine backend: auto (native where it built, else ts) | native | ts | cuda', flag: 'backend' },
  { key: 'protocol', type: 'enum', choices: TEXT_PROTOCOLS, default: 'hermes', help: 'protocol of the demonstrations (must equal the GRPO config protocol)', aliases: ['protocol'] },
  { key: 'gym', type: 'json', optional: true, help: 'gym options, e.g. {"topK":3,"observationCap":600} (must equal the GRPO config gym; not protocol)', aliases: ['gym-options'] },
  { key: 'maxHops', type: 'int', default: 0, min: 0, max: 12, help: 'only training questions with at most this many hops (0: all)', aliases: ['max-hops'] },
  { key: 'oraclePages', type: 'enum', choices: ['needed', 'all'], default: 'needed', help: 'how the oracle reads paged documents: needed (in order until the fact is read) or all', aliases: ['oracle-pages'] },
  { key: 'oracleAnswer', type: 'enum', choices: ['open', 'read'], default: 'open', help: "an entity answer: open its page, or answer with the name once the last hop's evidence sentence is read", aliases: ['oracle-answer'] },
  { key: 'initAdapter', type: 'string', optional: true, help: 'start from this adapter (a continuation with a new optimizer) instead of a new one', aliases: ['init-adapter'] },
  { key: 'firstTurns', type: 'int', default: 0, min: 0, max: 10_000_000, help: "also the oracle's first turn of up to N other training questions", aliases: ['first-turns'] },
  { key: 'answerOnly', type: 'bool', default: false, help: "train only each demonstration's final (answer) turn, the whole episode as context", aliases: ['answer-only'] },
  { key: 'answerWeight', type: 'number', optional: true, gt: 0, max: 1000, help: "loss weight of each demonstration's final turn against 1 on its other assistant tokens (unset: 1)", aliases: ['answer-weight'] },
  { key: 'turn', type: 'int', optional: true, min: 1, max: 1000, help: "train only each demonstration's K-th assistant turn, the turns before it as context", aliases: ['turn'] },
  { key: 'full', type: 'bool', default: false, help: 'train every weight of a float32 model folder (no adapter): OUT/model is a model folder', aliases: ['full'] },
  { key: 'mix', type: 'json', optional: true, help: 'one mixed SFT: KIND=WEIGHT,… (or a JSON object) of demo, search, access, answer, read, fact', aliases: ['mix'], parse: (t, name) => (t.trim().startsWith('{') ? jsonText(t, name) : parseSftMix(t, name)), check: (v, _fail, name) => checkSftMix(v, name) },
  { key: 'spread', type: 'bool', default: false, help: "with a pool and questions: take the questions round-robin across its worlds", aliases: ['spread'] },
  { key: 'shortFirst', type: 'bool', default: false, help: 'the first epoch in order of increasing sequence length', aliases: ['short-first'] },
  { key: 'cpuBudgetS', type: 'number', optional: true, gt: 0, help: 'stop after this many CPU seconds of training steps (a rerun with a bigger budget resumes)', aliases: ['cpu-budget'] },
  { key: 'eval.worlds', type: 'list', optional: true, help: 'unseen world folders to print the funnel on (search, opened, read|oracle, F1, answer loss)', aliases: ['eval-world'] },
  { key: 'eval.questions', type: 'int', default: 100, min: 0, max: 10_000_000, help: 'questions per hop count of the funnel', aliases: ['eval-questions'] },
  { key: 'eval.hops', type: 'list', of: 'int', min: 1, max: 12, default: [1, 2], help: 'hop counts of the funnel', aliases: ['eval-hops'] },
  { key: 'eval.every', type: 'int', optional: true, min: 1, help: 'the funnel after every N steps too (unset: at the end only)', aliases: ['eval-every'] },
]

/** A config object (a file's, an experiment block's, a command line's) checked and over the defaults: the table's
 *  checks, then the cross-field ones; `base` gives a caller's own defaults (the experiment's start.sft). */
export function resolveSftConfig(input: unknown, where = '', base: Record<string, unknown> = {}, name: Namer = keyNamer(where)): SftConfig {
  return checkSftConfig(resolveFields<SftConfig>(SFT_FIELDS, input, where, base, name), name)
}

/** The cross-field checks of a config whose fields are checked already (fieldArgs did, on a command line). */
export function checkSftConfig(c: SftConfig, name: Namer = keyNamer()): SftConfig {
  const no = (code: string, why: string): never => {
    throw new ConfigError(`sft.${code}`, why)
  }
  const weighted = c.answerWeight !== undefined
  if (c.turn !== undefined && (c.answerOnly || weighted)) no('turn', `${name('turn')} trains one turn alone: it excludes ${name('answerOnly')} and ${name('answerWeight')}`)
  if (weighted && c.answerOnly) no('answer_weight', `${name('answerWeight')} and ${name('answerOnly')} exclude each other: answerOnly trains the answer turn alone, answerWeight weights it inside the full demonstrations`)
  if (c.mix && (c.turn !== undefined || c.answerOnly || weighted)) no('mix', `${name('mix')} sets each kind's weight itself: it excludes ${name('turn')}, ${name('answerOnly')} and ${name('answerWeight')}`)
  if (c.full && c.initAdapter) no('full', `${name('full')} trains the model's own weights: it takes no ${name('initAdapter')} (merge the adapter into a model folder first)`)
  // The gym block through the gym's own resolver (no protocol in it; it names the gym key), here, before any work.
  resolveRunGym(c.gym, c.protocol, name)
  return c
}
