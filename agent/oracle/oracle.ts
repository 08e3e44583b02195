// agent/oracle/oracle: the oracle Policy — drives oraclePlan through the env's own tools (hermes protocol, or the
// search-r1 tags) and answers with what it read; runOracle plays one episode and says why it failed, if it did.
// Proves a QA solvable, and writes the SFT warm start's demonstrations in either text protocol.
import { scoreAnswer, type Budgets, type GymEnv, type GymOptionsJson } from '../../gym'
import type { ChatMessage, Policy, StopReason, TextProtocolName } from '../../gym'
import { AgentError } from '../../infra/errors'
import { runEpisode } from '../rollout/episode'
import type { Qa } from '../../world'
import { OracleFailure, oraclePlan, type OracleCall, type OracleKnowledge, type OraclePlanOptions } from './oracle-plan'

export type { OracleKnowledge } from './oracle-plan'

/** One episode of the oracle: call next(observationText) per turn; `failure` says why it gave up. */

/** One tool call as the protocol's assistant text. */
export function oracleCallText(call: OracleCall, protocol: TextProtocolName, title?: string): string {
  if (protocol === 'hermes') {
    if (call.name === 'access' && title !== undefined) return `<tool_call>\n${JSON.stringify({ ...call, arguments: { ...call.arguments, url: title } })}\n</tool_call>`
    return `<tool_call>\n${JSON.stringify(call)}\n</tool_call>`
  }
  if (call.name === 'search') return `<search> ${call.arguments.query} </search>`
  // Page k > 1 of a paged document: search-r1 has no argument slot, so the URL carries it (`url#page=k`, gym/README).
  const page = call.arguments.page
  return `<access> ${title ?? call.arguments.url}${page !== undefined && page > 1 ? `#page=${page}` : ''} </access>`
}

/** The text as the gym renders it without the `leadSpace` option (gym/env leadSpaced: a space at the start of every
 *  line and after a snippet's leading ellipsis): the plan reads result headers and page lines at line starts. A gym
 *  text without that option has no line starting with a space, so this leaves it as it is. */
function withoutLeadSpace(text: string): string {
  return text.replace(/(^|\n|…) (?=[^\s…])/g, '$1')
}

/** The tool output inside an observation message: hermes sends it as a tool message; search-r1 wraps it in
 *  <information> tags in a user message. Search results then list `URL: u` lines, which the plan reads. */
export function oracleObservation(last: ChatMessage | undefined, protocol: TextProtocolName): string {
  if (!last) return ''
  if (protocol === 'hermes') return last.role === 'tool' ? withoutLeadSpace(last.content) : ''
  if (last.role !== 'user') return ''
  const m = /^\s*<information>([\s\S]*)<\/information>\s*$/.exec(last.content)
  if (!m) return ''
  // search-r1 renders a result as `Doc i(Title: t) URL: u`: put each URL on a line of its own as hermes does.
  return withoutLeadSpace(m[1]).replace(/^(Doc \d+\(Title: .*\)) URL: (\S+)$/gm, '$1\nURL: $2')
}

export class OracleEpisode {
  failure?: string
  private readonly gen: Generator<OracleCall, string, string>
  private started = false
  private finished = false

  /** URL → title of the search results seen so far (accessByTitle: the oracle opens pages by title). */
  private readonly titles = new Map<string, string>()

  constructor(
    qa: Qa,
    k: OracleKnowledge,
    opts?: OraclePlanOptions,
    private readonly protocol: TextProtocolName = 'hermes',
    private readonly accessByTitle = false,
  ) {
    this.gen = oraclePlan(qa, k, opts)
  }

  /** The next assistant turn given the content of the last tool observation ('' before the first). */
  next(observation: string): string {
    if (this.finished) return '<answer>done</answer>'
    try {
      if (this.accessByTitle)
        // Result headers: `Doc i(Title: t)` (search-r1, URL moved to its own line) or `[i] t` (hermes), then `URL: u`.
        for (const m of observation.matchAll(/^(?:Doc \d+\(Title: (.*)\)|\[\d+\] (.*))\nURL: (\S+)$/gm)) {
          const url = m[3]
          if (!this.titles.has(url)) this.titles.set(url, m[1] ?? m[2])
        }
      const r = this.started ? this.gen.next(observation) : this.gen.next('')
      this.started = true
      if (r.done) {
        this.finished = true
        // search-r1 writes its tags with spaces inside (`<answer> Beijing </answer>`, Search-R1's own example), so
        // the answer's words are tokenised as they are in the text it was read from.
        return this.protocol === 'search-r1' ? `<answer> ${r.value} </answer>` : `<answer>${r.value}</answer>`
      }
      const title = this.accessByTitle && r.value.name === 'access' ? this.titles.get(r.value.arguments.url) : undefined
      return oracleCallText(r.value, this.protocol, title)
    } catch (e) {
      if (!(e instanceof OracleFailure)) throw e
      this.failure = e.message
      this.finished = true
      return '<answer>the oracle could not solve this question</answer>'
    }
  }
}

/** The oracle as a Policy for one question (the conversation's last tool message is its observation). */
export function oraclePolicy(
  qa: Qa,
  k: OracleKnowledge,
  opts?: OraclePlanOptions,
  protocol: TextProtocolName = 'hermes',
  /** Open pages by the title of the search result (the env's accessByTitle option) instead of the URL. */
  accessByTitle = false,
): Policy & { episode: OracleEpisode } {
  const episode = new OracleEpisode(qa, k, opts, protocol, accessByTitle)
  return {
    name: 'oracle',
    episode,
    async act(conversation: ChatMessage[]) {
      return { text: episode.next(oracleObservation(conversation[conversation.length - 1], protocol)) }
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

/** The oracle's budgets, wherever it plays (the world's oracle check, `bench run --policy oracle`, the viewer's trace):
 *  it proves solvability with the tools, not within a model's turn limit (the paper's 16 turns are reported apart). */
export const ORACLE_BUDGETS: Budgets = { maxTurns: 1000, maxResponseTokens: 100_000, maxContextTokens: 100_000_000 }
/** The oracle's gym options: its budgets, the rest the gym's defaults. */
export const ORACLE_GYM_OPTIONS: GymOptionsJson = { budgets: ORACLE_BUDGETS }

/** Play one episode of the oracle in `env` (a fresh env for `qa`) through the one turn loop, runEpisode. */
export async function runOracle(env: GymEnv, qa: Qa, k: OracleKnowledge, opts?: OraclePlanOptions): Promise<OracleRun> {
  const policy = oraclePolicy(qa, k, opts)
  const rec = await runEpisode(qa, env, policy, { scorer: scoreAnswer })
  // The oracle plays a local env: an error there is a bug to surface, not an episode to score.
  if (rec.status !== 'ok') throw new AgentError('oracle.episode', `the oracle's episode for ${qa.id} failed: ${rec.error ?? rec.status}`)
  const r = rec.turns.at(-1)
  if (!r) return { qaId: qa.id, f1: 0, reward: 0, turns: 0, failure: 'the episode never ended' }
  const f1 = r.metrics.f1 ?? 0
  let failure = policy.episode.failure
  if (!failure && rec.stopReason !== 'answer') failure = `the env stopped the episode: ${rec.stopReason}${r.logs.stop ? ` (${r.logs.stop})` : ''}`
  if (!failure && f1 < 1) failure = `answered ${JSON.stringify(r.logs.answer ?? '')} but the gold is ${JSON.stringify(qa.answer)} (F1 ${f1.toFixed(3)})`
  return { qaId: qa.id, f1, reward: r.reward, turns: r.metrics['episode/turns'] ?? r.metrics.turn ?? 0, stopReason: rec.stopReason ?? undefined, failure }
}
