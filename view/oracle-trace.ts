// view/oracle-trace: the oracle's trajectory for one question, played live through the real env and the world's own
// search engine (the same path as the build's oracle check), recorded by the one turn loop (runEpisode) in the bench's
// trajectory-record shape.
import { ORACLE_GYM_OPTIONS, oraclePolicy, runEpisode, worldOracleKnowledge, type OracleKnowledge, type TrajectoryRecord } from '../agent'
import { makeEnv, openGymWorld, scoreAnswer, type GymWorld } from '../gym'
import type { Qa } from '../world'
import type { WorldData } from './world-data'

export class OracleTracer {
  private gym: Promise<GymWorld> | null = null
  private knowledge: OracleKnowledge | null = null
  private readonly cache = new Map<string, TrajectoryRecord>()

  constructor(private readonly data: WorldData) {}

  async trace(qa: Qa): Promise<TrajectoryRecord> {
    const hit = this.cache.get(qa.id)
    if (hit) return hit
    this.gym ??= openGymWorld(this.data.world.dir)
    const world = await this.gym
    this.knowledge ??= worldOracleKnowledge(this.data.world)
    const env = makeEnv(world, qa, ORACLE_GYM_OPTIONS)
    const policy = oraclePolicy(qa, this.knowledge)
    const t0 = performance.now()
    const rec = await runEpisode(qa, env, policy, { scorer: scoreAnswer })
    rec.latencyMs = performance.now() - t0
    // Why the oracle gave up, when it did (its own plan's failure; runEpisode records errors of the loop itself).
    if (policy.episode.failure !== undefined) rec.error ??= policy.episode.failure
    this.cache.set(qa.id, rec)
    return rec
  }

  async close(): Promise<void> {
    if (this.gym) await (await this.gym).close()
  }
}
