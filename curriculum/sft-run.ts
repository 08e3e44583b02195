// curriculum/sft-run: `searchgym train sft` as a library call — the oracle plays training questions of the world
// (the held-out evaluation slice that `train` uses with the same seed excluded) through the real gym (hermes or
// search-r1 protocol, the run's gym options), solved episodes become token sequences (loss on assistant tokens only),
// cross-entropy on a new adapter. Writes the held-out ids (heldout.json) so `bench run --qa-ids` can score that slice.
import { join, resolve } from 'node:path'
import { mkdirSync, writeFileSync } from 'node:fs'
import { lockDir } from '../infra/lock'
import { episodeBudgets, makeEnv, resolveGymOptions, scoreAnswer, TEXT_PROTOCOLS, type GymOptionsJson, type TextProtocolName } from '../gym'
import { ConfigError } from '../infra/errors'
import { folderFingerprint, recordedPath } from '../infra/recorded-path'
import { ORACLE_MAX_QUERIES_PER_PAGE, oraclePolicy } from '../agent'
import { worldOracleKnowledge } from '../agent'
import { runEpisode } from '../agent'
import { answerTurnWeights, lastTurnStart, sequenceOfTrajectory, sftTrain, type SftSequence } from '../agent'
import { CHECKED_WORLD_STAGES, DEFAULT_TRAIN_CONFIG } from '../agent'
import { checkWorldDir, openWorld, type Qa } from '../world'
import type { TokenSequence } from '../agent'
import type { TrajectoryRecord } from '../agent'
import { appendFileSync } from 'node:fs'
import { loadModel } from '../infra/engine'
import { Learner } from '../infra/engine'
import { openBackend } from '../agent'
import { DEMO_TURNS, funnelLine, funnelQuestions, runFunnel } from './funnel'
import { factObservation } from './drills'
export { factObservation } from './drills'
import { openLearner } from './run'
import { ChatCodec, chatTemplateOf, copyTokenizerFiles, loadTokenizer, SIMPLE_QWEN_TEMPLATE } from '../infra/engine'
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
  /** With a pool and `questions` > 0: take the questions round-robin across the pool's worlds (the first of each world,
   *  then the second, …) instead of the pool's order (which drains the first world first). */
  spread?: boolean
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
  /** Train every weight of the model (no adapter; a float32 model, e.g. from `model pretrain`): OUT/model is then a
   *  model folder (config, weights, the input's tokenizer files) that every command loads as a base. */
  full?: boolean
  /** One mixed SFT: from every solved demonstration, a sequence of each kind whose weight is > 0, all in the same
   *  shuffled batches, each kind's target tokens weighted by its weight (a weighted token mean). Kinds: demo (the
   *  whole episode), search (its first turn alone), access (its second turn, after the first and its results), answer
   *  (its final turn, the whole episode as context), read (a reading drill: the question, the last access and the page
   *  it opened → the answer; no search before it), fact (the same with the page cut to its title and the last hop's
   *  evidence sentence: the shortest reading drill). Not with turn / answerOnly / answerWeight. */
  mix?: SftMix
  /** Epoch 0 short sequences first (see sftTrain shortFirst). */
  shortFirst?: boolean
  /** Stop after this many CPU seconds of training steps (resumable; see sftTrain cpuBudgetS). */
  cpuBudgetS?: number
  /** Unseen worlds to print the funnel on (after every evalEvery steps and at the end), evalQuestions questions of each
   *  hop count in evalHops; the figures go to OUT/eval.jsonl. */
  evalWorlds?: readonly string[]
  evalQuestions?: number
  evalHops?: readonly number[]
  evalEvery?: number
  log?: (line: string) => void
}

export const SFT_KINDS = ['demo', 'search', 'access', 'answer', 'read', 'fact'] as const
export type SftKind = (typeof SFT_KINDS)[number]
export type SftMix = Partial<Record<SftKind, number>>

/** `demo=1,answer=2,read=4` → a mix; one-line errors for unknown kinds and weights that are not finite and ≥ 0. */
/** The largest weight of one kind in --mix (a weight is relative to the others; 1000 is far past any useful ratio). */
export const MAX_MIX_WEIGHT = 1000

export function parseSftMix(text: string): SftMix {
  const mix: SftMix = {}
  for (const part of text.split(',').map((x) => x.trim()).filter(Boolean)) {
    const m = /^([a-z]+)(?:=([^=]+))?$/.exec(part)
    if (!m || !(SFT_KINDS as readonly string[]).includes(m[1])) throw new ConfigError('sft.mix', `--mix: '${part}' is not KIND or KIND=WEIGHT with KIND one of ${SFT_KINDS.join(', ')}`)
    const w = m[2] === undefined ? 1 : Number(m[2])
    // Bounded: the weights multiply token losses that are summed (1e308 × 2 is Infinity: a run of NaN losses).
    if (!(Number.isFinite(w) && w >= 0 && w <= MAX_MIX_WEIGHT)) throw new ConfigError('sft.mix', `--mix: the weight of ${m[1]} must be a number in [0, ${MAX_MIX_WEIGHT}], got '${m[2]}'`)
    if (Object.prototype.hasOwnProperty.call(mix, m[1])) throw new ConfigError('sft.mix', `--mix names ${m[1]} twice; give each kind once`)
    mix[m[1] as SftKind] = w
  }
  if (!Object.values(mix).some((w) => w! > 0)) throw new ConfigError('sft.mix', `--mix gives no kind a weight > 0 (kinds: ${SFT_KINDS.join(', ')})`)
  return mix
}

/** The sequences of each kind of a mix built from one solved episode (kinds the episode is too short for are left out). */
export function mixSequences(codec: ChatCodec, rec: Pick<TrajectoryRecord, 'initial' | 'turns'>, mix: SftMix, evidence: readonly string[] = []): { kind: SftKind; seq: SftSequence }[] {
  const out: { kind: SftKind; seq: SftSequence }[] = []
  const n = rec.turns.length
  const weighted = (seq: TokenSequence, w: number): SftSequence => ({ ...seq, weights: seq.sampled.map((on) => (on === 1 ? w : 0)) })
  const one = (turns: TrajectoryRecord['turns']) => onlyLastTurn(sequenceOfTrajectory(codec, { initial: rec.initial, turns }))
  for (const kind of SFT_KINDS) {
    const w = mix[kind] ?? 0
    if (!(w > 0)) continue
    if (kind === 'demo') out.push({ kind, seq: weighted(sequenceOfTrajectory(codec, rec), w) })
    else if (kind === 'search' && n >= 2) out.push({ kind, seq: weighted(one(rec.turns.slice(0, 1)), w) })
    else if (kind === 'access' && n >= 3) out.push({ kind, seq: weighted(one(rec.turns.slice(0, 2)), w) })
    else if (kind === 'answer') out.push({ kind, seq: weighted(one(rec.turns), w) })
    else if (kind === 'read' && n >= 3) out.push({ kind, seq: weighted(one(rec.turns.slice(n - 2)), w) })
    else if (kind === 'fact' && n >= 3) {
      const cut = factObservation(rec.turns[n - 2].observation, evidence)
      if (cut) out.push({ kind, seq: weighted(one([{ ...rec.turns[n - 2], observation: cut }, rec.turns[n - 1]]), w) })
    }
  }
  return out
}

/** The sequence with every assistant token but those of its last turn unmarked (context, not a target). */
export function onlyLastTurn<T extends { sampled: number[] }>(seq: T): T {
  const sampled = seq.sampled.slice()
  const from = lastTurnStart(sampled)
  for (let i = 0; i < from; i++) sampled[i] = 0
  return { ...seq, sampled }
}

/** The items in round-robin order over their groups (groups in order of first appearance, each group's order kept). */
export function roundRobin<T>(xs: readonly T[], group: (x: T) => string): T[] {
  const groups = new Map<string, T[]>()
  for (const x of xs) {
    const g = group(x)
    if (!groups.has(g)) groups.set(g, [])
    groups.get(g)!.push(x)
  }
  const lists = [...groups.values()]
  const out: T[] = []
  for (let i = 0; out.length < xs.length; i++) for (const l of lists) if (i < l.length) out.push(l[i])
  return out
}

/** A full-weight learner on a model folder (float32 weights, no adapter). */
function fullLearner(modelDir: string, backend = 'ts') {
  const model = loadModel(modelDir, openBackend(backend))
  const learner = new Learner(model, { trainable: 'full', maxTokensPerPass: 8192 })
  const tokenizer = loadTokenizer(modelDir)
  return { learner, codec: new ChatCodec(tokenizer, chatTemplateOf(tokenizer, SIMPLE_QWEN_TEMPLATE)) }
}

/** The evaluation hook: the funnel on the eval worlds after every evalEvery steps, one line per hop count, and a JSON
 *  line per evaluation in OUT/eval.jsonl. */
async function funnelHook(o: SftRunOptions, learner: Learner, codec: ChatCodec, protocol: TextProtocolName) {
  const pool = await WorldPool.open(o.evalWorlds!)
  const hops = o.evalHops ?? [1, 2]
  const qs = hops.map((h) => ({ hops: h, qas: funnelQuestions(pool, h, o.evalQuestions ?? 100, o.seed) }))
  const file = join(o.out, 'eval.jsonl')
  const run = async (step: number) => {
    const t0 = performance.now()
    const row: Record<string, unknown> = { step }
    for (const q of qs) {
      if (q.qas.length === 0) continue
      const f = await runFunnel(learner.model, codec, pool, q.qas, { protocol, gym: o.gym, oracleAnswer: o.oracleAnswer ?? 'open' })
      row[`hops${q.hops}`] = f
      o.log?.(`sft eval step ${step}, unseen ${q.hops}-hop: ${funnelLine(f)}`)
    }
    row.wallS = Math.round((performance.now() - t0) / 100) / 10
    appendFileSync(file, JSON.stringify(row) + '\n')
  }
  return { hook: { every: o.evalEvery ?? 1e9, run }, close: () => pool.close() }
}

export async function runSft(o: SftRunOptions): Promise<{ episodes: number; solved: number; steps: number; finalLoss: number; budgetStopped: boolean; cpuS: number; adapterDir: string }> {
  if (!(o.epochs >= 1 && o.batchSize >= 1 && o.lr > 0)) throw new ConfigError('sft.range', 'epochs and batch must be ≥ 1 and lr > 0')
  if (o.turn !== undefined && !(Number.isInteger(o.turn) && o.turn >= 1)) throw new ConfigError('sft.turn', `--turn must be an integer ≥ 1, got ${o.turn}`)
  if (o.turn !== undefined && (o.answerOnly || o.answerWeight !== undefined)) throw new ConfigError('sft.turn', '--turn trains one turn alone: it excludes --answer-only and --answer-weight')
  if (o.answerWeight !== undefined && o.answerOnly) throw new ConfigError('sft.answer_weight', '--answer-weight and --answer-only exclude each other: --answer-only trains the answer turn alone, --answer-weight weights it inside the full demonstrations')
  if (o.answerWeight !== undefined && !(o.answerWeight > 0 && Number.isFinite(o.answerWeight))) throw new ConfigError('sft.answer_weight', `--answer-weight must be a number > 0, got ${o.answerWeight}`)
  if (o.mix && (o.turn !== undefined || o.answerOnly || o.answerWeight !== undefined)) throw new ConfigError('sft.mix', '--mix sets each kind\'s weight itself: it excludes --turn, --answer-only and --answer-weight')
  if (o.full && o.initAdapter) throw new ConfigError('sft.full', '--full trains the model\'s own weights: it takes no --init-adapter (merge the adapter into a model folder first)')
  if (o.cpuBudgetS !== undefined && !(o.cpuBudgetS > 0)) throw new ConfigError('sft.cpu_budget', `--cpu-budget must be a number of seconds > 0, got ${o.cpuBudgetS}`)
  if (o.evalEvery !== undefined && !(Number.isInteger(o.evalEvery) && o.evalEvery >= 1)) throw new ConfigError('sft.eval_every', `--eval-every must be an integer ≥ 1, got ${o.evalEvery}`)
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
  // Every world's rows against its hash (the evaluation worlds' too), then one writer per run folder: a second `train
  // sft` on it is a one-line error naming the first, before any work.
  const hashes = worlds.map((w) => checkWorldDir(w, CHECKED_WORLD_STAGES).hash)
  for (const w of o.evalWorlds ?? []) checkWorldDir(w, CHECKED_WORLD_STAGES)
  mkdirSync(o.out, { recursive: true })
  const lock = lockDir(o.out, 'train sft')
  let opening: WorldPool | undefined
  const opened: ReturnType<typeof openWorld>[] = []
  try {
    const pool = (opening = await WorldPool.open(worlds))
    for (const m of pool.members) opened.push(openWorld(m.dir))
    const knowledgeOf = new Map(pool.members.map((m, i) => [m.name, worldOracleKnowledge(opened[i])]))
    // Each question's own world (env) and gold graph (oracle; the oracle reads the question's id inside its world).
    const gwOf = (qa: Qa) => pool.worldFor(qa)
    const oracleOf = (qa: Qa) => oraclePolicy({ ...qa, id: pool.localId(qa) }, knowledgeOf.get(pool.memberOf(qa).name)!, plan, protocol, o.gym?.accessByTitle === true)
    const gw = { listQa: (split: 'train') => pool.listQa(split) }
    // The same held-out split as `train` (CurriculumSource with this seed and heldOut), so SFT never sees eval questions.
    const src = new CurriculumSource(curriculumPreset('mixed', 1), gw.listQa('train'), { seed: o.seed, heldOut: o.heldOut })
    const held = new Set(src.heldOut().map((q) => q.id))
    // What it leaves to train on is fact-disjoint from the slice (questions sharing an edge with it are left out too).
    const trainable = new Set(src.trainingPool().map((q) => q.id))
    o.log?.(`sft: ${src.heldOutLine()}`)
    let qas = gw.listQa('train').filter((q) => trainable.has(q.id) && (!o.maxHops || q.hops <= o.maxHops))
    if (o.spread && !pool.single) qas = roundRobin(qas, (q) => pool.memberOf(q).name)
    if (o.questions > 0) qas = qas.slice(0, o.questions)
    writeFileSync(join(o.out, 'heldout.json'), JSON.stringify(src.heldOut().map((q) => q.id)) + '\n')
    if (o.firstTurns !== undefined && !(Number.isInteger(o.firstTurns) && o.firstTurns >= 0)) throw new ConfigError('sft.first_turns', `--first-turns must be an integer ≥ 0, got ${o.firstTurns}`)
    const { learner, codec } = o.full
      ? fullLearner(o.model, o.backend)
      : openLearner(o.model, o.initAdapter, { seed: o.seed, lora: { rank: o.loraRank, alpha: 2 * o.loraRank, embedTokens: o.loraEmbed === true } }, o.backend)
    const kinds = new Map<SftKind, number>()
    const seqs: SftSequence[] = []
    let solved = 0
    for (const qa of qas) {
      const env = makeEnv(gwOf(qa), qa, { ...gym, budgets: episodeBudgets(qa, { given: o.gym?.budgets, turns: DEMO_TURNS, responseTokens: DEFAULT_TRAIN_CONFIG.maxTokensPerTurn, contextTokens: learner.model.config.maxPositionEmbeddings }) })
      const rec = await runEpisode(qa, env, oracleOf(qa), { scorer: scoreAnswer })
      if (rec.status !== 'ok' || rec.f1 < 1) continue
      if (o.turn !== undefined && rec.turns.length < o.turn) continue
      if (o.mix) {
        const last = Math.max(...qa.evidence.map((e) => e.hop))
        const made = mixSequences(codec, rec, o.mix, qa.evidence.filter((e) => e.hop === last).map((e) => e.sentence)).filter((x) => x.seq.ids.length <= learner.model.config.maxPositionEmbeddings)
        if (made.length === 0) continue
        solved++
        for (const x of made) {
          seqs.push(x.seq)
          kinds.set(x.kind, (kinds.get(x.kind) ?? 0) + 1)
        }
        continue
      }
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
    o.log?.(`sft: oracle solved ${solved}/${qas.length} training questions; ${seqs.length} sequences${kinds.size ? ` (${[...kinds].map(([k, c]) => `${k} ${c}`).join(', ')})` : ''}, ${seqs.reduce((a, s) => a + s.ids.length, 0)} tokens`)
    const onSteps = o.evalWorlds && o.evalWorlds.length > 0 ? await funnelHook(o, learner, codec, protocol) : undefined
    const r = await sftTrain(learner, seqs, { epochs: o.epochs, batchSize: o.batchSize, microBatch: 16, lr: o.lr, seed: o.seed, out: o.out, answerWeight, shortFirst: o.shortFirst, cpuBudgetS: o.cpuBudgetS, onSteps: onSteps?.hook, log: o.log })
    await onSteps?.close()
    if (o.full) copyTokenizerFiles(o.model, join(o.out, 'model'))
    // Paths relative to OUT (a copied folder keeps its provenance), never absolute; what they named by content under
    // identity (each world's content hash, the model's and the start adapter's folder fingerprint).
    const rec = (p: string) => recordedPath(o.out, p)
    const absWorlds = worlds.map((x) => resolve(x))
    const identity = { world: hashes.length === 1 ? hashes[0] : hashes, model: folderFingerprint(o.model), initAdapter: o.initAdapter ? folderFingerprint(o.initAdapter) : null }
    const info = { world: absWorlds.length === 1 ? rec(absWorlds[0]) : absWorlds.map(rec), model: rec(o.model), protocol, gym: o.gym ?? {}, maxHops: o.maxHops ?? 0, oraclePages: pages, oracleAnswer: answer, initAdapter: o.initAdapter ? rec(o.initAdapter) : null, firstTurns, answerOnly: o.answerOnly === true, answerWeight, turn: o.turn ?? null, full: o.full === true, spread: o.spread === true, mix: o.mix ?? null, shortFirst: o.shortFirst === true, cpuBudgetS: o.cpuBudgetS ?? null, questions: qas.length, solved, heldOut: held.size, heldOutFacts: src.heldOutInfo().heldFacts, heldOutExcluded: src.heldOutInfo().excluded, ...r, identity }
    writeFileSync(join(o.out, 'sft.json'), JSON.stringify(info, null, 2) + '\n')
    return { episodes: qas.length, solved, ...r, adapterDir: join(o.out, o.full ? 'model' : 'adapter') }
  } finally {
    lock.release()
    await opening?.close()
    for (const w of opened) w.close()
  }
}
