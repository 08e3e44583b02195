// agent/policy/oracle-check-shard: one shard of the oracle check over an open world — its own search index (repeated
// searches answered from memory: the check's engines are deterministic), the oracle's knowledge, then the oracle
// through a fresh env per question, in order. Run by each worker thread and, for the first shard, by the build's own
// thread (which has every module loaded already). Never writes to the world.
import { makeEnv, gymWorldFromIndex, type GymOptions } from '../../gym'
import { openSearchIndex, worldReader, type Qa, type World } from '../../world'
import { withMemoSearch } from './memo-search'
import { runOracle, type OracleRun } from './oracle'
import { worldOracleKnowledge, type WorldOracleKnowledge } from './oracle-knowledge'

/** From this many distinct path edges on, one scan of the edge and verification tables beats a query per edge. */
const PREFETCH_MIN_EDGES = 1000

/** Every edge the questions walk, with its verified queries, in one scan each (not one query per edge on first use). */
export function prefetchPaths(k: WorldOracleKnowledge, qas: readonly Qa[]): void {
  const edges = new Set(qas.flatMap((q) => q.path))
  if (edges.size >= PREFETCH_MIN_EDGES) k.prefetch(edges)
}

/** Progress is reported every this many questions (and the event loop gets a turn: worker messages, timers). */
const TICK_EVERY = 64

export async function runCheckShard(
  w: World,
  qas: Qa[],
  gym: Partial<GymOptions>,
  tick: (n: number) => void,
): Promise<OracleRun[]> {
  const index = await openSearchIndex(w, { quiet: true })
  const world = withMemoSearch(gymWorldFromIndex('check', index, qas))
  const k = worldOracleKnowledge(worldReader(w.db))
  prefetchPaths(k, qas)
  const runs: OracleRun[] = []
  let pending = 0
  try {
    for (const qa of qas) {
      runs.push(await runOracle(makeEnv(world, qa, gym), qa, k))
      if (++pending >= TICK_EVERY) {
        tick(pending)
        pending = 0
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
    }
  } finally {
    await world.close()
  }
  if (pending) tick(pending)
  return runs
}
