// curriculum/sft-run: `searchgym train sft` as a library call — the oracle plays training questions of the world
// (the held-out evaluation slice that `train` uses with the same seed excluded) through the real gym (hermes
// protocol), solved episodes become token sequences (loss on assistant tokens only), cross-entropy on a new adapter.
import { join, resolve } from 'node:path'
import { writeFileSync } from 'node:fs'
import { makeEnv, openGymWorld, scoreAnswer } from '../gym'
import { ConfigError } from '../infra/errors'
import { oraclePolicy } from '../agent'
import { worldOracleKnowledge } from '../agent'
import { runEpisode } from '../agent'
import { sequenceOfTrajectory, sftTrain } from '../agent'
import { DEFAULT_TRAIN_CONFIG } from '../agent'
import { openWorld } from '../world'
import { openLearner } from './run'
import { CurriculumSource } from './source'
import { curriculumPreset } from './stages'

export interface SftRunOptions {
  world: string
  model: string
  out: string
  /** Training questions the oracle plays (0: all). */
  questions: number
  epochs: number
  batchSize: number
  lr: number
  seed: number
  /** Held-out slice excluded (must equal the GRPO run's heldOut with the same seed). */
  heldOut: number
  loraRank: number
  backend?: string
  log?: (line: string) => void
}

export async function runSft(o: SftRunOptions): Promise<{ episodes: number; solved: number; steps: number; finalLoss: number; adapterDir: string }> {
  if (!(o.epochs >= 1 && o.batchSize >= 1 && o.lr > 0)) throw new ConfigError('sft.range', 'epochs and batch must be ≥ 1 and lr > 0')
  const w = openWorld(o.world)
  const gw = await openGymWorld(o.world)
  try {
    const knowledge = worldOracleKnowledge(w)
    // The same held-out split as `train` (CurriculumSource with this seed and heldOut), so SFT never sees eval questions.
    const src = new CurriculumSource(curriculumPreset('mixed', 1), gw.listQa('train'), { seed: o.seed, heldOut: o.heldOut, turnBudget: 'fixed', maxTurns: 16, turnsPerHop: 2 })
    const held = new Set(src.heldOut().map((q) => q.id))
    let qas = gw.listQa('train').filter((q) => !held.has(q.id))
    if (o.questions > 0) qas = qas.slice(0, o.questions)
    const { learner, codec } = openLearner(o.model, undefined, { seed: o.seed, lora: { rank: o.loraRank, alpha: 2 * o.loraRank } }, o.backend)
    const seqs = []
    let solved = 0
    for (const qa of qas) {
      const env = makeEnv(gw, qa, { protocol: 'hermes', budgets: { maxTurns: Math.max(16, 2 * qa.hops + 4), maxResponseTokens: DEFAULT_TRAIN_CONFIG.maxTokensPerTurn, maxContextTokens: learner.model.config.maxPositionEmbeddings } })
      const rec = await runEpisode(qa, env, oraclePolicy(qa, knowledge), { maxTurns: 200, scorer: scoreAnswer })
      if (rec.status !== 'ok' || rec.f1 < 1) continue
      const seq = sequenceOfTrajectory(codec, rec)
      if (seq.ids.length > learner.model.config.maxPositionEmbeddings) continue
      solved++
      seqs.push(seq)
    }
    if (seqs.length === 0) throw new ConfigError('sft.no_data', `the oracle solved none of ${qas.length} training questions of ${o.world} within the model's context`)
    o.log?.(`sft: oracle solved ${solved}/${qas.length} training questions; ${seqs.reduce((a, s) => a + s.ids.length, 0)} tokens`)
    const r = sftTrain(learner, seqs, { epochs: o.epochs, batchSize: o.batchSize, microBatch: 16, lr: o.lr, seed: o.seed, out: o.out, log: o.log })
    const info = { world: resolve(o.world), model: resolve(o.model), questions: qas.length, solved, ...r }
    writeFileSync(join(o.out, 'sft.json'), JSON.stringify(info, null, 2) + '\n')
    return { episodes: qas.length, solved, ...r, adapterDir: join(o.out, 'adapter') }
  } finally {
    await gw.close()
    w.close()
  }
}
