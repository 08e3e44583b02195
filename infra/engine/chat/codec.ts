// infra/engine/chat/codec: the HTTP-free chat path of the engine — render a conversation with the model's chat
// template → encode to token ids; extend an id sequence with the template's text for new (tool / user) messages
// WITHOUT re-encoding what came before (token in, token out); cut a sampled completion at its stop id / stop
// strings and parse its Hermes tool calls. Used by `model serve` (server/chat-service) and the in-process engine
// policy (agent/policy/engine-policy). Knows nothing of HTTP, envs or rewards.
import { EngineError } from '../../errors'
import type { ChatTemplate, TemplateMessage, ToolSpec } from '../chat-template'
import { parseHermesToolCalls, type HermesParse } from './hermes'
import type { TextTokenizer } from '../tokenizer'

export interface RenderedPrompt {
  text: string
  ids: number[]
}

export interface CutCompletion {
  /** Completion ids up to and including the token that completed a stop string (the final stop id dropped). */
  ids: number[]
  logprobs: number[]
  /** Visible text (special tokens skipped), cut before the earliest stop string. */
  text: string
  finish: 'stop' | 'length'
}

/** Texts whose ids the codec remembers (the group's shared prompt and repeated tool results); cleared when full. */
export const ENCODE_MEMO_SIZE = 4096

export class ChatCodec {
  private readonly stopIds: Set<number>
  /** text → ids of recent encodes: the N rollouts of a GRPO group render the same prompt and often the same tool
   *  results, and encoding is most of a turn's bookkeeping. Pure (same text, same ids); callers get a copy. */
  private readonly memo = new Map<string, number[]>()

  constructor(
    readonly tokenizer: TextTokenizer,
    readonly template: ChatTemplate,
  ) {
    this.stopIds = new Set(tokenizer.special.stop)
  }

  /** The prompt of a conversation (generation prompt appended) as text and ids. */
  renderPrompt(messages: TemplateMessage[], opts: { tools?: ToolSpec[]; enableThinking?: boolean } = {}): RenderedPrompt {
    const text = this.template.render({ messages, tools: opts.tools, addGenerationPrompt: true, enableThinking: opts.enableThinking })
    return { text, ids: this.encode(text) }
  }

  /** tokenizer.encode through the memo (a fresh array each call). */
  encode(text: string): number[] {
    let ids = this.memo.get(text)
    if (ids === undefined) {
      ids = this.tokenizer.encode(text)
      if (this.memo.size >= ENCODE_MEMO_SIZE) this.memo.clear()
      this.memo.set(text, ids)
    }
    return ids.slice()
  }

  /**
   * The ids to append after a sampled assistant turn so that the sequence continues with `newMessages` (tool results,
   * corrective user notes) and the next generation prompt: the template's text after the assistant's end-of-turn
   * token, encoded on its own. `conversation` holds everything up to and including that assistant message.
   * `endedWithStop` false (the turn was cut by max tokens): the end-of-turn id is prepended. Throws when the
   * template rewrites earlier turns (then no append-only continuation exists).
   */
  continuation(conversation: TemplateMessage[], newMessages: TemplateMessage[], opts: { tools?: ToolSpec[]; enableThinking?: boolean; endedWithStop: boolean }): number[] {
    const before = this.template.render({ messages: conversation, tools: opts.tools, addGenerationPrompt: false, enableThinking: opts.enableThinking })
    const after = this.template.render({ messages: [...conversation, ...newMessages], tools: opts.tools, addGenerationPrompt: true, enableThinking: opts.enableThinking })
    if (!after.startsWith(before))
      throw new EngineError('engine.chat_not_append_only', 'the chat template rewrites earlier turns when messages are added; token-in/token-out rollouts need an append-only template')
    const eot = this.endOfTurnText()
    const at = before.lastIndexOf(eot)
    if (at < 0) throw new EngineError('engine.chat_no_end_of_turn', `the rendered assistant turn does not end with ${JSON.stringify(eot)}`)
    const tail = before.slice(at + eot.length) + after.slice(before.length)
    const ids = this.encode(tail)
    return opts.endedWithStop ? ids : [this.endOfTurnId(), ...ids]
  }

  /** The id that ends an assistant turn (<|im_end|> for ChatML models, else eos). */
  endOfTurnId(): number {
    return this.tokenizer.special.imEnd ?? this.tokenizer.special.eos
  }

  endOfTurnText(): string {
    return this.tokenizer.decode([this.endOfTurnId()])
  }

  isStopId(id: number): boolean {
    return this.stopIds.has(id)
  }

  /** Where the visible text ends: before a final stop id, and before the earliest stop string. */
  cut(sample: { tokenIds: number[]; logprobs: number[]; finish: 'stop' | 'length' }, stopStrings: readonly string[] = []): CutCompletion {
    const tok = this.tokenizer
    let ids = sample.tokenIds
    let logprobs = sample.logprobs
    let finish = sample.finish
    if (ids.length > 0 && this.stopIds.has(ids[ids.length - 1])) {
      ids = ids.slice(0, -1)
      logprobs = logprobs.slice(0, -1)
      finish = 'stop'
    }
    const decode = (xs: number[]) => tok.decode(xs, { skipSpecialTokens: true })
    let text = decode(ids)
    let cut = -1
    let hit = ''
    for (const s of stopStrings) {
      const at = text.indexOf(s)
      if (at >= 0 && (cut < 0 || at < cut)) {
        cut = at
        hit = s
      }
    }
    if (cut >= 0) {
      text = text.slice(0, cut)
      finish = 'stop'
      // The reported tokens end with the first one whose text completes the stop string (binary search on prefixes).
      let lo = 1
      let hi = ids.length
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if (decode(ids.slice(0, mid)).includes(hit)) hi = mid
        else lo = mid + 1
      }
      ids = ids.slice(0, lo)
      logprobs = logprobs.slice(0, lo)
    }
    return { ids, logprobs, text, finish }
  }

  /** Hermes tool calls of a completion's text (malformed blocks stay content). */
  parseToolCalls(text: string, idSalt = ''): HermesParse {
    return parseHermesToolCalls(text, idSalt)
  }
}
