// curriculum/sft-run: `searchgym train sft` as a library call — the oracle plays training questions of the world
// (the held-out evaluation slice that `train` uses with the same seed excluded) through the real gym (hermes or
// search-r1 protocol, the run's gym options), solved episodes become token sequences (loss on assistant tokens only),
// cross-entropy on a new adapter. Writes the held-out ids (heldout.json) so `bench run --qa-ids` can score that slice.
import { join, resolve } from 'node:path'
import { mkdirSync, writeFileSync } from 'node:fs'
import { makeEnv, resolveGymOptions, scoreAnswer, TEXT_PROTOCOLS, type GymOptionsJson, type TextProtocolName } from '../gym'
import { ConfigError } from '../infra/errors'
import { ORACLE_MAX_QUERIES_PER_PAGE, oraclePolicy } from '../agent'
import { worldOracleKnowledge } from '../agent'
import { runEpisode } from '../agent'
import { answerTurnWeights, lastTurnStart, sequenceOfTrajectory, sftTrain, type SftSequence } from '../agent'
import { DEFAULT_TRAIN_CONFIG } from '../agent'
import { openWorld, type Qa } from '../world'
import { openLearner } from './run'
import { CurriculumSource } from './source'
import { curriculumPreset } from './stages'
import { WorldPool } from './world-pool'

export interface SftRunOptions {
  /** A world folder, or several (a pool: demonstrations of every world, each played in its own world). */
  world: string | readonly string[]
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
  /** LoRA on the input embedding too (PEFT target embed_tokens). */
  loraEmbed?: boolean
  backend?: string
  /** The protocol the demonstrations are written in (must equal the GRPO run's; default hermes). */
  protocol?: TextProtocolName
  /** Gym options of the demonstrations' envs (topK, observationCap, access; must equal the GRPO run's `gym`). */
  gym?: GymOptionsJson
  /** Only questions with at most this many hops (0: all). */
  maxHops?: number
  /** How the oracle reads paged documents: 'needed' (default: pages in order until the hop's fact is read — shorter
   *  demonstrations, what a reader does) or 'all' (every page, as the world check does). */
  oraclePages?: 'all' | 'needed'
  /** An entity answer: the oracle opens its page ('open', the default) or answers with the name once the last hop's
   *  evidence sentence is read ('read': shorter demonstrations, a one-hop question in 3 turns). */
  oracleAnswer?: 'open' | 'read'
  /** Start from this adapter's weights (a continuation: new optimizer state) instead of a new adapter. */
  initAdapter?: string
  /** Also the oracle's FIRST turn (`<search> NAME </search>` or its call) of up to this many other non-held-out training
   *  questions (those beyond --max-hops first): short sequences that put copying the start entity's name from the
   *  question in front of many more names than the full demonstrations do (0: none). */
  firstTurns?: number
  /** Train only the FINAL assistant turn of each demonstration (the answer: `<answer> X </answer>` or its call), with
   *  the whole episode as context: the step a full-episode loss barely weights — copying the answer out of the page —
   *  alone (the answer probe measured that this is learnable: bench/RESULTS.md, GRPO trainer). First-turn sequences keep their one turn. */
  answerOnly?: boolean
  /** Loss weight W of each demonstration's final (answer) turn, against 1 on its other assistant tokens; the step's
   *  loss is the weighted token mean (divided by the summed weight). One loss that trains the whole episode and
   *  leans on the answer, where --answer-only trains the answer alone. Default 1 (the plain token mean); not with
   *  answerOnly. First-turn sequences are not demonstrations' answers and keep weight 1. */
  answerWeight?: number
  /** Train only the K-th assistant turn of each demonstration (1 = its first search, 2 = the access after it, …), with
   *  the turns before it as context; the sequence ends after that turn, so a step costs what its context costs — the
   *  access step (copying a title out of the search results) without paying for the page after it. Demonstrations of
   *  fewer turns are left out. Not with answerOnly (the final turn) or answerWeight (there is one target turn). */
  turn?: number
  log?: (line: string) => void
}

/** The sequence with every assistant token but those of its last turn unmarked (context, not a target). */
export function onlyLastTurn<T extends { sampled: number[] }>(seq: T): T {
  const sampled = seq.sampled.slice()
  const from = lastTurnStart(sampled)
  for (let i = 0; i < from; i++) sampled[i] = 0
  return { ...seq, sampled }
}

export async function runSft(o: SftRunOptions): Promise<{ episodes: number; solved: number; steps: number; finalLoss: number; adapterDir: string }> {
  if (!(o.epochs >= 1 && o.batchSize >= 1 && o.lr > 0)) throw new ConfigError('sft.range', 'epochs and batch must be ≥ 1 and lr > 0')
  if (o.turn !== undefined && !(Number.isInteger(o.turn) && o.turn >= 1)) throw new ConfigError('sft.turn', `--turn must be an integer ≥ 1, got ${o.turn}`)
  if (o.turn !== undefined && (o.answerOnly || o.answerWeight !== undefined)) throw new ConfigError('sft.turn', '--turn trains one turn alone: it excludes --answer-only and --answer-weight')
  if (o.answerWeight !== undefined && o.answerOnly) throw new ConfigError('sft.answer_weight', '--answer-weight and --answer-only exclude each other: --answer-only trains the answer turn alone, --answer-weight weights it inside the full demonstrations')
  if (o.answerWeight !== undefined && !(o.answerWeight > 0 && Number.isFinite(o.answerWeight))) throw new ConfigError('sft.answer_weight', `--answer-weight must be a number > 0, got ${o.answerWeight}`)
  const answerWeight = o.answerWeight ?? 1
  const protocol = o.protocol ?? 'hermes'
  if (!(TEXT_PROTOCOLS as readonly string[]).includes(protocol)) throw new ConfigError('sft.protocol', `--protocol must be one of ${TEXT_PROTOCOLS.join(', ')} (the oracle writes those), got '${String(protocol)}'`)
  if (o.gym && Object.prototype.hasOwnProperty.call(o.gym, 'protocol')) throw new ConfigError('sft.gym', 'gym options may not set protocol: use --protocol')
  const gym = resolveGymOptions({ ...o.gym, protocol })
  const pages = o.oraclePages ?? 'needed'
  const answer = o.oracleAnswer ?? 'open'
  const plan = { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE, pages, answer }
  if (pages !== 'all' && pages !== 'needed') throw new ConfigError('sft.oracle_pages', `--oracle-pages must be all or needed, got '${String(pages)}'`)
  if (answer !== 'open' && answer !== 'read') throw new ConfigError('sft.oracle_answer', `--oracle-answer must be open or read, got '${String(answer)}'`)
  const worlds = typeof o.world === 'string' ? [o.world] : [...o.world]
  const pool = await WorldPool.open(worlds)
  const opened = pool.members.map((m) => openWorld(m.dir))
  try {
    const knowledgeOf = new Map(pool.members.map((m, i) => [m.name, worldOracleKnowledge(opened[i])]))
    // Each question's own world (env) and gold graph (oracle; the oracle reads the question's id inside its world).
    const gwOf = (qa: Qa) => pool.worldFor(qa)
    const oracleOf = (qa: Qa) => oraclePolicy({ ...qa, id: pool.localId(qa) }, knowledgeOf.get(pool.memberOf(qa).name)!, plan, protocol, o.gym?.accessByTitle === true)
    const gw = { listQa: (split: 'train') => pool.listQa(split) }
    // The same held-out split as `train` (CurriculumSource with this seed and heldOut), so SFT never sees eval questions.
    const src = new CurriculumSource(curriculumPreset('mixed', 1), gw.listQa('train'), { seed: o.seed, heldOut: o.heldOut, turnBudget: 'fixed', maxTurns: 16, turnsPerHop: 2 })
    const held = new Set(src.heldOut().map((q) => q.id))
    // What it leaves to train on is fact-disjoint from the slice (questions sharing an edge with it are left out too).
    const trainable = new Set(src.trainingPool().map((q) => q.id))
    o.log?.(`sft: ${src.heldOutLine()}`)
    let qas = gw.listQa('train').filter((q) => trainable.has(q.id) && (!o.maxHops || q.hops <= o.maxHops))
    if (o.questions > 0) qas = qas.slice(0, o.questions)
    mkdirSync(o.out, { recursive: true })
    writeFileSync(join(o.out, 'heldout.json'), JSON.stringify(src.heldOut().map((q) => q.id)) + '\n')
    if (o.firstTurns !== undefined && !(Number.isInteger(o.firstTurns) && o.firstTurns >= 0)) throw new ConfigError('sft.first_turns', `--first-turns must be an integer ≥ 0, got ${o.firstTurns}`)
    const { learner, codec } = openLearner(o.model, o.initAdapter, { seed: o.seed, lora: { rank: o.loraRank, alpha: 2 * o.loraRank, embedTokens: o.loraEmbed === true } }, o.backend)
    const seqs: SftSequence[] = []
    let solved = 0
    for (const qa of qas) {
      const env = makeEnv(gwOf(qa), qa, { ...gym, budgets: { maxTurns: Math.max(16, 2 * qa.hops + 4), maxResponseTokens: DEFAULT_TRAIN_CONFIG.maxTokensPerTurn, maxContextTokens: learner.model.config.maxPositionEmbeddings } })
      const rec = await runEpisode(qa, env, oracleOf(qa), { maxTurns: 200, scorer: scoreAnswer })
      if (rec.status !== 'ok' || rec.f1 < 1) continue
      if (o.turn !== undefined && rec.turns.length < o.turn) continue
      const full = sequenceOfTrajectory(codec, o.turn !== undefined ? { initial: rec.initial, turns: rec.turns.slice(0, o.turn) } : rec)
      const seq = o.answerOnly || o.turn !== undefined ? onlyLastTurn(full) : full
      if (seq.ids.length > learner.model.config.maxPositionEmbeddings) continue
      solved++
      // W = 1 attaches no weights: the default run is the plain token mean, bit for bit.
      seqs.push(answerWeight === 1 ? seq : { ...seq, weights: answerTurnWeights(seq, answerWeight) })
    }
    let firstTurns = 0
    if (o.firstTurns) {
      const inDemos = new Set(qas.map((q) => q.id))
      const rest = gw.listQa('train').filter((q) => trainable.has(q.id))
      const others = [...rest.filter((q) => !inDemos.has(q.id)), ...rest.filter((q) => inDemos.has(q.id))].slice(0, o.firstTurns)
      for (const qa of others) {
        const env = makeEnv(gwOf(qa), qa, gym)
        const initial = await env.initialObservation()
        const turn = await oracleOf(qa).act(initial)
        seqs.push(sequenceOfTrajectory(codec, { initial, turns: [{ text: turn.text, observation: [] }] } as unknown as Parameters<typeof sequenceOfTrajectory>[1]))
        firstTurns++
      }
      o.log?.(`sft: + the oracle's first turn of ${firstTurns} training questions`)
    }
    if (seqs.length === 0) throw new ConfigError('sft.no_data', `the oracle solved none of ${qas.length} training questions of ${worlds.join(', ')} within the model's context`)
    o.log?.(`sft: oracle solved ${solved}/${qas.length} training questions; ${seqs.reduce((a, s) => a + s.ids.length, 0)} tokens`)
    const r = sftTrain(learner, seqs, { epochs: o.epochs, batchSize: o.batchSize, microBatch: 16, lr: o.lr, seed: o.seed, out: o.out, answerWeight, log: o.log })
    const info = { world: worlds.length === 1 ? resolve(worlds[0]) : worlds.map((x) => resolve(x)), model: resolve(o.model), protocol, gym: o.gym ?? {}, maxHops: o.maxHops ?? 0, oraclePages: pages, oracleAnswer: answer, initAdapter: o.initAdapter ? resolve(o.initAdapter) : null, firstTurns, answerOnly: o.answerOnly === true, answerWeight, turn: o.turn ?? null, questions: qas.length, solved, heldOut: held.size, heldOutFacts: src.heldOutInfo().heldFacts, heldOutExcluded: src.heldOutInfo().excluded, ...r }
    writeFileSync(join(o.out, 'sft.json'), JSON.stringify(info, null, 2) + '\n')
    return { episodes: qas.length, solved, ...r, adapterDir: join(o.out, 'adapter') }
  } finally {
    await pool.close()
    for (const w of opened) w.close()
  }
}
