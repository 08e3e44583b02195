// agent/policy/one-shot-rag: the one-shot RAG baseline — search the question verbatim, open the top documents, put
// them in context and let the chat model answer once. Tool calls go through the env, so tools, budgets and counts
// are the same as for any agent. It reads URLs out of the search observation text, whatever its layout.
import type { ChatMessage, ChatProtocolName, Policy } from '../../gym'
import type { ChatClient } from './chat-client'
import { toOpenAiMessages } from './messages'
import type { RecordedTurn } from './openai'
import { afterInitial, questionOf, toolCallTurn } from './tool-call-format'

export const RAG_SYSTEM =
  'Answer the question using the documents below. Give a short answer (an entity, a name, a number or a date) and write it as <answer>...</answer>.'

export interface OneShotRagOptions {
  protocol: ChatProtocolName
  /** How many top search results to open with access (0: answer from the search snippets). */
  docs: number
  /** Characters kept per document in the prompt. */
  maxDocChars: number
}

const URL_RE = /https?:\/\/[^\s"'<>)\]}]+/g

export function urlsIn(text: string): string[] {
  const seen = new Set<string>()
  const out: string[] = []
  for (const m of text.matchAll(URL_RE)) {
    const u = m[0].replace(/[.,;:]+$/, '')
    if (!seen.has(u)) {
      seen.add(u)
      out.push(u)
    }
  }
  return out
}

/** The env's observation messages that followed assistant turn `i` (0-based) in the episode. */
function observationAfter(history: ChatMessage[], i: number): string {
  let seen = -1
  const parts: string[] = []
  for (const m of history) {
    if (m.role === 'assistant') {
      seen++
      continue
    }
    if (seen === i) parts.push(m.content)
  }
  return parts.join('\n')
}

export class OneShotRagPolicy implements Policy {
  readonly name: string
  constructor(
    private readonly client: ChatClient,
    private readonly opts: OneShotRagOptions,
  ) {
    this.name = `one-shot-rag:${client.options.model}`
  }

  async act(conversation: ChatMessage[], ctx?: { qaId?: string; signal?: AbortSignal }): Promise<RecordedTurn> {
    const question = questionOf(conversation)
    const history = afterInitial(conversation)
    const turn = history.filter((m) => m.role === 'assistant').length
    if (turn === 0) return toolCallTurn(this.opts.protocol, 'search', { query: question }, 'rag_search')
    const urls = urlsIn(observationAfter(history, 0)).slice(0, this.opts.docs)
    if (turn <= urls.length) return toolCallTurn(this.opts.protocol, 'access', { url: urls[turn - 1] }, `rag_access_${turn}`)
    // Answer once, from the opened documents (or the search results when none were opened).
    const docs: string[] = []
    if (urls.length === 0) docs.push(observationAfter(history, 0).slice(0, this.opts.maxDocChars))
    for (let i = 1; i <= urls.length; i++) docs.push(observationAfter(history, i).slice(0, this.opts.maxDocChars))
    const context = docs.map((d, i) => `[${i + 1}] ${d}`).join('\n\n')
    const messages: ChatMessage[] = [
      { role: 'system', content: RAG_SYSTEM },
      { role: 'user', content: `Documents:\n${context}\n\nQuestion: ${question}` },
    ]
    // If the env rejected our first answer turn (e.g. no <answer>), pass that exchange on: the answer turn is
    // assistant turn urls.length + 2 (1-based), after the search and the access turns.
    let seen = 0
    for (const m of history) {
      if (m.role === 'assistant') seen++
      if (seen >= urls.length + 2) messages.push(m.role === 'assistant' ? { role: 'assistant', content: m.content } : { role: 'user', content: m.content })
    }
    const { message, record } = await this.client.complete(toOpenAiMessages(messages, 'hermes'), { callKey: `${ctx?.qaId ?? ''}#${conversation.length}`, signal: ctx?.signal })
    return { text: message.content ?? '', usage: { promptTokens: record.promptTokens, completionTokens: record.completionTokens }, call: record }
  }
}
