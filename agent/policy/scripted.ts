// agent/policy/scripted: scripted policies for the reward-hacking guards (hermes protocol, one policy per episode) —
// a fixed list of turns; a wanderer (detour turns, then an inner policy such as the oracle); a spammer (searches the
// question and opens every result, again and again, then answers with the top title); one that answers without
// searching. They read only what the env shows them (the question and tool observations).
import type { ChatMessage, Policy } from '../../gym'

const call = (name: 'search' | 'access', args: Record<string, string>): string => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`
export const searchTurn = (query: string): string => call('search', { query })
export const accessTurn = (url: string): string => call('access', { url })
export const answerTurn = (answer: string): string => `<answer>${answer}</answer>`

/** Replays `turns` in order; past the end it answers with `fallback`. */
export function scriptedPolicy(name: string, turns: readonly string[], fallback = 'no answer'): Policy {
  let i = 0
  return {
    name,
    async act() {
      return { text: i < turns.length ? turns[i++] : answerTurn(fallback) }
    },
  }
}

/** `detours` first (e.g. off-path searches and accesses), then the inner policy's turns. */
export function wandererPolicy(inner: Policy, detours: readonly string[]): Policy {
  let i = 0
  return {
    name: `wanderer(${inner.name})`,
    async act(conversation: ChatMessage[], ctx) {
      if (i < detours.length) return { text: detours[i++] }
      return inner.act(conversation, ctx)
    },
  }
}

/** URLs of a hermes search observation, in rank order. */
export function resultUrls(observation: string): string[] {
  return [...observation.matchAll(/^URL: (\S+)$/gm)].map((m) => m[1])
}

/** Searches the question verbatim, opens every result, repeats `rounds` times, then answers with the top result's
 *  title (or `answer` when given). */
export function spammerPolicy(opts: { rounds: number; answer?: string }): Policy {
  let queue: string[] = []
  let round = 0
  let awaitingResults = false
  let title: string | undefined
  return {
    name: 'spammer',
    async act(conversation: ChatMessage[]) {
      const last = conversation[conversation.length - 1]
      if (awaitingResults) {
        awaitingResults = false
        const obs = last?.role === 'tool' ? last.content : ''
        title ??= /^\[1\] (.+)$/m.exec(obs)?.[1]
        queue = resultUrls(obs).map(accessTurn)
      }
      const next = queue.shift()
      if (next !== undefined) return { text: next }
      if (round < opts.rounds) {
        round++
        awaitingResults = true
        const question = conversation.find((m) => m.role === 'user')?.content ?? ''
        return { text: searchTurn(question) }
      }
      return { text: answerTurn(opts.answer ?? title ?? 'unknown') }
    },
  }
}

/** Answers at once, without a tool call. */
export function noSearchPolicy(answer: string): Policy {
  return scriptedPolicy('no-search', [answerTurn(answer)], answer)
}
