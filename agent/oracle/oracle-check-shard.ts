// agent/oracle/oracle-check-shard: one thread's part of the oracle check over an open world — its own search index
// (repeated searches answered from memory: the check's engines are deterministic), the oracle's knowledge (the pool's
// path edges read in one scan), then the oracle through a fresh env per question. A CheckRunner is used by each worker
// thread and by the build's own thread (which has every module loaded already); the scheduler in oracle-check hands
// them chunks of questions as they free up. A question's run depends on that question only (memoised search and
// knowledge give the same answers as fresh reads), so any split over threads gives the same runs. Never writes.
import { makeResolvedEnv, gymWorldFromIndex, resolveGymOptions, type GymOptions, type GymWorld } from '../../gym'
import { openSearchIndex, worldReader, type Qa, type World } from '../../world'
import { withMemoSearch, type MemoStats } from './memo-search'
import { runOracle, type OracleRun } from './oracle'
import { ORACLE_MAX_QUERIES_PER_PAGE, type OraclePlanOptions } from './oracle-plan'
import { worldOracleKnowledge, type WorldOracleKnowledge } from './oracle-knowledge'

/** How the check's oracle reads a paged document: every page when opened, or only until the hop's fact is read. */
export type CheckPages = NonNullable<OraclePlanOptions['pages']>

/** From this many distinct path edges on, one scan of the edge and verification tables beats a query per edge. */
const PREFETCH_MIN_EDGES = 1000

/** The distinct edges the questions walk, in first-seen order. */
export function pathEdges(qas: readonly Qa[]): string[] {
  return [...new Set(qas.flatMap((q) => q.path))]
}

/** Every edge the questions walk, with its verified queries, in one scan each (not one query per edge on first use). */
export function prefetchPaths(k: WorldOracleKnowledge, qas: readonly Qa[]): void {
  prefetchEdges(k, pathEdges(qas))
}

export function prefetchEdges(k: WorldOracleKnowledge, edges: readonly string[]): void {
  if (edges.length >= PREFETCH_MIN_EDGES) k.prefetch(edges)
}

/** Progress is reported every this many questions (and the event loop gets a turn: worker messages, timers). */
const TICK_EVERY = 64

/** One thread's oracle checker over an open world: index, memoised search, knowledge — reused for every chunk. */
export class CheckRunner {
  private constructor(
    private readonly world: GymWorld & { memo: MemoStats },
    private readonly k: WorldOracleKnowledge,
    private readonly gym: GymOptions,
    private readonly plan: OraclePlanOptions | undefined,
  ) {}

  /** Open the world's index and knowledge; `edges`: the pool's path edges, read in one scan; `pages`: how the oracle
   *  reads paged documents (oracle-plan's option; undefined: its default). */
  static async open(w: World, gym: Partial<GymOptions>, edges: readonly string[], pages?: CheckPages): Promise<CheckRunner> {
    const index = await openSearchIndex(w, { quiet: true })
    const world = withMemoSearch(gymWorldFromIndex('check', index, []))
    const k = worldOracleKnowledge(worldReader(w.db))
    prefetchEdges(k, edges)
    // Options are validated once here, not once per question's env.
    return new CheckRunner(world, k, resolveGymOptions(gym), pages === undefined ? undefined : { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE, pages })
  }

  /** Read these path edges' knowledge in one scan (a warm worker learns its pool's edges only after opening). */
  prefetch(edges: readonly string[]): void {
    prefetchEdges(this.k, edges)
  }

  /** The oracle over `qas`, in order; `tick(n)` every TICK_EVERY questions (the event loop gets a turn then). */
  async run(qas: readonly Qa[], tick: (n: number) => void = () => undefined): Promise<OracleRun[]> {
    const runs: OracleRun[] = []
    let pending = 0
    for (const qa of qas) {
      runs.push(await runOracle(makeResolvedEnv(this.world, qa, this.gym), qa, this.k, this.plan))
      if (++pending >= TICK_EVERY) {
        tick(pending)
        pending = 0
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
    }
    if (pending) tick(pending)
    return runs
  }

  /** Searches answered from memory (hits) and asked of the engine (misses) so far. */
  get memo(): MemoStats {
    return { ...this.world.memo }
  }

  async close(): Promise<void> {
    await this.world.close()
  }
}
