// agent/rollout/episode: run one question to the end — env initial observation, policy turns, env steps — and record
// everything (turns, tool calls, observations, tokens, latency, endpoint failures) as a TrajectoryRecord.
// It runs until the env says terminated or truncated — the env's budgets (gym/wrappers/budgets) are the only turn limit;
// it scores with the injected gym scorer; it does not know which policy or world it runs.
import type { ChatMessage, Env, Policy, StepResult, StopReason } from '../../gym'
import type { Qa } from '../../world'
import { ContextOverflowError, EndpointError } from '../policy/chat-client'
import type { RecordedTurn } from '../policy/openai'
import { AgentError, oneLine } from '../../infra/errors'
import { addStepCounts, emptyCounts, finalAnswer, stepSignals } from './env-stats'
import type { AnswerJudge, AnswerScorer, InfraCounts, TrajectoryRecord, TurnRecord } from './types'

export interface EpisodeOptions {
  scorer: AnswerScorer
  judge?: AnswerJudge
  signal?: AbortSignal
}

function emptyInfra(): InfraCounts {
  return { requests: 0, attempts: 0, rateLimited: 0, serverErrors: 0, networkErrors: 0, timeouts: 0 }
}

function addCall(infra: InfraCounts, call: RecordedTurn['call']): void {
  if (!call) return
  infra.requests++
  infra.attempts += call.attempts
  infra.rateLimited += call.rateLimited
  infra.serverErrors += call.serverErrors
  infra.networkErrors += call.networkErrors
  infra.timeouts += call.timeouts
}

/** End the episode from outside (a context overflow): the gym env's own finish() when it has one (its reward spec
 * scores "no answer"), else a plain truncated step. */
async function endFromOutside(env: Env, reason: StopReason, note: string): Promise<StepResult> {
  const finish = (env as { finish?: (r: StopReason, n?: string) => Promise<StepResult> }).finish
  if (typeof finish === 'function') return finish.call(env, reason, note)
  return { observation: [], reward: 0, terminated: false, truncated: true, stopReason: reason, metrics: {}, logs: { stop: note } }
}

/** Not a budget: a net under an env that never ends its episodes (one built without gym/make-env's budgets wrapper,
 *  whose turn cap is 1,000). Reaching it is an error of the env, recorded as the episode's error. */
const RUNAWAY_ENV_STEPS = 100_000

export function goldsOf(qa: Qa): string[] {
  return [qa.answer, ...qa.aliases.filter((a) => a !== qa.answer)]
}

export async function runEpisode(qa: Qa, env: Env, policy: Policy, opts: EpisodeOptions): Promise<TrajectoryRecord> {
  const t0 = performance.now()
  const golds = goldsOf(qa)
  const counts = emptyCounts()
  const infra = emptyInfra()
  const turns: TurnRecord[] = []
  const tokens = { prompt: 0, completion: 0 }
  let cost: number | undefined
  let initial: ChatMessage[] = []
  let last: StepResult | undefined
  let status: TrajectoryRecord['status'] = 'ok'
  let error: string | undefined

  try {
    initial = await env.initialObservation()
    const conversation: ChatMessage[] = [...initial]
    for (let i = 0; ; i++) {
      if (i === RUNAWAY_ENV_STEPS)
        throw new AgentError('episode.runaway_env', `the env of ${qa.id} neither terminated nor truncated in ${RUNAWAY_ENV_STEPS} steps: build it with makeEnv (its budgets end every episode)`)
      const tm = performance.now()
      const turn: RecordedTurn = await policy.act(conversation, { qaId: qa.id, signal: opts.signal })
      const latencyMs = performance.now() - tm
      addCall(infra, turn.call)
      const promptTokens = turn.usage?.promptTokens ?? 0
      const completionTokens = turn.usage?.completionTokens ?? 0
      tokens.prompt += promptTokens
      tokens.completion += completionTokens
      if (turn.call?.cost !== undefined) cost = (cost ?? 0) + turn.call.cost
      const te = performance.now()
      const step = await env.step({ text: turn.text, tool_calls: turn.tool_calls, numTokens: completionTokens || undefined })
      const envMs = performance.now() - te
      addStepCounts(counts, step)
      const assistant: ChatMessage = { role: 'assistant', content: turn.text }
      if (turn.tool_calls && turn.tool_calls.length > 0) assistant.tool_calls = turn.tool_calls
      conversation.push(assistant, ...step.observation)
      const rec: TurnRecord = { text: turn.text, promptTokens, completionTokens, latencyMs, envMs, observation: step.observation, reward: step.reward, metrics: step.metrics, logs: step.logs }
      if (turn.tool_calls) rec.tool_calls = turn.tool_calls
      const signals = stepSignals(step)
      if (signals) rec.signals = signals
      if (turn.call) rec.call = turn.call
      if (turn.tokens) rec.tokens = turn.tokens
      if (turn.logprobs) rec.logprobs = turn.logprobs
      turns.push(rec)
      last = step
      if (step.terminated || step.truncated) break
    }
  } catch (e) {
    if (e instanceof ContextOverflowError) {
      // The model's conversation outgrew its context: a truncated episode, scored like any other ("no answer").
      addCall(infra, e.record)
      try {
        last = await endFromOutside(env, 'context', oneLine(e))
        // The env's end-of-episode reward (e.g. a format penalty) belongs to the last turn, as with a budget stop.
        const tail = turns[turns.length - 1]
        if (tail) {
          tail.reward += last.reward
          tail.logs = { ...tail.logs, ...last.logs }
        }
      } catch (e2) {
        status = 'error'
        error = oneLine(e2)
      }
    } else if (e instanceof EndpointError) {
      status = 'infra_error'
      addCall(infra, e.record)
    } else status = 'error'
    error = oneLine(e)
  }

  const prediction = last && (last.terminated || last.truncated) ? finalAnswer(last) : null
  // An episode cut by an endpoint failure or an error has no stop reason of its own (its status says why); one that is
  // 'ok' ended in the env (the loop leaves only then), which names its reason.
  const stopReason = status !== 'ok' ? null : (last?.stopReason ?? null)
  const { f1, em } = prediction === null ? { f1: 0, em: 0 } : opts.scorer(prediction, golds)
  const rec: TrajectoryRecord = {
    v: 1,
    id: qa.id,
    type: qa.type,
    hops: qa.hops,
    question: qa.question,
    golds,
    status,
    prediction,
    stopReason,
    formatValid: status === 'ok' && prediction !== null,
    f1,
    em,
    initial,
    turns,
    counts,
    tokens,
    infra,
    latencyMs: 0,
  }
  if (error !== undefined) rec.error = error
  if (opts.judge && status === 'ok') {
    try {
      // The judge's own cost stays in judge.call; `cost` is the evaluated model's.
      rec.judge = await opts.judge.judge(qa.id, qa.question, golds, prediction)
    } catch (e) {
      rec.judgeError = oneLine(e)
    }
  }
  if (cost !== undefined) rec.cost = cost
  rec.latencyMs = performance.now() - t0
  return rec
}
