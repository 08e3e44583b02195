// bench/gym-world: the bench over the real gym — a built world folder (openGymWorld: QA, documents, the verified
// search engine), the gym's Env per question (makeResolvedEnv with the run's options, resolved once by runBench) and
// the gym's oracle (agent's oracle policy over the world's gold graph). The answer scorer is the gym's scoreAnswer.
import { makeResolvedEnv, openGymWorld, type GymWorld } from '../gym'
import { CHECKED_WORLD_STAGES, oraclePolicy, worldOracleKnowledge, type OracleKnowledge } from '../agent'
import { checkWorldContent, openWorld, type Split, type World } from '../world'
import { WorldPool } from '../curriculum'
import { sha256 } from '../infra/hash'
import type { BenchWorld } from './types'

/** A BenchWorld over any GymWorld; `oracle` (the gold graph) enables --policy oracle. */
export function gymBenchWorld(dir: string, id: string, gw: GymWorld, oracle?: OracleKnowledge, onClose?: () => void): BenchWorld {
  const w: BenchWorld = {
    dir,
    id,
    questions: (split) => gw.listQa(split as Split),
    makeEnv: async (qa, gym) => makeResolvedEnv(gw, qa, gym),
    home: (qa) => ({ dir, qaId: qa.id }),
    close: async () => {
      await gw.close()
      onClose?.()
    },
  }
  if (oracle) {
    w.oracle = (qa) => oraclePolicy(qa, oracle)
    w.oracleKnowledge = { of: () => oracle, localQa: (qa) => qa }
  }
  return w
}

/** The world in `dir`, its content checked against its hash (a row edited after the build is refused, one line):
 *  the hash a run records as its world id is one it has verified, not only the manifest's claim. */
function openCheckedWorld(dir: string): World {
  const w = openWorld(dir, { check: true })
  try {
    checkWorldContent(w, CHECKED_WORLD_STAGES)
  } catch (e) {
    w.close()
    throw e
  }
  return w
}

/** The built world in `dir` as a BenchWorld (its content hash, checked, is the run's world id). */
export async function openBenchWorld(dir: string): Promise<BenchWorld> {
  const w = openCheckedWorld(dir)
  try {
    return gymBenchWorld(dir, w.hash, await openGymWorld(dir), worldOracleKnowledge(w), () => w.close())
  } catch (e) {
    w.close()
    throw e
  }
}

/** Several built worlds as one BenchWorld (a pool): question ids are WORLD/ID, each question's env and oracle are its
 *  own world's; the id is a hash of the member worlds' content hashes in order. One folder: openBenchWorld. */
export async function openBenchWorlds(dirs: readonly string[]): Promise<BenchWorld> {
  if (dirs.length === 1) return openBenchWorld(dirs[0])
  const pool = await WorldPool.open(dirs)
  const opened: World[] = []
  try {
    for (const m of pool.members) opened.push(openCheckedWorld(m.dir))
  } catch (e) {
    for (const w of opened) w.close()
    await pool.close()
    throw e
  }
  const knowledge = new Map(pool.members.map((m, i) => [m.name, worldOracleKnowledge(opened[i])]))
  return {
    dir: pool.members.map((m) => m.dir).join(','),
    id: sha256(opened.map((w) => w.hash).join(',')),
    questions: (split) => pool.listQa(split as Split),
    makeEnv: async (qa, gym) => makeResolvedEnv(pool.worldFor(qa), qa, gym),
    home: (qa) => ({ dir: pool.memberOf(qa).dir, qaId: pool.localId(qa) }),
    oracle: (qa) => oraclePolicy({ ...qa, id: pool.localId(qa) }, knowledge.get(pool.memberOf(qa).name)!),
    oracleKnowledge: { of: (qa) => knowledge.get(pool.memberOf(qa).name)!, localQa: (qa) => ({ ...qa, id: pool.localId(qa) }) },
    close: async () => {
      await pool.close()
      for (const w of opened) w.close()
    },
  }
}
