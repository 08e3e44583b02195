// bench/gym-world: the bench over the real gym — a built world folder (openGymWorld: QA, documents, the verified
// search engine), the gym's Env per question (makeEnv with the run's protocol and gym options) and the gym's oracle
// (agent's oracle policy over the world's gold graph). The answer scorer is the gym's scoreAnswer.
import { makeEnv, openGymWorld, type GymWorld } from '../gym'
import { oraclePolicy, worldOracleKnowledge, type OracleKnowledge } from '../agent'
import { openWorld, type Split } from '../world'
import type { BenchWorld } from './types'

/** A BenchWorld over any GymWorld; `oracle` (the gold graph) enables --policy oracle. */
export function gymBenchWorld(dir: string, id: string, gw: GymWorld, oracle?: OracleKnowledge, onClose?: () => void): BenchWorld {
  const w: BenchWorld = {
    dir,
    id,
    questions: (split) => gw.listQa(split as Split),
    makeEnv: async (qa, gym) => makeEnv(gw, qa, gym),
    close: async () => {
      await gw.close()
      onClose?.()
    },
  }
  if (oracle) w.oracle = (qa) => oraclePolicy(qa, oracle)
  return w
}

/** The built world in `dir` as a BenchWorld (its content hash is the run's world id). */
export async function openBenchWorld(dir: string): Promise<BenchWorld> {
  const w = openWorld(dir)
  try {
    return gymBenchWorld(dir, w.hash, await openGymWorld(dir), worldOracleKnowledge(w), () => w.close())
  } catch (e) {
    w.close()
    throw e
  }
}
