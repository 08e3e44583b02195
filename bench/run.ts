// bench/run: a resumable benchmark run — config.json, an append-only fsync'd trajectories.jsonl (one line per finished
// question), summary.json and report.md. A killed run continues where it stopped; no question is scored twice.
// It drives any Policy over any BenchWorld; which policy and which world is the caller's business.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, dirname, resolve } from 'node:path'
import pMap from 'p-map'
import { resolveRunGym, type Env, type GymOptions, type Policy } from '../gym'
import type { Qa } from '../world'
import { folderFingerprint, recordedPath, sameRecordedPath } from '../infra/recorded-path'
import { canonicalJson } from '../infra/hash'
import { BenchError } from '../infra/errors'
import { lockDir } from '../infra/lock'
import { progress } from '../infra/progress'
import { runEpisode } from '../agent'
import type { LlmJudge } from './judge'
import { summarize, type RunSummary } from './metrics'
import { writeReport } from './report'
import { latestById, loadTrajectories, TrajectoryWriter } from './trajectory-log'
import type { AnswerScorer, BenchRunConfig, BenchWorld, TrajectoryRecord } from './types'
import { passPoint } from '../infra/run-points'
import { limitQuestions, type LimitMode } from './sample'
import { ceilingWarning, measureCeiling, type CeilingRecord } from './ceiling'
import { floorOver, measureFloor, type FloorRecord } from './floor-record'

export const RUN_FILES = { config: 'config.json', trajectories: 'trajectories.jsonl', summary: 'summary.json', report: 'report.md', ceiling: 'oracle-ceiling.json', floor: 'floor.json' } as const

/** Config keys that may differ when a run is resumed (they change how, not what, is measured). */
/** `world` (a path) may move; the world's identity is `worldId`. `origin` (older folders) was where the run was started
 *  from; `identity` says what the engine's folders held. The engine's model and adapter paths are compared by what they
 *  name (sameRecordedPath, or their identity), not as text. */
const RESUMABLE_KEYS = new Set<keyof BenchRunConfig>(['concurrency', 'limit', 'timeoutMs', 'maxRetries', 'bootstrap', 'baseURL', 'apiKeyEnv', 'world', 'worlds', 'origin', 'identity'])

/** The config as the run folder records it: world(s), and the engine policy's model and adapter folders, relative to
 *  the folder — never an absolute path — with the engine folders' fingerprints under identity. */
export function recordedConfig(outDir: string, c: BenchRunConfig): BenchRunConfig {
  const rec = (p: string) => recordedPath(outDir, p)
  const engine = c.policy === 'engine'
  const identity = engine ? { model: folderFingerprint(c.model), ...(c.adapter ? { adapter: folderFingerprint(c.adapter) } : {}) } : undefined
  const { origin: _older, ...rest } = c
  return { ...rest, world: rec(c.world), ...(c.worlds ? { worlds: c.worlds.map(rec) } : {}), ...(engine ? { model: rec(c.model), ...(c.adapter ? { adapter: rec(c.adapter) } : {}), identity } : {}) }
}

/** Bounds of the run's numbers (bench run's flags by their config names): checked before any question runs, so a
 *  negative --bootstrap or a --timeout-ms of -5 is one line at the start, never a crash (or 7.9 GB) after the run.
 *  Upper bounds are far above any sensible value; they stop a typo from reserving memory or time without end. */
export const RUN_NUMBER_BOUNDS = {
  bootstrap: { flag: '--bootstrap', lo: 1, hi: 100_000, int: true },
  concurrency: { flag: '--concurrency', lo: 1, hi: 1024, int: true },
  seed: { flag: '--seed', lo: 0, hi: 2 ** 32 - 1, int: true },
  timeoutMs: { flag: '--timeout-ms', lo: 1, hi: 24 * 3600_000, int: true },
  maxRetries: { flag: '--max-retries', lo: 0, hi: 100, int: true },
  ragDocs: { flag: '--rag-docs', lo: 1, hi: 100, int: true },
  limit: { flag: '--limit', lo: 1, hi: 10_000_000, int: true },
  temperature: { flag: '--temperature', lo: 0, hi: 10, int: false },
  maxTokens: { flag: '--max-tokens', lo: 1, hi: 1_000_000, int: true },
} as const satisfies Record<string, { flag: string; lo: number; hi: number; int: boolean }>

/** Check every number of a run (null/undefined: not set) against RUN_NUMBER_BOUNDS; a bad one is one BenchError line. */
export function checkRunNumbers(c: Partial<Record<keyof typeof RUN_NUMBER_BOUNDS, number | null | undefined>>): void {
  for (const [k, b] of Object.entries(RUN_NUMBER_BOUNDS)) {
    const v = c[k as keyof typeof RUN_NUMBER_BOUNDS]
    if (v === undefined || v === null) continue
    if (typeof v !== 'number' || !Number.isFinite(v) || (b.int && !Number.isInteger(v)) || v < b.lo || v > b.hi)
      throw new BenchError('bench.args', `${b.flag} must be ${b.int ? 'an integer' : 'a number'} in [${b.lo}, ${b.hi}], got ${String(v)}`)
  }
}

export interface RunDeps {
  world: BenchWorld
  /** A policy for a question (shared instances are fine; the oracle needs the question). */
  policyFor: (qa: Qa) => Policy
  /** Where each episode is played (default: the world's own env, world.makeEnv); `bench run --via mcp` plays it through
   *  the gym's MCP server (bench/mcp-env). An env with a close() is closed after its episode, however it ended. */
  makeEnv?: (qa: Qa, gym: GymOptions) => Promise<Env & { close?: () => Promise<void> }>
  scorer: AnswerScorer
  judge?: LlmJudge
  /** Re-run questions whose recorded status is 'infra_error' (their new line supersedes the old). */
  retryErrors?: boolean
  quiet?: boolean
  signal?: AbortSignal
  /** Where the one-line warning goes when the run's budget caps the oracle below 100 % (default: stderr). */
  warn?: (line: string) => void
}

export interface RunResult {
  outDir: string
  summary: RunSummary
  /** Questions run by this invocation. */
  ran: number
  /** Questions found done in the log and skipped. */
  skipped: number
  /** True when a torn last line (a killed write) was found and cut off. */
  repairedTornLine: boolean
  /** The error of every selected question lost to the endpoint (status infra_error), in question order. */
  lostErrors: string[]
  /** The oracle's ceiling under the run's budgets (also in summary.json, report.md and oracle-ceiling.json). */
  ceiling: CeilingRecord
}

function checkResumable(path: string, config: BenchRunConfig, given: BenchRunConfig): void {
  const old = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
  // A run written before --limit-mode existed took the first N.
  if (old.limit !== null && old.limit !== undefined && old.limitMode === undefined) old.limitMode = 'first'
  const now = config as unknown as Record<string, unknown>
  const keys = [...new Set([...Object.keys(old), ...Object.keys(now)])].sort()
  // The engine's folders: the same when the recorded path (from where the folder is now) names the one given now, or
  // its recorded fingerprint is the given folder's (moved away from it); an older folder's origin (absolute) is read.
  const dir = dirname(path), was = (old.origin ?? {}) as Record<string, string | undefined>, held = (old.identity ?? {}) as Record<string, string | undefined>
  const samePath = (k: 'model' | 'adapter') =>
    config.policy === 'engine' &&
    typeof old[k] === 'string' &&
    typeof given[k] === 'string' &&
    (sameRecordedPath(dir, old[k] as string, given[k]!, was[k]) || (Boolean(held[k]) && held[k] === config.identity?.[k]))
  const diff = keys.filter((k) => !RESUMABLE_KEYS.has(k as keyof BenchRunConfig) && canonicalJson(old[k] ?? null) !== canonicalJson(now[k] ?? null) && !((k === 'model' || k === 'adapter') && samePath(k)))
  if (diff.length > 0)
    throw new BenchError(
      'bench.config_mismatch',
      `${path} holds a run with a different ${diff.join(', ')}; resume with the same settings${diff.includes('limitMode') ? ` (--limit-mode ${String(old.limitMode ?? 'first')})` : ''} or choose a new --out`,
    )
}

export function selectQuestions(world: BenchWorld, split: string, limit: number | null, qaIds?: readonly string[], limitMode: LimitMode = 'first', seed = 0): Qa[] {
  let all = world.questions(split)
  if (all.length === 0) {
    const known = ['train', 'bench'].filter((s) => s !== split && world.questions(s).length > 0)
    throw new BenchError('bench.no_questions', `world ${world.dir} has no questions in split '${split}'${known.length ? `; its splits: ${known.join(', ')}` : ''} (--split)`)
  }
  if (qaIds) {
    const byId = new Map(all.map((q) => [q.id, q]))
    const missing = qaIds.filter((id) => !byId.has(id))
    if (missing.length > 0) throw new BenchError('bench.qa_ids', `${missing.length} of the --qa-ids are not questions of split '${split}' (first: ${missing[0]})`)
    all = qaIds.map((id) => byId.get(id)!)
  }
  return limitQuestions(all, limit, limitMode, seed)
}

/** summary.json and report.md from the records, with the run's oracle ceiling (its oracle-ceiling.json, which `bench
 *  report` reads back: it has no world to measure one). */
export function writeSummary(outDir: string, config: BenchRunConfig, records: TrajectoryRecord[]): RunSummary {
  const summary: RunSummary = summarize(records, { resamples: config.bootstrap, seed: config.seed })
  const ceilingPath = join(outDir, RUN_FILES.ceiling)
  if (existsSync(ceilingPath)) summary.oracleCeiling = JSON.parse(readFileSync(ceilingPath, 'utf8')) as CeilingRecord
  const floorPath = join(outDir, RUN_FILES.floor)
  if (existsSync(floorPath)) {
    const f = JSON.parse(readFileSync(floorPath, 'utf8')) as FloorRecord
    const over = floorOver(f, records.map((r) => r.id))
    if (over) summary.floor = { ...over, groups: f.groups, top: f.top }
  }
  writeFileSync(join(outDir, RUN_FILES.summary), JSON.stringify(summary, null, 2) + '\n')
  writeReport(outDir, config, summary)
  return summary
}

/** mkdir -p one level at a time, so a read-only or unwritable parent is reported by its own code (EROFS, EACCES):
 *  Node's recursive mkdir says ENOENT there. */
function makeRunDir(outDir: string): void {
  const missing: string[] = []
  for (let d = resolve(outDir); !existsSync(d); ) {
    missing.push(d)
    const up = dirname(d)
    if (up === d) break
    d = up
  }
  for (const m of missing.reverse()) {
    try {
      mkdirSync(m)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code === 'EEXIST') continue
      throw new BenchError('bench.out_unwritable', `cannot create the run folder ${m} (${code ?? (e as Error).message}${code === 'EROFS' ? ': a read-only file system' : ''}); choose a writable --out`, { cause: e })
    }
  }
}

export async function runBench(outDir: string, given: BenchRunConfig, deps: RunDeps): Promise<RunResult> {
  const config = recordedConfig(outDir, given)
  checkRunNumbers(config)
  // Everything that can be refused is checked before the run folder exists: a failed start writes nothing.
  // The gym options are resolved once per run (reward spec parsed, keys and ranges checked); each env gets them typed.
  const gym = resolveRunGym(config.gym, config.protocol)
  const questions = selectQuestions(deps.world, config.split, config.limit, config.qaIds, config.limitMode ?? 'first', config.seed)
  makeRunDir(outDir)
  // One writer per run folder (infra/lock, as every command that writes a run): a second is a one-line error naming the first.
  const lock = lockDir(outDir, 'bench run')
  try {
    const configPath = join(outDir, RUN_FILES.config)
    const trajPath = join(outDir, RUN_FILES.trajectories)
    if (existsSync(configPath)) checkResumable(configPath, config, given)
    else if (existsSync(trajPath)) throw new BenchError('bench.orphan_log', `${trajPath} exists without ${RUN_FILES.config}; choose a new --out`)
    writeFileSync(configPath, JSON.stringify(config, null, 2) + '\n')

    const log = loadTrajectories(trajPath)
    const done = latestById(log.records)
    const wanted = new Set(questions.map((q) => q.id))
    const isDone = (id: string) => {
      const r = done.get(id)
      return r !== undefined && !(deps.retryErrors && r.status === 'infra_error')
    }
    const pending = questions.filter((q) => !isDone(q.id))
    const skipped = questions.length - pending.length

    // The oracle's ceiling under this run's budgets, before any question is asked: a budget that caps it is said at
    // the start, in one line, not discovered in the scores.
    const ceiling = await measureCeiling(deps.world, questions, gym, deps.scorer)
    writeFileSync(join(outDir, RUN_FILES.ceiling), JSON.stringify(ceiling, null, 2) + '\n')
    // The floor of the same questions (the best constant answer per relation), shown beside F1 and EM.
    writeFileSync(join(outDir, RUN_FILES.floor), JSON.stringify(measureFloor(questions)) + '\n')
    const capped = ceilingWarning(ceiling)
    if (capped) (deps.warn ?? ((l: string) => process.stderr.write(`searchgym: warning: ${l}\n`)))(capped)

    // Accuracy so far over every finished question of this selection (resumed ones included).
    let nDone = 0
    let f1Sum = 0
    let emSum = 0
    let infraErr = 0
    for (const [id, r] of done)
      if (wanted.has(id) && isDone(id)) {
        nDone++
        f1Sum += r.f1
        emSum += r.em
        if (r.status === 'infra_error') infraErr++
      }
    const bar = progress(`bench ${config.policy}`, questions.length, {
      quiet: deps.quiet,
      detail: () => (nDone > 0 ? `F1 ${(f1Sum / nDone).toFixed(3)} EM ${(emSum / nDone).toFixed(3)}${infraErr ? ` endpoint-failed ${infraErr}` : ''}` : 'F1 – EM –'),
    })
    bar.update(skipped)

    const writer = new TrajectoryWriter(trajPath, log.goodBytes)
    try {
      await pMap(
        pending,
        async (qa) => {
          const env: Env & { close?: () => Promise<void> } = deps.makeEnv ? await deps.makeEnv(qa, gym) : await deps.world.makeEnv(qa, gym)
          let rec
          try {
            rec = await runEpisode(qa, env, deps.policyFor(qa), { scorer: deps.scorer, judge: deps.judge, signal: deps.signal })
          } finally {
            await env.close?.()
          }
          writer.append(rec)
          nDone++
          // A run point right after the n-th record is on disk (a kill here must resume).
          passPoint(`bench-record-${nDone}`)
          f1Sum += rec.f1
          emSum += rec.em
          if (rec.status === 'infra_error') infraErr++
          bar.tick()
        },
        { concurrency: config.concurrency, signal: deps.signal },
      )
    } finally {
      await writer.close()
      bar.done()
    }

    const all = latestById(loadTrajectories(trajPath).records)
    const records = questions.map((q) => all.get(q.id)).filter((r): r is TrajectoryRecord => r !== undefined)
    const summary = writeSummary(outDir, config, records)
    const lostErrors = records.filter((r) => r.status === 'infra_error').map((r) => r.error ?? 'unknown endpoint failure')
    return { outDir, summary, ran: pending.length, skipped, repairedTornLine: log.torn, lostErrors, ceiling }
  } finally {
    lock.release()
  }
}
