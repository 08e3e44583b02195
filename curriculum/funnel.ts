// curriculum/funnel: where a model's reading breaks — greedy episodes of a model on a world's questions, scored as a
// funnel (the first search finds the question's entity page; the evidence of every hop was opened; F1), beside the
// same questions with the oracle's episode as context up to the answer turn (the answer read given the right page:
// the model's greedy answer there, and the answer tokens' teacher-forced loss, which moves before greedy accuracy does).
// Knows nothing of training: it takes a loaded model and a pool of worlds.
import { constantAnswerFloor, episodeBudgets, episodeOptions, getProtocol, makeResolvedEnv, resolveRunGym, scoreAnswer, type Budgets, type BudgetsJson, type GymOptionsJson, type Policy, type TextProtocolName } from '../gym'
import { goldsOf, ORACLE_MAX_QUERIES_PER_PAGE, oraclePolicy, runEpisode, sequenceOfTrajectory, worldOracleKnowledge, type TrajectoryRecord } from '../agent'
import { EngineSampler, lastTurnStart, PolicyBatch } from '../agent'
import { forward, generateBatch, targetLogprobs, type CausalLM, type ChatCodec } from '../infra/engine'
import { Rng } from '../infra/rng'
import { openWorld, type Qa } from '../world'
import type { WorldPool } from './world-pool'
import { factObservation } from './drills'

export interface FunnelOptions {
  protocol: TextProtocolName
  gym?: GymOptionsJson
  oracleAnswer?: 'open' | 'read'
  /** Max new tokens of one greedy turn (default 64). */
  maxTokensPerTurn?: number
  /** Episodes played in lockstep (default 32). */
  batch?: number
  seed?: number
  /** Teacher-forced answers kept as examples (default 5). */
  examples?: number
}

/** One slice's funnel: counts over `n` questions, F1 summed; ci95 is the normal-approximation half-width of mean F1. */
export interface Funnel {
  n: number
  /** The first turn's search put a gold page in the top-k (it named the question's entity). */
  search: number
  /** Every hop's evidence sentence appeared in an observation (the right pages were opened). */
  opened: number
  /** Mean F1 of the model's own episodes, and its 95 % CI half-width. */
  f1: number
  ci95: number
  /** Exact match rate of the model's own episodes, and its 95 % CI half-width. */
  em: number
  emCi95: number
  /** Teacher-forced: the oracle's episode as context up to its answer turn, the model's greedy answer there (F1, EM,
   *  and their CI half-widths over the questions the oracle played). */
  readF1: number
  readEm: number
  readCi95: number
  readEmCi95: number
  /** Mean per-token negative log-likelihood of the oracle's answer turn in that context (nats). */
  answerLoss: number
  /** The shortest reading drill: the oracle's context with the page cut to its title and the evidence sentence
   *  (curriculum/drills) — the model's greedy answer F1 there and the answer's loss (nats per token); NaN when no
   *  question's page held its evidence sentence. Whether the copy step exists at all, apart from finding it in a page. */
  factF1: number
  factEm: number
  factEmCi95: number
  factLoss: number
  /** Questions with a fact drill (the page held the evidence sentence). */
  factN: number
  /** The floor on the same questions (gym/floor): the best constant answer per relation, F1 and EM — chosen on these
   *  questions (optimistic), and held out (each question answered with the best constant of the others of its relation). */
  floorF1: number
  floorEm: number
  floorHeldF1: number
  floorHeldEm: number
  /** Questions the oracle could not play within the model's context (left out of readF1 and answerLoss). */
  noOracle: number
  /** The first few teacher-forced answers: what the model wrote where the oracle answered. */
  examples: { question: string; gold: string; answer: string; f1: number }[]
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0)
/** The 95 % CI half-width of a rate p over n questions (normal approximation; 0 for none): a funnel's `search` and
 *  `opened` counts as shares. */
export const proportionCi95 = (p: number, n: number): number => (n > 0 ? 1.96 * Math.sqrt((p * (1 - p)) / n) : 0)
function ci95(xs: readonly number[]): number {
  if (xs.length < 2) return 0
  const m = mean(xs)
  const v = xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1)
  return 1.96 * Math.sqrt(v / xs.length)
}

/** Up to n questions of the pool with exactly `hops` hops (seeded draw; every split: an unseen world has no training
 *  questions to protect), or those of `ids` when given. */
export function funnelQuestions(pool: WorldPool, hops: number, n: number, seed: number, ids?: ReadonlySet<string>): Qa[] {
  const all = [...pool.listQa('train'), ...pool.listQa('bench')].filter((q) => q.hops === hops && (!ids || ids.has(q.id)))
  return Rng.derive(seed, 'funnel', hops).shuffle(all).slice(0, n)
}

/** The turn rule of oracle demonstrations and of the model's episodes beside them (SFT, the funnel, the reader's
 *  drills): 16 turns, or two a hop and four more for longer questions — a fallback: a gym.budgets turn limit given in
 *  the run's gym options wins (gym/episode-budgets). */
export const DEMO_BUDGETS: BudgetsJson = { maxTurns: 16, turnsPerHop: 2 }

/** Budgets of a funnel episode: the run's gym.budgets as given, else DEMO_BUDGETS' turns, `responseTokens` and the
 *  model's context. */
function funnelBudgets(qa: Qa, o: FunnelOptions, model: CausalLM, responseTokens: number, given: BudgetsJson | undefined = o.gym?.budgets): Budgets {
  return episodeBudgets(qa, given, { ...DEMO_BUDGETS, maxResponseTokens: responseTokens, maxContextTokens: model.config.maxPositionEmbeddings })
}

/** Runs the model on each of qas in lockstep batches of one PolicyBatch (greedy), each in its own env. */
async function playBatched(model: CausalLM, codec: ChatCodec, pool: WorldPool, qas: readonly Qa[], o: FunnelOptions): Promise<TrajectoryRecord[]> {
  const gym = resolveRunGym(o.gym, o.protocol)
  const sampler = new EngineSampler(model, { temperature: 0, topP: 1, topK: 0, stopIds: codec.tokenizer.special.stop })
  const out: TrajectoryRecord[] = []
  const size = o.batch ?? 32
  for (let at = 0; at < qas.length; at += size) {
    const chunk = qas.slice(at, at + size)
    const batch = new PolicyBatch(codec, sampler, chunk.length, { maxTokensPerTurn: o.maxTokensPerTurn ?? 64, maxContext: model.config.maxPositionEmbeddings, seed: o.seed ?? 0 })
    const recs = await Promise.all(
      chunk.map(async (qa, i) => {
        const env = makeResolvedEnv(pool.worldFor(qa), qa, episodeOptions(gym, funnelBudgets(qa, o, model, o.maxTokensPerTurn ?? 64)))
        try {
          return await runEpisode(qa, env, batch.policy(i), { scorer: scoreAnswer })
        } finally {
          batch.finish(i)
        }
      }),
    )
    out.push(...recs)
  }
  return out
}

/** The funnel of the model on qas (questions of `pool`). */
export async function runFunnel(model: CausalLM, codec: ChatCodec, pool: WorldPool, qas: readonly Qa[], o: FunnelOptions): Promise<Funnel> {
  const opened = pool.members.map((m) => ({ name: m.name, w: openWorld(m.dir) }))
  try {
    const knowledge = new Map(opened.map((x) => [x.name, worldOracleKnowledge(x.w)]))
    const plan = { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE, pages: 'needed' as const, answer: o.oracleAnswer ?? 'read' }
    const oracleOf = (qa: Qa) => oraclePolicy({ ...qa, id: pool.localId(qa) }, knowledge.get(pool.memberOf(qa).name)!, plan, o.protocol, o.gym?.accessByTitle === true)
    // 1. The model alone.
    const own = await playBatched(model, codec, pool, qas, o)
    // 2. The oracle's episodes (for their turn texts), then the oracle's turns replayed up to the answer turn, the
    //    model's greedy turn there.
    const gym = resolveRunGym(o.gym, o.protocol)
    const demos = new Map<string, TrajectoryRecord>()
    for (const qa of qas) {
      const env = makeResolvedEnv(pool.worldFor(qa), qa, episodeOptions(gym, funnelBudgets(qa, o, model, 256)))
      const rec = await runEpisode(qa, env, oracleOf(qa), { scorer: scoreAnswer })
      if (rec.status === 'ok' && rec.f1 >= 1 && sequenceOfTrajectory(codec, rec).ids.length <= model.config.maxPositionEmbeddings) demos.set(qa.id, rec)
    }
    const played = qas.filter((q) => demos.has(q.id))
    const stop = codec.tokenizer.special.stop
    const size = o.batch ?? 32
    const seqs = played.map((qa) => sequenceOfTrajectory(codec, demos.get(qa.id)!))
    const answers: string[] = []
    for (let at = 0; at < seqs.length; at += size) {
      const prompts = seqs.slice(at, at + size).map((q) => q.ids.slice(0, lastTurnStart(q.sampled)))
      for (const [s] of generateBatch(model, prompts, { maxNewTokens: o.maxTokensPerTurn ?? 64, temperature: 0, eosTokenIds: stop }))
        answers.push(codec.tokenizer.decode(s.tokens.filter((t) => !stop.includes(t))))
    }
    // Scored by the gym: the oracle's turns replayed in a fresh env, then the model's answer turn.
    const tf: TrajectoryRecord[] = []
    for (let i = 0; i < played.length; i++) {
      const qa = played[i]
      const texts = [...demos.get(qa.id)!.turns.map((t) => t.text).slice(0, -1), answers[i]]
      let k = 0
      const replay: Policy = { name: 'oracle-then-model', act: () => Promise.resolve({ text: texts[k++] }) }
      // The replay has the demonstration's turns and no more; they fit the run's budgets (the demonstration was played
      // under them), so its turn limit is theirs: a model's last turn that does not answer is truncated there.
      const env = makeResolvedEnv(pool.worldFor(qa), qa, episodeOptions(gym, funnelBudgets(qa, o, model, 256, { ...o.gym?.budgets, maxTurns: texts.length, turnsPerHop: 0 })))
      tf.push(await runEpisode(qa, env, replay, { scorer: scoreAnswer }))
    }
    const losses: number[] = []
    for (const seq of seqs) losses.push(answerNll(model, seq.ids, lastTurnStart(seq.sampled)))
    // The fact drill: the same context with the last page cut to its title and the last hop's evidence sentence.
    const factSeqs: { seq: ReturnType<typeof sequenceOfTrajectory>; qa: Qa }[] = []
    for (const qa of played) {
      const rec = demos.get(qa.id)!
      const n = rec.turns.length
      if (n < 2) continue
      const last = Math.max(...qa.evidence.map((e) => e.hop))
      const cut = factObservation(rec.turns[n - 2].observation, qa.evidence.filter((e) => e.hop === last).map((e) => e.sentence), gym.leadSpace)
      if (cut) factSeqs.push({ qa, seq: sequenceOfTrajectory(codec, { initial: rec.initial, turns: [{ ...rec.turns[n - 2], observation: cut }, rec.turns[n - 1]] }) })
    }
    const proto = getProtocol(o.protocol)
    const ctx = { tools: ['search', 'access'] as const, maxCallsPerTurn: 1, turn: 1, maxArgChars: 1000, prompt: gym.prompt }
    const factF1s: number[] = []
    const factEms: number[] = []
    const factLosses: number[] = []
    for (let at = 0; at < factSeqs.length; at += size) {
      const chunk = factSeqs.slice(at, at + size)
      const outs = generateBatch(model, chunk.map((x) => x.seq.ids.slice(0, lastTurnStart(x.seq.sampled))), { maxNewTokens: o.maxTokensPerTurn ?? 64, temperature: 0, eosTokenIds: stop })
      chunk.forEach((x, i) => {
        const parsed = proto.parse({ text: codec.tokenizer.decode(outs[i][0].tokens.filter((t) => !stop.includes(t))) }, ctx)
        const sc = parsed.kind === 'answer' ? scoreAnswer(parsed.answer, goldsOf(x.qa)) : { f1: 0, em: 0 }
        factF1s.push(sc.f1)
        factEms.push(sc.em)
        factLosses.push(answerNll(model, x.seq.ids, lastTurnStart(x.seq.sampled)))
      })
    }
    const f1s = own.map((r) => r.f1)
    const floor = constantAnswerFloor(qas)
    return {
      n: qas.length,
      search: own.filter((r) => (r.turns[0]?.signals?.gold_found ?? 0) > 0).length,
      opened: own.filter((r, i) => Math.max(0, ...r.turns.map((t) => t.signals?.hop_reached ?? 0)) >= qas[i].hops).length,
      f1: mean(f1s),
      ci95: ci95(f1s),
      em: mean(own.map((r) => r.em)),
      emCi95: ci95(own.map((r) => r.em)),
      readF1: mean(tf.map((r) => r.f1)),
      readEm: mean(tf.map((r) => r.em)),
      readCi95: ci95(tf.map((r) => r.f1)),
      readEmCi95: ci95(tf.map((r) => r.em)),
      answerLoss: mean(losses),
      factF1: factSeqs.length ? mean(factF1s) : NaN,
      factEm: factSeqs.length ? mean(factEms) : NaN,
      factEmCi95: ci95(factEms),
      factN: factSeqs.length,
      floorF1: floor.f1,
      floorEm: floor.em,
      floorHeldF1: floor.heldF1,
      floorHeldEm: floor.heldEm,
      factLoss: factSeqs.length ? mean(factLosses) : NaN,
      noOracle: qas.length - played.length,
      examples: played.slice(0, o.examples ?? 5).map((qa, i) => ({ question: qa.question, gold: qa.answer, answer: answers[i], f1: tf[i].f1 })),
    }
  } finally {
    for (const x of opened) x.w.close()
  }
}

/** Mean −log p of ids[from..] given everything before (the answer turn's tokens, teacher-forced). */
export function answerNll(model: CausalLM, ids: readonly number[], from: number): number {
  if (from < 1 || from >= ids.length) return NaN
  const be = model.backend
  const f = forward(model, [{ tokens: ids.slice(0, -1) }])
  const rows = Int32Array.from({ length: ids.length - from }, (_, i) => from - 1 + i)
  const h = be.embedding(f.hidden, rows)
  const lp = targetLogprobs(model, h, Int32Array.from(ids.slice(from)))
  be.release(h)
  be.release(f.hidden)
  return -mean(Array.from(lp))
}

/** One line: `n 300  search 71.0%  opened 60.3%  read|oracle EM 35.1% F1 40.2%  F1 20.4% ± 4.1  EM 18.0% ± 4.3  floor F1 3.1% EM 1.0% (in-sample 9.0% / 6.3%)  …`. */
export function funnelLine(f: Funnel): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`
  return `n ${f.n}  search ${pct(f.search / Math.max(1, f.n))}  opened ${pct(f.opened / Math.max(1, f.n))}  read|oracle EM ${pct(f.readEm)} F1 ${pct(f.readF1)}  F1 ${pct(f.f1)} ± ${(100 * f.ci95).toFixed(1)}  EM ${pct(f.em)} ± ${(100 * f.emCi95).toFixed(1)}  floor F1 ${pct(f.floorHeldF1)} EM ${pct(f.floorHeldEm)} (in-sample ${pct(f.floorF1)} / ${pct(f.floorEm)})  answer loss ${f.answerLoss.toFixed(3)}  fact drill EM ${pct(f.factEm)} F1 ${pct(f.factF1)} (loss ${f.factLoss.toFixed(3)})${f.noOracle ? `  (oracle out of context: ${f.noOracle})` : ''}`
}
