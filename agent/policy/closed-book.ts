// agent/policy/closed-book: the closed-book baseline — the chat model answers from its own knowledge, no tools.
// It replaces the env's tool-use system prompt with its own; env corrections (e.g. a missing <answer>) are passed on.
import type { ChatMessage, Policy } from '../../gym'
import type { ChatClient } from './chat-client'
import { toOpenAiMessages } from './messages'
import type { RecordedTurn } from './openai'
import { afterInitial, questionOf } from './tool-call-format'

export const CLOSED_BOOK_SYSTEM =
  'Answer the question from your own knowledge; you have no tools. Give a short answer (an entity, a name, a number or a date) ' +
  'and write it as <answer>...</answer>.'

export class ClosedBookPolicy implements Policy {
  readonly name: string
  constructor(private readonly client: ChatClient) {
    this.name = `closed-book:${client.options.model}`
  }

  async act(conversation: ChatMessage[], ctx?: { qaId?: string; signal?: AbortSignal }): Promise<RecordedTurn> {
    const messages: ChatMessage[] = [
      { role: 'system', content: CLOSED_BOOK_SYSTEM },
      { role: 'user', content: `Question: ${questionOf(conversation)}` },
      ...afterInitial(conversation),
    ]
    const { message, record } = await this.client.complete(toOpenAiMessages(messages, 'hermes'), { callKey: `${ctx?.qaId ?? ''}#${conversation.length}`, signal: ctx?.signal })
    return { text: message.content ?? '', usage: { promptTokens: record.promptTokens, completionTokens: record.completionTokens }, call: record }
  }
}
