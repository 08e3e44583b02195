// agent/policy/oracle: the oracle Policy — drives oraclePlan through the env's own tools (hermes protocol) and
// answers with what it read; runOracle plays one episode and says why it failed, if it did. Proves a QA solvable.
import type { GymEnv } from '../../gym'
import type { ChatMessage, Policy, StopReason } from '../../gym'
import type { Qa } from '../../world'
import { OracleFailure, oraclePlan, type OracleCall, type OracleKnowledge, type OraclePlanOptions } from './oracle-plan'

export type { OracleKnowledge } from './oracle-plan'

/** One episode of the oracle: call next(observationText) per turn; `failure` says why it gave up. */
export class OracleEpisode {
  failure?: string
  private readonly gen: Generator<OracleCall, string, string>
  private started = false
  private finished = false

  constructor(qa: Qa, k: OracleKnowledge, opts?: OraclePlanOptions) {
    this.gen = oraclePlan(qa, k, opts)
  }

  /** The next assistant turn given the content of the last tool observation ('' before the first). */
  next(observation: string): string {
    if (this.finished) return '<answer>done</answer>'
    try {
      const r = this.started ? this.gen.next(observation) : this.gen.next('')
      this.started = true
      if (r.done) {
        this.finished = true
        return `<answer>${r.value}</answer>`
      }
      return `<tool_call>\n${JSON.stringify(r.value)}\n</tool_call>`
    } catch (e) {
      if (!(e instanceof OracleFailure)) throw e
      this.failure = e.message
      this.finished = true
      return '<answer>the oracle could not solve this question</answer>'
    }
  }
}

/** The oracle as a Policy for one question (the conversation's last tool message is its observation). */
export function oraclePolicy(qa: Qa, k: OracleKnowledge, opts?: OraclePlanOptions): Policy & { episode: OracleEpisode } {
  const episode = new OracleEpisode(qa, k, opts)
  return {
    name: 'oracle',
    episode,
    async act(conversation: ChatMessage[]) {
      const last = conversation[conversation.length - 1]
      return { text: episode.next(last?.role === 'tool' ? last.content : '') }
    },
  }
}

export interface OracleRun {
  qaId: string
  f1: number
  reward: number
  turns: number
  stopReason?: StopReason
  /** Why the oracle failed (its own check, or the env's score below 1). */
  failure?: string
}

/** Play one episode of the oracle in `env` (a fresh env for `qa`). */
export async function runOracle(env: GymEnv, qa: Qa, k: OracleKnowledge, opts?: OraclePlanOptions): Promise<OracleRun> {
  const policy = oraclePolicy(qa, k, opts)
  const conversation: ChatMessage[] = await env.initialObservation()
  for (let guard = 0; guard < 100_000; guard++) {
    const turn = await policy.act(conversation)
    const r = await env.step(turn.text)
    conversation.push({ role: 'assistant', content: turn.text }, ...r.observation)
    if (r.terminated || r.truncated) {
      const f1 = r.metrics.f1 ?? 0
      let failure = policy.episode.failure
      if (!failure && r.stopReason !== 'answer') failure = `the env stopped the episode: ${r.stopReason}${r.logs.stop ? ` (${r.logs.stop})` : ''}`
      if (!failure && f1 < 1) failure = `answered ${JSON.stringify(r.logs.answer ?? '')} but the gold is ${JSON.stringify(qa.answer)} (F1 ${f1.toFixed(3)})`
      return { qaId: qa.id, f1, reward: r.reward, turns: r.metrics['episode/turns'] ?? r.metrics.turn ?? 0, stopReason: r.stopReason, failure }
    }
  }
  return { qaId: qa.id, f1: 0, reward: 0, turns: 0, failure: 'the episode never ended' }
}
