// curriculum/sft-run: `searchgym train sft` as a library call — the oracle plays training questions of the world
// (the held-out evaluation slice that `train` uses with the same seed excluded) through the real gym (hermes or
// search-r1 protocol, the run's gym options), solved episodes become token sequences (loss on assistant tokens only),
// cross-entropy on a new adapter. Writes the held-out ids (heldout.json) so `bench run --qa-ids` can score that slice.
import { join, resolve } from 'node:path'
import { mkdirSync, writeFileSync } from 'node:fs'
import { lockDir } from '../infra/lock'
import { episodeBudgets, episodeOptions, makeResolvedEnv, resolveRunGym, scoreAnswer, type TextProtocolName } from '../gym'
import { ConfigError } from '../infra/errors'
import { SFT_KINDS, type SftConfig, type SftKind, type SftMix } from './sft-config'
export { MAX_MIX_WEIGHT, parseSftMix, SFT_KINDS, type SftKind, type SftMix } from './sft-config'
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
import { DEMO_BUDGETS, funnelLine, funnelQuestions, runFunnel } from './funnel'
import { factObservation } from './drills'
export { factObservation } from './drills'
import { openLearner } from './run'
import { ChatCodec, chatTemplateOf, copyTokenizerFiles, loadTokenizer, SIMPLE_QWEN_TEMPLATE } from '../infra/engine'
import { CurriculumSource } from './source'
import { curriculumPreset } from './stages'
import { WorldPool } from './world-pool'

/** What an SFT run is of and where it writes (its identity; the knobs are its SftConfig). */
export interface SftTarget {
  /** A world folder, or several (a pool: demonstrations of every world, each played in its own world). */
  world: string | readonly string[]
  model: string
  out: string
  log?: (line: string) => void
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
async function funnelHook(t: SftTarget, c: SftConfig, learner: Learner, codec: ChatCodec, protocol: TextProtocolName) {
  const pool = await WorldPool.open(c.eval.worlds!)
  const qs = c.eval.hops.map((h) => ({ hops: h, qas: funnelQuestions(pool, h, c.eval.questions, c.seed) }))
  const file = join(t.out, 'eval.jsonl')
  const run = async (step: number) => {
    const t0 = performance.now()
    const row: Record<string, unknown> = { step }
    for (const q of qs) {
      if (q.qas.length === 0) continue
      const f = await runFunnel(learner.model, codec, pool, q.qas, { protocol, gym: c.gym, oracleAnswer: c.oracleAnswer })
      row[`hops${q.hops}`] = f
      t.log?.(`sft eval step ${step}, unseen ${q.hops}-hop: ${funnelLine(f)}`)
    }
    row.wallS = Math.round((performance.now() - t0) / 100) / 10
    appendFileSync(file, JSON.stringify(row) + '\n')
  }
  return { hook: { every: c.eval.every ?? 1e9, run }, close: () => pool.close() }
}

/** An SFT run of a config resolved at the edge (resolveSftConfig: the command line's or the experiment's); checks
 *  nothing the resolver checked. */
export async function runSft(t: SftTarget, c: SftConfig): Promise<{ episodes: number; solved: number; steps: number; finalLoss: number; budgetStopped: boolean; cpuS: number; adapterDir: string }> {
  const answerWeight = c.answerWeight ?? 1
  const protocol = c.protocol
  const gym = resolveRunGym(c.gym, protocol)
  const pages = c.oraclePages
  const answer = c.oracleAnswer
  const plan = { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE, pages, answer }
  const worlds = typeof t.world === 'string' ? [t.world] : [...t.world]
  // Every world's rows against its hash (the evaluation worlds' too), then one writer per run folder: a second `train
  // sft` on it is a one-line error naming the first, before any work.
  const hashes = worlds.map((w) => checkWorldDir(w, CHECKED_WORLD_STAGES).hash)
  for (const w of c.eval.worlds ?? []) checkWorldDir(w, CHECKED_WORLD_STAGES)
  mkdirSync(t.out, { recursive: true })
  const lock = lockDir(t.out, 'train sft')
  let opening: WorldPool | undefined
  const opened: ReturnType<typeof openWorld>[] = []
  try {
    const pool = (opening = await WorldPool.open(worlds))
    for (const m of pool.members) opened.push(openWorld(m.dir))
    const knowledgeOf = new Map(pool.members.map((m, i) => [m.name, worldOracleKnowledge(opened[i])]))
    // Each question's own world (env) and gold graph (oracle; the oracle reads the question's id inside its world).
    const gwOf = (qa: Qa) => pool.worldFor(qa)
    const oracleOf = (qa: Qa) => oraclePolicy({ ...qa, id: pool.localId(qa) }, knowledgeOf.get(pool.memberOf(qa).name)!, plan, protocol, c.gym?.accessByTitle === true)
    const gw = { listQa: (split: 'train') => pool.listQa(split) }
    // The same held-out split as `train` (CurriculumSource with this seed and heldOut), so SFT never sees eval questions.
    const src = new CurriculumSource(curriculumPreset('mixed', 1), gw.listQa('train'), { seed: c.seed, heldOut: c.heldOut })
    const held = new Set(src.heldOut().map((q) => q.id))
    // What it leaves to train on is fact-disjoint from the slice (questions sharing an edge with it are left out too).
    const trainable = new Set(src.trainingPool().map((q) => q.id))
    t.log?.(`sft: ${src.heldOutLine()}`)
    let qas = gw.listQa('train').filter((q) => trainable.has(q.id) && (!c.maxHops || q.hops <= c.maxHops))
    if (c.spread && !pool.single) qas = roundRobin(qas, (q) => pool.memberOf(q).name)
    if (c.questions > 0) qas = qas.slice(0, c.questions)
    writeFileSync(join(t.out, 'heldout.json'), JSON.stringify(src.heldOut().map((q) => q.id)) + '\n')
    const { learner, codec } = c.full
      ? fullLearner(t.model, c.backend)
      : openLearner(t.model, c.initAdapter, { seed: c.seed, lora: { rank: c.loraRank, alpha: 2 * c.loraRank, embedTokens: c.loraEmbed === true } }, c.backend)
    const kinds = new Map<SftKind, number>()
    const seqs: SftSequence[] = []
    let solved = 0
    for (const qa of qas) {
      const env = makeResolvedEnv(gwOf(qa), qa, episodeOptions(gym, episodeBudgets(qa, c.gym?.budgets, { ...DEMO_BUDGETS, maxContextTokens: learner.model.config.maxPositionEmbeddings })))
      const rec = await runEpisode(qa, env, oracleOf(qa), { scorer: scoreAnswer })
      if (rec.status !== 'ok' || rec.f1 < 1) continue
      if (c.turn !== undefined && rec.turns.length < c.turn) continue
      if (c.mix) {
        const last = Math.max(...qa.evidence.map((e) => e.hop))
        const made = mixSequences(codec, rec, c.mix, qa.evidence.filter((e) => e.hop === last).map((e) => e.sentence)).filter((x) => x.seq.ids.length <= learner.model.config.maxPositionEmbeddings)
        if (made.length === 0) continue
        solved++
        for (const x of made) {
          seqs.push(x.seq)
          kinds.set(x.kind, (kinds.get(x.kind) ?? 0) + 1)
        }
        continue
      }
      const full = sequenceOfTrajectory(codec, c.turn !== undefined ? { initial: rec.initial, turns: rec.turns.slice(0, c.turn) } : rec)
      const seq = c.answerOnly || c.turn !== undefined ? onlyLastTurn(full) : full
      if (seq.ids.length > learner.model.config.maxPositionEmbeddings) continue
      solved++
      // W = 1 attaches no weights: the default run is the plain token mean, bit for bit.
      seqs.push(answerWeight === 1 ? seq : { ...seq, weights: answerTurnWeights(seq, answerWeight) })
    }
    let firstTurns = 0
    if (c.firstTurns) {
      const inDemos = new Set(qas.map((q) => q.id))
      const rest = gw.listQa('train').filter((q) => trainable.has(q.id))
      const others = [...rest.filter((q) => !inDemos.has(q.id)), ...rest.filter((q) => inDemos.has(q.id))].slice(0, c.firstTurns)
      for (const qa of others) {
        const env = makeResolvedEnv(gwOf(qa), qa, gym)
        const initial = await env.initialObservation()
        const turn = await oracleOf(qa).act(initial)
        seqs.push(sequenceOfTrajectory(codec, { initial, turns: [{ text: turn.text, observation: [] }] } as unknown as Parameters<typeof sequenceOfTrajectory>[1]))
        firstTurns++
      }
      t.log?.(`sft: + the oracle's first turn of ${firstTurns} training questions`)
    }
    if (seqs.length === 0) throw new ConfigError('sft.no_data', `the oracle solved none of ${qas.length} training questions of ${worlds.join(', ')} within the model's context`)
    t.log?.(`sft: oracle solved ${solved}/${qas.length} training questions; ${seqs.length} sequences${kinds.size ? ` (${[...kinds].map(([k, c]) => `${k} ${c}`).join(', ')})` : ''}, ${seqs.reduce((a, s) => a + s.ids.length, 0)} tokens`)
    const onSteps = c.eval.worlds && c.eval.worlds.length > 0 ? await funnelHook(t, c, learner, codec, protocol) : undefined
    const r = await sftTrain(learner, seqs, { epochs: c.epochs, batchSize: c.batch, microBatch: 16, lr: c.lr, seed: c.seed, out: t.out, answerWeight, shortFirst: c.shortFirst, cpuBudgetS: c.cpuBudgetS, onSteps: onSteps?.hook, log: t.log })
    await onSteps?.close()
    if (c.full) copyTokenizerFiles(t.model, join(t.out, 'model'))
    // Paths relative to OUT (a copied folder keeps its provenance), never absolute; what they named by content under
    // identity (each world's content hash, the model's and the start adapter's folder fingerprint).
    const rec = (p: string) => recordedPath(t.out, p)
    const absWorlds = worlds.map((x) => resolve(x))
    const identity = { world: hashes.length === 1 ? hashes[0] : hashes, model: folderFingerprint(t.model), initAdapter: c.initAdapter ? folderFingerprint(c.initAdapter) : null }
    const info = { world: absWorlds.length === 1 ? rec(absWorlds[0]) : absWorlds.map(rec), model: rec(t.model), protocol, gym: c.gym ?? {}, maxHops: c.maxHops ?? 0, oraclePages: pages, oracleAnswer: answer, initAdapter: c.initAdapter ? rec(c.initAdapter) : null, firstTurns, answerOnly: c.answerOnly === true, answerWeight, turn: c.turn ?? null, full: c.full === true, spread: c.spread === true, mix: c.mix ?? null, shortFirst: c.shortFirst === true, cpuBudgetS: c.cpuBudgetS ?? null, questions: qas.length, solved, heldOut: held.size, heldOutFacts: src.heldOutInfo().heldFacts, heldOutExcluded: src.heldOutInfo().excluded, ...r, identity }
    writeFileSync(join(t.out, 'sft.json'), JSON.stringify(info, null, 2) + '\n')
    return { episodes: qas.length, solved, ...r, adapterDir: join(t.out, c.full ? 'model' : 'adapter') }
  } finally {
    lock.release()
    await opening?.close()
    for (const w of opened) w.close()
  }
}
