// infra/engine/server/completions: POST /v1/completions with TOKEN-ID prompts, the shape vLLM and SGLang serve for
// RL samplers — prompt: number[] (one prompt), n, max_tokens, temperature, top_p, top_k, seed, logprobs — answering
// each choice with its text, `token_ids` (every sampled id, the final stop id included) and per-token log-probs
// under the model at temperature 1 (`logprobs.token_logprobs`, tokens as "token_id:N" like vLLM's
// return_tokens_as_token_ids). Validation is strict (unknown keys rejected), errors in OpenAI's JSON shape.
import { sha256 } from '../../hash'
import { ApiError } from './api-error'
import type { ChatService } from './chat-service'

export interface TokenCompletionRequest {
  model?: string
  prompt: number[]
  n: number
  maxTokens: number
  temperature: number
  topP: number
  topK: number
  seed?: number
}

const KNOWN = new Set(['model', 'prompt', 'n', 'max_tokens', 'temperature', 'top_p', 'top_k', 'seed', 'logprobs', 'stream', 'return_tokens_as_token_ids'])

function num(body: Record<string, unknown>, key: string, lo: number, hi: number, def: number, int = false): number {
  const v = body[key]
  if (v === undefined || v === null) return def
  if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi || (int && !Number.isInteger(v)))
    throw new ApiError(400, 'invalid_value', `'${key}' must be ${int ? 'an integer' : 'a number'} in [${lo}, ${hi}]`, key)
  return v
}

export function parseTokenCompletionRequest(body: unknown, vocabSize: number, maxN: number): TokenCompletionRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError(400, 'invalid_type', 'the request body must be a JSON object', 'body')
  const b = body as Record<string, unknown>
  for (const k of Object.keys(b)) if (!KNOWN.has(k)) throw new ApiError(400, 'unknown_parameter', `unknown parameter '${k}'`, k)
  if (b.stream === true) throw new ApiError(400, 'unsupported_parameter', 'streaming is not supported; send stream: false', 'stream')
  const p = b.prompt
  if (!Array.isArray(p) || p.length === 0 || !p.every((x) => Number.isInteger(x) && x >= 0 && x < vocabSize))
    throw new ApiError(400, 'invalid_value', `'prompt' must be a non-empty array of token ids in [0, ${vocabSize}) (this endpoint takes token ids, not text)`, 'prompt')
  if (b.model !== undefined && typeof b.model !== 'string') throw new ApiError(400, 'invalid_type', "'model' must be a string", 'model')
  const req: TokenCompletionRequest = {
    prompt: p as number[],
    n: num(b, 'n', 1, maxN, 1, true),
    maxTokens: num(b, 'max_tokens', 1, 1 << 20, 16, true),
    temperature: num(b, 'temperature', 0, 2, 1),
    topP: num(b, 'top_p', 0, 1, 1),
    topK: num(b, 'top_k', -1, 1 << 20, 0, true),
  }
  if (req.topK < 0) req.topK = 0
  if (b.model !== undefined) req.model = b.model as string
  if (b.seed !== undefined && b.seed !== null) req.seed = num(b, 'seed', 0, 2 ** 31 - 1, 0, true)
  return req
}

/** Sample through the chat service's generator and queue (same weights, same serialisation as chat); `signal` (the
 *  client's connection) drops the request while queued and stops its generation while it samples. */
export async function completeTokens(service: ChatService, req: TokenCompletionRequest, signal?: AbortSignal) {
  const o = service.opts
  const useAdapter = service.resolveModelName(req.model)
  const room = o.maxContext - req.prompt.length
  if (room < 1) throw new ApiError(400, 'context_length_exceeded', `the prompt has ${req.prompt.length} tokens; the model's context is ${o.maxContext}`, 'prompt')
  const seed = req.seed ?? service.drawSeed()
  const samples = await service.queue.run(() =>
    o.generator.generate({ promptIds: req.prompt, n: req.n, maxTokens: Math.min(req.maxTokens, room), temperature: req.temperature, topP: req.topP, topK: req.topK, seed, stopTokenIds: o.tokenizer.special.stop, stopStrings: [], useAdapter }, signal),
    signal,
  )
  const id = `cmpl-${sha256(`${o.seed ?? 0}:${seed}:${req.prompt.length}:${req.prompt.slice(-8).join(',')}`).slice(0, 24)}`
  let completionTokens = 0
  const choices = samples.map((s, index) => {
    completionTokens += s.tokenIds.length
    return {
      index,
      text: o.tokenizer.decode(s.tokenIds, { skipSpecialTokens: true }),
      token_ids: s.tokenIds,
      logprobs: { tokens: s.tokenIds.map((t) => `token_id:${t}`), token_logprobs: s.logprobs, top_logprobs: null, text_offset: null },
      finish_reason: s.finish,
    }
  })
  return {
    id,
    object: 'text_completion',
    created: Math.floor(Date.now() / 1000),
    model: useAdapter && o.adapterId ? o.adapterId : o.modelId,
    choices,
    usage: { prompt_tokens: req.prompt.length, completion_tokens: completionTokens, total_tokens: req.prompt.length + completionTokens },
  }
}
