// agent/train/pretrain-config: `model pretrain`'s knobs as one field table — the optimizer and window settings that
// pretrain() takes, the reading-drill lines of the texts and the backend — with their defaults, bounds and help, once;
// validatePretrainOptions checks pretrain()'s own through it. The run's identity (model, worlds, out) is not config.
import { BACKEND_NAMES } from '../../infra/engine'
import { checkField, type FieldTable } from '../../infra/fields'

/** pretrain()'s knobs (the rest of its options — separator, out, log — the run derives). */
export interface PretrainKnobs {
  steps: number
  /** Windows per optimizer step. */
  batch: number
  /** Tokens per window (each predicts its next token). */
  seqLen: number
  lr: number
  /** Linear warmup steps (then cosine to lr / 10 at `steps`). */
  warmup: number
  weightDecay: number
  gradClip: number
  seed: number
  checkpointEvery: number
  /** Held-out loss every this many steps (and at the end); 0 = only at the end. */
  evalEvery: number
  /** Held-out windows scored (the first ones of the held-out stream, in order). */
  evalWindows: number
}

/** What `model pretrain` is configured by: pretrain()'s knobs, the texts' reading drills and the backend. */
export interface PretrainConfig extends PretrainKnobs {
  /** After each training page, its one-hop training questions as 'Question: … / Answer: …' lines. */
  qaLines: boolean
  backend: string
}

export const PRETRAIN_FIELDS: FieldTable = [
  { key: 'steps', type: 'int', default: 200, min: 1, flag: 'steps', help: 'optimizer steps' },
  { key: 'batch', type: 'int', default: 8, min: 1, aliases: ['batch'], help: 'windows per step' },
  { key: 'seqLen', type: 'int', default: 256, min: 1, aliases: ['seq-len'], help: 'tokens per window' },
  { key: 'lr', type: 'number', default: 3e-3, min: 0, aliases: ['lr'], help: 'peak learning rate (linear warmup, cosine to lr/10)' },
  { key: 'warmup', type: 'int', default: 20, min: 0, aliases: ['warmup'], help: 'warmup steps' },
  { key: 'weightDecay', type: 'number', default: 0.1, min: 0, aliases: ['weight-decay'], help: 'AdamW decoupled weight decay' },
  { key: 'gradClip', type: 'number', default: 1, min: 0, aliases: ['grad-clip'], help: 'global gradient-norm clip (0: off)' },
  { key: 'seed', type: 'int', default: 0, min: 0, aliases: ['seed'], help: 'seed of the document order' },
  { key: 'checkpointEvery', type: 'int', default: 25, min: 1, aliases: ['checkpoint-every'], help: 'steps between checkpoints' },
  { key: 'evalEvery', type: 'int', default: 50, min: 0, aliases: ['eval-every'], help: 'steps between held-out losses (0: only at the end)' },
  { key: 'evalWindows', type: 'int', default: 16, min: 1, aliases: ['eval-windows'], help: 'held-out windows scored' },
  { key: 'qaLines', type: 'bool', default: false, aliases: ['qa-lines'], help: "after each training page, its one-hop training questions as 'Question: … / Answer: …' lines (reading drills in the text; the held-out pages stay plain)" },
  { key: 'backend', type: 'string', default: 'auto', flag: 'backend', help: `engine backend: ${BACKEND_NAMES.join(' | ')}` },
]

const KNOB_KEYS: readonly (keyof PretrainKnobs)[] = ['steps', 'batch', 'seqLen', 'lr', 'warmup', 'weightDecay', 'gradClip', 'seed', 'checkpointEvery', 'evalEvery', 'evalWindows']

/** The option checks pretrain() makes first (types and bounds from the table, named by key), for a caller that checks
 *  before loading its data. */
export function validatePretrainOptions(o: PretrainKnobs): void {
  for (const f of PRETRAIN_FIELDS) if ((KNOB_KEYS as readonly string[]).includes(f.key)) checkField(f, o[f.key as keyof PretrainKnobs], f.key)
}
