// view/oracle-trace: the oracle's trajectory for one question, played live through the real env and the world's own
// search engine (the same path as the build's oracle check), recorded in the bench's trajectory-record shape.
import { oraclePolicy, worldOracleKnowledge, type OracleKnowledge, type TrajectoryRecord, type TurnRecord } from '../agent'
import { makeEnv, openGymWorld, type ChatMessage, type GymWorld } from '../gym'
import type { Qa } from '../world'
import type { WorldData } from './world-data'

/** The oracle check's budgets: it proves solvability with the tools, not within the paper's turn limit. */
const ORACLE_GYM = { budgets: { maxTurns: 1000, maxResponseTokens: 100_000, maxContextTokens: 100_000_000 } }

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
    const env = makeEnv(world, qa, ORACLE_GYM)
    const policy = oraclePolicy(qa, this.knowledge)
    const initial: ChatMessage[] = await env.initialObservation()
    const conversation = [...initial]
    const turns: TurnRecord[] = []
    const t0 = performance.now()
    let rec: TrajectoryRecord | undefined
    for (let guard = 0; guard < 1000 && !rec; guard++) {
      const act = await policy.act(conversation)
      const e0 = performance.now()
      const r = await env.step(act.text)
      turns.push({ text: act.text, promptTokens: 0, completionTokens: 0, latencyMs: 0, envMs: performance.now() - e0, observation: r.observation, reward: r.reward, metrics: r.metrics, logs: r.logs })
      conversation.push({ role: 'assistant', content: act.text }, ...r.observation)
      if (r.terminated || r.truncated) {
        const f1 = r.metrics.f1 ?? 0
        rec = {
          v: 1,
          id: qa.id,
          type: qa.type,
          hops: qa.hops,
          question: qa.question,
          golds: [...new Set([qa.answer, ...qa.aliases])],
          status: 'ok',
          error: policy.episode.failure,
          prediction: r.logs.answer ?? null,
          stopReason: r.stopReason ?? null,
          formatValid: r.stopReason === 'answer',
          f1,
          em: r.metrics.em ?? (f1 === 1 ? 1 : 0),
          initial,
          turns,
          counts: { turns: turns.length, search: 0, access: 0, toolErrors: 0, toolTimeouts: 0, toolRateLimited: 0, malformed: 0 },
          tokens: { prompt: 0, completion: 0 },
          infra: { requests: 0, attempts: 0, rateLimited: 0, serverErrors: 0, networkErrors: 0, timeouts: 0 },
          latencyMs: performance.now() - t0,
        }
      }
    }
    if (!rec) throw new Error(`the oracle's episode for ${qa.id} never ended`)
    this.cache.set(qa.id, rec)
    return rec
  }

  async close(): Promise<void> {
    if (this.gym) await (await this.gym).close()
  }
}
