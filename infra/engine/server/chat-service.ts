// infra/engine/server/chat-service: one chat request → one OpenAI chat.completion: render + encode, run the generator
// (serialised), cut stop strings, parse Hermes tool calls (all three through chat/codec), count usage. No HTTP here.
import { Rng } from '../../rng'
import { sha256 } from '../../hash'
import type { ChatTemplate } from '../chat-template'
import { ChatCodec } from '../chat/codec'
import type { TextTokenizer } from '../tokenizer'
import { ApiError } from './api-error'
import { SerialQueue } from './serial-queue'
import type { ChatCompletion, ChatCompletionChoice, ChatGenerator, ChatRequest, ChoiceLogprob } from './types'

export interface ChatServiceOptions {
  /** Id of the base model in /v1/models (requests naming it sample with the adapter off). */
  modelId: string
  /** Id under which the LoRA adapter is served, when one is loaded (requests naming it, or no model, use it). */
  adapterId?: string
  tokenizer: TextTokenizer
  template: ChatTemplate
  generator: ChatGenerator
  /** Prompt + completion tokens the model accepts (max_position_embeddings). */
  maxContext: number
  /** Seed of the stream that draws per-request seeds when a request gives none. */
  seed?: number
  /** Longest prompt text (message contents + tool call arguments, in characters) looked at; a longer one is refused
   * before the template or the tokenizer sees it. Default: maxContext x 8 (text averages 3-5 characters a token). */
  maxPromptChars?: number
}

/** Characters of a request that end up in the prompt: contents, tool call arguments, tool schemas (cheap; no render). */
export function promptChars(req: ChatRequest): number {
  let n = 0
  for (const m of req.messages) {
    n += typeof m.content === 'string' ? m.content.length : 0
    n += typeof m.reasoning_content === 'string' ? m.reasoning_content.length : 0
    for (const tc of m.tool_calls ?? []) {
      const a = tc.function.arguments
      n += tc.function.name.length + (typeof a === 'string' ? a.length : JSON.stringify(a).length)
    }
  }
  if (req.tools && req.toolChoice !== 'none') n += JSON.stringify(req.tools).length
  return n
}

export class ChatService {
  readonly queue = new SerialQueue()
  private readonly seeds: Rng
  private served = 0
  readonly codec: ChatCodec

  constructor(readonly opts: ChatServiceOptions) {
    this.seeds = Rng.derive(opts.seed ?? 0, 'serve')
    this.codec = new ChatCodec(opts.tokenizer, opts.template)
  }

  modelIds(): string[] {
    return this.opts.adapterId ? [this.opts.modelId, this.opts.adapterId] : [this.opts.modelId]
  }

  /** The prompt size refused before rendering or tokenizing (see ChatServiceOptions.maxPromptChars). */
  get maxPromptChars(): number {
    return this.opts.maxPromptChars ?? this.opts.maxContext * 8
  }

  /** One completion; `signal` (the client's connection) drops the request if it fires while it waits its turn, and
   *  stops its generation within one decode step if it fires while it samples. */
  async complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatCompletion> {
    const { tokenizer: tok } = this.opts
    const useAdapter = this.resolveModel(req.model)
    // Size first: a huge prompt is refused from its length alone, before the template or the tokenizer spend seconds.
    const chars = promptChars(req)
    if (chars > this.maxPromptChars)
      throw new ApiError(
        400,
        'context_length_exceeded',
        `the messages hold ${chars} characters; this server reads at most ${this.maxPromptChars} (the model's context is ${this.opts.maxContext} tokens; model serve --max-prompt-chars)`,
        'messages',
      )
    const tools = req.toolChoice === 'none' ? undefined : req.tools
    const { ids: promptIds } = this.codec.renderPrompt(req.messages, { tools, enableThinking: req.enableThinking })
    const room = this.opts.maxContext - promptIds.length
    if (room < 1 || (req.maxTokens > room && req.maxTokensExplicit)) {
      throw new ApiError(
        400,
        'context_length_exceeded',
        `the prompt has ${promptIds.length} tokens and max_tokens is ${req.maxTokens}, but the model's context is ${this.opts.maxContext} tokens; shorten the messages or lower max_tokens`,
        'messages',
      )
    }
    const maxTokens = Math.min(req.maxTokens, room)
    const seed = req.seed ?? this.seeds.int(0, 2 ** 31 - 1)
    const requestNo = this.served++
    const samples = await this.queue.run(() =>
      this.opts.generator.generate({
        promptIds,
        n: req.n,
        maxTokens,
        temperature: req.temperature,
        topP: req.topP,
        topK: req.topK,
        seed,
        stopTokenIds: tok.special.stop,
        stopStrings: req.stop,
        useAdapter,
      }, signal),
      signal,
    )
    const id = `chatcmpl-${sha256(`${this.opts.seed ?? 0}:${requestNo}:${seed}`).slice(0, 24)}`
    let completionTokens = 0
    const choices: ChatCompletionChoice[] = samples.map((sample, index) => {
      completionTokens += sample.tokenIds.length
      const cut = this.codec.cut(sample, req.stop)
      const logprobs = req.logprobs ? { content: cut.ids.map((t, i): ChoiceLogprob => {
        const token = tok.decode([t])
        return { token, logprob: cut.logprobs[i], bytes: tok.tokenBytes(t), top_logprobs: [] }
      }) } : null
      if (tools) {
        const parsed = this.codec.parseToolCalls(cut.text, `${id}:${index}`)
        if (parsed.toolCalls.length > 0) {
          return {
            index,
            message: { role: 'assistant', content: parsed.content.length > 0 ? parsed.content : null, tool_calls: parsed.toolCalls },
            logprobs,
            finish_reason: 'tool_calls',
          }
        }
      }
      return { index, message: { role: 'assistant', content: cut.text }, logprobs, finish_reason: cut.finish }
    })
    return {
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: useAdapter && this.opts.adapterId ? this.opts.adapterId : this.opts.modelId,
      choices,
      usage: { prompt_tokens: promptIds.length, completion_tokens: completionTokens, total_tokens: promptIds.length + completionTokens },
      system_fingerprint: 'searchgym-engine',
    }
  }

  /** Which weights a `model` name selects (public for /v1/completions). */
  resolveModelName(model: string | undefined): boolean {
    return this.resolveModel(model)
  }

  /** A per-request seed when the request gives none. */
  drawSeed(): number {
    return this.seeds.int(0, 2 ** 31 - 1)
  }

  /** Which weights a request's `model` names: the adapter (default when loaded) or the base model. */
  private resolveModel(model: string | undefined): boolean {
    const { modelId, adapterId } = this.opts
    if (model === undefined || model === '') return adapterId !== undefined
    if (model === adapterId) return true
    if (model === modelId) return false
    throw new ApiError(404, 'model_not_found', `model '${model}' is not served here; available: ${this.modelIds().join(', ')}`, 'model')
  }
}
