// bench/ceiling: the oracle's ceiling under a run's env budgets — the share of the run's questions the gym's oracle
// reads its way to within them. One pass of the oracle with the budgets lifted (its walk never depends on them) records
// what each question needs: its turns, its longest response and the context it reached. The budgets wrapper cuts an
// episode exactly when one of those passes its budget (gym/wrappers/budgets), so a question is within the ceiling iff
// the oracle solved it and all three fit (tests/bench-ceiling checks this against oracle runs under the budgets).
// A second pass plays a reader's shortest walk in the run's own protocol and page access (search-r1 or hermes; by title
// when the run opens pages by title): answer as soon as the evidence sentence naming the answer is read, pages read only
// as far as needed (agent/oracle plan answer 'read'). A question is within the budget when either walk fits it: the
// warning says what the budget really caps, not what the oracle's habitual walk (hermes, URLs, the answer's own page
// opened) needs. The headline numbers (rate, solved, need) stay the habitual walk's: they are what --policy oracle
// scores and what the canonical benches pin. Knows nothing of the run's policy, log or report layout.
import pMap from 'p-map'
import type { Budgets, GymOptions } from '../gym'
import { budgetsRecord, parseRewardSpec } from '../gym'
import { ORACLE_BUDGETS, ORACLE_MAX_QUERIES_PER_PAGE, oraclePolicy, runEpisode, type OracleKnowledge } from '../agent'
import { BenchError } from '../infra/errors'
import type { Qa } from '../world'
import type { AnswerScorer, BenchWorld } from './types'

/** The oracle pass's reward (F1: solvability, whatever the run's), parsed once per process: a run's own reward spec
 *  stays the only one it parses (tests/gym-options-once). */
let f1Parsed: ReturnType<typeof parseRewardSpec> | undefined
const f1Spec = () => (f1Parsed ??= parseRewardSpec('f1'))

/** What the oracle needs for one question (budgets lifted). */
export interface OracleNeed {
  /** Assistant turns, the answer's included. */
  turns: number
  /** The longest response, in the budgets' token count. */
  responseTokens: number
  /** The context the episode reached (prompt, every response and observation), in the budgets' token count. */
  contextTokens: number
  /** The oracle answered with F1 = 1 given every budget it wanted. */
  solved: boolean
}

export interface OracleCeiling {
  /** solved / questions: no policy that reads its way to answers can score above it under these budgets. */
  rate: number
  questions: number
  /** Solved by the oracle within the run's budgets. */
  solved: number
  /** The run's budgets, and the tool calls a turn it allows (the oracle calls one a turn). */
  budgets: Budgets
  maxCallsPerTurn: number
  /** Questions the oracle solves with the budgets lifted but whose need passes this budget (a question may pass two). */
  over: { turns: number; responseTokens: number; contextTokens: number }
  /** Questions the oracle does not solve even with the budgets lifted (injected faults; a world whose check failed). */
  unsolvable: number
  /** The most the oracle needs over the questions it can solve: budgets at least this give it every one of them. */
  need: Budgets
  /** The ceiling by hops: questions and those solved within the budgets. */
  byHops: Record<string, { questions: number; solved: number }>
  /** Within the budgets by some walk: the habitual one, or a reader's shortest in the run's protocol (see the header).
   *  What the budget caps is this; absent in a record written before it (or where no reader walk was played). */
  reader?: { protocol: string; accessByTitle: boolean; solved: number; rate: number; need: Budgets; byHops: Record<string, { questions: number; solved: number }> }
}

/** Why a run has no ceiling (no oracle for its world, or an env the oracle cannot play). */
export interface UnmeasuredCeiling {
  unmeasured: string
}

export type CeilingRecord = OracleCeiling | UnmeasuredCeiling

export function isMeasured(c: CeilingRecord | undefined): c is OracleCeiling {
  return c !== undefined && !('unmeasured' in c)
}

/** Episodes in flight: the oracle's turns are local (ms), but injected latency and timeout faults wait. */
const CONCURRENCY = 8

/** What the oracle needs for each question, in order: one episode each, budgets lifted, under the run's other options
 *  (observation cap, topK, faults, …) in the oracle's text protocol. Solvability is F1 = 1, whatever the run's reward. */
export async function oracleNeeds(world: BenchWorld, questions: readonly Qa[], gym: GymOptions, scorer: AnswerScorer, walk: 'habitual' | 'reader' = 'habitual'): Promise<OracleNeed[]> {
  const oracle = walk === 'reader' ? readerOf(world, gym) : world.oracle?.bind(world)
  if (!oracle) throw new BenchError('bench.no_oracle', `world ${world.dir} cannot give an oracle (it needs the world's gold graph)`)
  const protocol = walk === 'reader' ? readerProtocol(gym) : 'hermes'
  const lifted: GymOptions = { ...gym, protocol, reward: f1Spec(), stepSignals: false, budgets: { ...ORACLE_BUDGETS } }
  return pMap(
    questions,
    async (qa): Promise<OracleNeed> => {
      const rec = await runEpisode(qa, await world.makeEnv(qa, lifted), oracle(qa), { scorer })
      let responseTokens = 0
      for (const t of rec.turns) responseTokens = Math.max(responseTokens, t.metrics.response_tokens ?? 0)
      return {
        turns: rec.turns.length,
        responseTokens,
        contextTokens: rec.turns.at(-1)?.metrics.context_tokens ?? 0,
        solved: rec.status === 'ok' && rec.stopReason === 'answer' && rec.f1 === 1,
      }
    },
    { concurrency: CONCURRENCY },
  )
}

/** The text protocol a reader's walk is played in: the run's when the oracle writes it, else hermes. */
const readerProtocol = (gym: GymOptions): 'hermes' | 'search-r1' => (gym.protocol === 'search-r1' ? 'search-r1' : 'hermes')

/** A reader's shortest walk for a question (the oracle's plan answering once it has read the answer), or undefined
 *  where the world has no gold graph to give. */
function readerOf(world: BenchWorld, gym: GymOptions): ((qa: Qa) => ReturnType<typeof oraclePolicy>) | undefined {
  const k = world.oracleKnowledge
  if (!k) return undefined
  return (qa) => oraclePolicy(k.localQa(qa), k.of(qa), { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE, pages: 'needed', answer: 'read' }, readerProtocol(gym), gym.accessByTitle === true)
}

/** Whether a need fits the budgets. */
const fits = (n: OracleNeed, b: Budgets) => n.solved && n.turns <= b.maxTurns && n.responseTokens <= b.maxResponseTokens && n.contextTokens <= b.maxContextTokens

/** The reader part of a ceiling: per question, within the budgets by either walk. */
export function readerCeilingOf(questions: readonly Qa[], habitual: readonly OracleNeed[], reader: readonly OracleNeed[], gym: Pick<GymOptions, 'budgets' | 'protocol' | 'accessByTitle'>): NonNullable<OracleCeiling['reader']> {
  const b = gym.budgets
  const need: Budgets = { maxTurns: 0, maxResponseTokens: 0, maxContextTokens: 0 }
  const byHops: Record<string, { questions: number; solved: number }> = {}
  let solved = 0
  questions.forEach((qa, i) => {
    const h = (byHops[String(qa.hops)] ??= { questions: 0, solved: 0 })
    h.questions++
    const r = reader[i]
    if (r.solved) {
      need.maxTurns = Math.max(need.maxTurns, r.turns)
      need.maxResponseTokens = Math.max(need.maxResponseTokens, r.responseTokens)
      need.maxContextTokens = Math.max(need.maxContextTokens, r.contextTokens)
    }
    if (fits(r, b) || fits(habitual[i], b)) {
      solved++
      h.solved++
    }
  })
  const sorted = Object.fromEntries(Object.entries(byHops).sort((x, y) => Number(x[0]) - Number(y[0])))
  return { protocol: readerProtocol(gym as GymOptions), accessByTitle: gym.accessByTitle === true, solved, rate: questions.length ? solved / questions.length : 0, need, byHops: sorted }
}

/** The ceiling of `questions` (needs[i] is questions[i]'s) under `gym`'s budgets. */
export function ceilingOf(questions: readonly Qa[], needs: readonly OracleNeed[], gym: Pick<GymOptions, 'budgets' | 'maxCallsPerTurn'>): OracleCeiling {
  const b = gym.budgets
  const over = { turns: 0, responseTokens: 0, contextTokens: 0 }
  const need: Budgets = { maxTurns: 0, maxResponseTokens: 0, maxContextTokens: 0 }
  const byHops: OracleCeiling['byHops'] = {}
  let solved = 0
  let unsolvable = 0
  questions.forEach((qa, i) => {
    const n = needs[i]
    const h = (byHops[String(qa.hops)] ??= { questions: 0, solved: 0 })
    h.questions++
    if (!n.solved) {
      unsolvable++
      return
    }
    need.maxTurns = Math.max(need.maxTurns, n.turns)
    need.maxResponseTokens = Math.max(need.maxResponseTokens, n.responseTokens)
    need.maxContextTokens = Math.max(need.maxContextTokens, n.contextTokens)
    const t = n.turns > b.maxTurns
    const r = n.responseTokens > b.maxResponseTokens
    const c = n.contextTokens > b.maxContextTokens
    if (t) over.turns++
    if (r) over.responseTokens++
    if (c) over.contextTokens++
    if (!t && !r && !c) {
      solved++
      h.solved++
    }
  })
  const sorted = Object.fromEntries(Object.entries(byHops).sort((x, y) => Number(x[0]) - Number(y[0])))
  return { rate: questions.length ? solved / questions.length : 0, questions: questions.length, solved, budgets: budgetsRecord(b), maxCallsPerTurn: gym.maxCallsPerTurn, over, unsolvable, need, byHops: sorted }
}

/** The ceiling of a run's questions under its resolved gym options, or why there is none. */
export async function measureCeiling(world: BenchWorld, questions: readonly Qa[], gym: GymOptions, scorer: AnswerScorer): Promise<CeilingRecord> {
  if (!world.oracle) return { unmeasured: 'this world has no gold graph for the oracle to walk' }
  if (!gym.access) return { unmeasured: 'access: false, and the oracle reads pages with access' }
  const habitual = await oracleNeeds(world, questions, gym, scorer)
  const c = ceilingOf(questions, habitual, gym)
  if (!world.oracleKnowledge) return c
  return { ...c, reader: readerCeilingOf(questions, habitual, await oracleNeeds(world, questions, gym, scorer, 'reader'), gym) }
}

/** Whether the budget caps what can be read within it (the reader's verdict when measured, else the habitual walk's). */
export function budgetCaps(c: CeilingRecord | undefined): boolean {
  if (!isMeasured(c)) return false
  return c.reader ? c.reader.solved < c.questions : c.solved < c.questions
}

const pctOf = (x: number) => `${(100 * x).toFixed(1)} %`

/** The ceiling in one line, for the run's log and report.md. */
export function ceilingLine(c: CeilingRecord | undefined): string {
  if (c === undefined) return 'oracle ceiling: not measured (a run written before ceilings were recorded)'
  if (!isMeasured(c)) return `oracle ceiling: not measured (${c.unmeasured})`
  const b = c.budgets
  const calls = c.maxCallsPerTurn > 1 ? ` (the oracle calls one tool a turn, so with ${c.maxCallsPerTurn} a turn allowed this is a floor)` : ''
  return (
    `oracle ceiling ${pctOf(c.rate)} (${c.solved} of ${c.questions} questions) under ${b.maxTurns} turns, ${b.maxResponseTokens} tokens a response, ${b.maxContextTokens} of context${calls}; ` +
    `the oracle needs up to ${c.need.maxTurns} turns, ${c.need.maxResponseTokens} and ${c.need.maxContextTokens} tokens` +
    (c.unsolvable > 0 ? `; ${c.unsolvable} not solved even unbudgeted` : '') +
    (c.reader ? `; within the budget by some walk (a reader's shortest, in ${c.reader.protocol}${c.reader.accessByTitle ? ' by title' : ''}, needs up to ${c.reader.need.maxTurns} turns): ${pctOf(c.reader.rate)} (${c.reader.solved} of ${c.questions})` : '')
  )
}

/** The warning `bench run` prints when the ceiling is below 100 %, naming the budget to raise; undefined at 100 %. */
export function ceilingWarning(c: CeilingRecord): string | undefined {
  if (!isMeasured(c) || c.solved === c.questions) return undefined
  if (c.reader) {
    // The oracle's habitual walk does not fit, but what matters is whether the questions can be read within the budget.
    const r = c.reader
    if (r.solved === c.questions) return undefined
    const raise: string[] = []
    if (r.need.maxTurns > c.budgets.maxTurns) raise.push(`gym.budgets.maxTurns ${r.need.maxTurns}`)
    if (r.need.maxContextTokens > c.budgets.maxContextTokens) raise.push(`gym.budgets.maxContextTokens ${r.need.maxContextTokens}`)
    if (r.need.maxResponseTokens > c.budgets.maxResponseTokens) raise.push(`gym.budgets.maxResponseTokens ${r.need.maxResponseTokens}`)
    return (
      `this run's budget caps what can be read at ${pctOf(r.rate)} (${r.solved} of ${c.questions} questions within ${c.budgets.maxTurns} turns by the shortest reading walk, in ${r.protocol}; it needs up to ${r.need.maxTurns}): ` +
      `scores are capped there` +
      (raise.length > 0 ? `; give ${raise.join(' and ')} for 100 %` : '') +
      (c.unsolvable > 0 ? `; ${c.unsolvable} not solved even unbudgeted (injected faults?)` : '')
    )
  }
  const raise: string[] = []
  if (c.over.turns > 0) raise.push(`gym.budgets.maxTurns ${c.need.maxTurns}`)
  if (c.over.contextTokens > 0) raise.push(`gym.budgets.maxContextTokens ${c.need.maxContextTokens}`)
  if (c.over.responseTokens > 0) raise.push(`gym.budgets.maxResponseTokens ${c.need.maxResponseTokens}`)
  const why = raise.length > 0 ? `this run's budget caps the oracle at ${pctOf(c.rate)}` : `the oracle's ceiling here is ${pctOf(c.rate)}`
  return (
    `${why} (${c.solved} of ${c.questions} questions within ${c.budgets.maxTurns} turns; it needs up to ${c.need.maxTurns}): ` +
    `scores are capped there` +
    (raise.length > 0 ? `; give ${raise.join(' and ')} for 100 %` : '') +
    (c.unsolvable > 0 ? `; ${c.unsolvable} not solved even unbudgeted (injected faults?)` : '')
  )
}
