// infra/engine/server/validate: checks a /v1/chat/completions body and fills OpenAI's defaults. Every problem is an
// ApiError naming the parameter and what to send instead. It does not know the model (context limits come in `limits`).
import type { TemplateMessage, ToolSpec } from '../chat-template'
import { ApiError } from './api-error'
import type { ChatRequest } from './types'

export interface RequestLimits {
  /** Most completions per request. */
  maxN: number
  /** max_tokens when the request gives none (further capped by the context left). */
  defaultMaxTokens: number
}

export const DEFAULT_LIMITS: RequestLimits = { maxN: 16, defaultMaxTokens: 1024 }

const KNOWN = new Set([
  'model', 'messages', 'tools', 'tool_choice', 'n', 'temperature', 'top_p', 'top_k', 'max_tokens', 'max_completion_tokens',
  'stop', 'logprobs', 'top_logprobs', 'seed', 'stream', 'chat_template_kwargs', 'frequency_penalty', 'presence_penalty',
  // accepted and ignored: they do not change what a single local engine does
  'user', 'parallel_tool_calls', 'metadata', 'store', 'stream_options',
])

const bad = (param: string, message: string, code = 'invalid_value') => new ApiError(400, code, message, param)
const unsupported = (param: string, message: string) => new ApiError(400, 'unsupported_parameter', message, param)

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

function optNumber(body: Record<string, unknown>, key: string, min: number, max: number, def: number, opts: { int?: boolean; minExclusive?: boolean } = {}): number {
  const v = body[key]
  if (v === undefined || v === null) return def
  if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(key, `'${key}' must be a number, got ${JSON.stringify(v)}`, 'invalid_type')
  if (opts.int && !Number.isInteger(v)) throw bad(key, `'${key}' must be an integer, got ${v}`, 'invalid_type')
  if (v < min || v > max || (opts.minExclusive && v === min)) {
    throw bad(key, `'${key}' must be ${opts.minExclusive ? '>' : '>='} ${min} and <= ${max}, got ${v}`)
  }
  return v
}

function messageContent(v: unknown, where: string): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'string') return v
  if (Array.isArray(v)) {
    return v
      .map((part, i) => {
        if (isObject(part) && part.type === 'text' && typeof part.text === 'string') return part.text
        throw unsupported(`${where}.content[${i}]`, `only text content parts are supported (got ${JSON.stringify(isObject(part) ? part.type : part)})`)
      })
      .join('')
  }
  throw bad(`${where}.content`, `${where}.content must be a string or an array of text parts`, 'invalid_type')
}

function parseMessages(v: unknown): TemplateMessage[] {
  if (!Array.isArray(v) || v.length === 0) throw bad('messages', "'messages' must be a non-empty array of {role, content}", 'invalid_type')
  return v.map((m, i) => {
    const where = `messages[${i}]`
    if (!isObject(m)) throw bad(where, `${where} must be an object`, 'invalid_type')
    const role = m.role === 'developer' ? 'system' : m.role
    if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') {
      throw bad(`${where}.role`, `${where}.role must be one of system, developer, user, assistant, tool; got ${JSON.stringify(m.role)}`)
    }
    const out: TemplateMessage = { role, content: messageContent(m.content, where) }
    if (m.tool_calls !== undefined && m.tool_calls !== null) {
      if (role !== 'assistant') throw bad(`${where}.tool_calls`, 'only assistant messages carry tool_calls')
      if (!Array.isArray(m.tool_calls)) throw bad(`${where}.tool_calls`, `${where}.tool_calls must be an array`, 'invalid_type')
      out.tool_calls = m.tool_calls.map((c, j) => {
        const f = isObject(c) ? c.function : undefined
        if (!isObject(f) || typeof f.name !== 'string' || (typeof f.arguments !== 'string' && !isObject(f.arguments))) {
          throw bad(`${where}.tool_calls[${j}]`, 'a tool call needs {type:"function", function:{name, arguments}} with arguments a JSON string', 'invalid_type')
        }
        return {
          ...(isObject(c) && typeof c.id === 'string' ? { id: c.id } : {}),
          type: 'function' as const,
          function: { name: f.name, arguments: f.arguments as string | Record<string, unknown> },
        }
      })
    }
    if (typeof m.tool_call_id === 'string') out.tool_call_id = m.tool_call_id
    if (typeof m.name === 'string') out.name = m.name
    return out
  })
}

function parseTools(v: unknown): ToolSpec[] | undefined {
  if (v === undefined || v === null) return undefined
  if (!Array.isArray(v)) throw bad('tools', "'tools' must be an array of {type:'function', function:{name, description, parameters}}", 'invalid_type')
  return v.map((t, i) => {
    const f = isObject(t) ? t.function : undefined
    if (!isObject(t) || t.type !== 'function' || !isObject(f) || typeof f.name !== 'string' || f.name.length === 0) {
      throw bad(`tools[${i}]`, `tools[${i}] must be {type:'function', function:{name, description?, parameters?}}`, 'invalid_type')
    }
    if (f.description !== undefined && typeof f.description !== 'string') throw bad(`tools[${i}].function.description`, 'description must be a string', 'invalid_type')
    if (f.parameters !== undefined && !isObject(f.parameters)) throw bad(`tools[${i}].function.parameters`, 'parameters must be a JSON Schema object', 'invalid_type')
    const fn: ToolSpec['function'] = { name: f.name }
    if (f.description !== undefined) fn.description = f.description as string
    if (f.parameters !== undefined) fn.parameters = f.parameters as Record<string, unknown>
    return { type: 'function', function: fn }
  })
}

function parseStop(v: unknown): string[] {
  if (v === undefined || v === null) return []
  const list = typeof v === 'string' ? [v] : v
  if (!Array.isArray(list) || list.length > 4 || list.some((s) => typeof s !== 'string' || s.length === 0)) {
    throw bad('stop', "'stop' must be a non-empty string or an array of up to 4 non-empty strings", 'invalid_type')
  }
  return list as string[]
}

/** Validate a parsed JSON body into a ChatRequest; throws ApiError (400) on anything wrong. */
export function parseChatRequest(body: unknown, limits: RequestLimits = DEFAULT_LIMITS): ChatRequest {
  if (!isObject(body)) throw bad('body', 'the request body must be a JSON object', 'invalid_type')
  for (const key of Object.keys(body)) {
    if (!KNOWN.has(key)) throw new ApiError(400, 'unknown_parameter', `unknown parameter '${key}'; remove it (see /v1/chat/completions in the OpenAI API)`, key)
  }
  if (body.stream === true) throw unsupported('stream', 'streaming is not supported by the local engine server; send stream: false')
  for (const p of ['frequency_penalty', 'presence_penalty']) {
    if (body[p] !== undefined && body[p] !== null && body[p] !== 0) throw unsupported(p, `'${p}' is not supported; leave it out or send 0`)
  }
  if (body.model !== undefined && typeof body.model !== 'string') throw bad('model', "'model' must be a string", 'invalid_type')
  const toolChoice = body.tool_choice ?? 'auto'
  if (toolChoice !== 'auto' && toolChoice !== 'none') {
    throw unsupported('tool_choice', "'tool_choice' must be 'auto' or 'none' (forcing a tool is not supported)")
  }
  if (body.logprobs !== undefined && body.logprobs !== null && typeof body.logprobs !== 'boolean') {
    throw bad('logprobs', "'logprobs' must be a boolean", 'invalid_type')
  }
  const topLogprobs = optNumber(body, 'top_logprobs', 0, 20, 0, { int: true })
  if (topLogprobs > 0) throw unsupported('top_logprobs', "'top_logprobs' > 0 is not supported: logprobs reports the sampled token's log-probability only")
  let enableThinking: boolean | undefined
  if (body.chat_template_kwargs !== undefined && body.chat_template_kwargs !== null) {
    const k = body.chat_template_kwargs
    if (!isObject(k)) throw bad('chat_template_kwargs', "'chat_template_kwargs' must be an object", 'invalid_type')
    for (const key of Object.keys(k)) {
      if (key !== 'enable_thinking') throw unsupported(`chat_template_kwargs.${key}`, `only chat_template_kwargs.enable_thinking is supported`)
    }
    if (k.enable_thinking !== undefined) {
      if (typeof k.enable_thinking !== 'boolean') throw bad('chat_template_kwargs.enable_thinking', 'enable_thinking must be a boolean', 'invalid_type')
      enableThinking = k.enable_thinking
    }
  }
  const maxTokensKey = body.max_completion_tokens !== undefined && body.max_completion_tokens !== null ? 'max_completion_tokens' : 'max_tokens'
  const seed = body.seed === undefined || body.seed === null ? undefined : optNumber(body, 'seed', -(2 ** 53), 2 ** 53, 0, { int: true })
  const topK = optNumber(body, 'top_k', -1, 1_000_000, 0, { int: true })
  const tools = parseTools(body.tools)
  return {
    model: body.model as string | undefined,
    messages: parseMessages(body.messages),
    ...(tools && tools.length > 0 ? { tools } : {}),
    toolChoice,
    n: optNumber(body, 'n', 1, limits.maxN, 1, { int: true }),
    temperature: optNumber(body, 'temperature', 0, 2, 1),
    topP: optNumber(body, 'top_p', 0, 1, 1, { minExclusive: true }),
    topK: topK < 0 ? 0 : topK,
    maxTokens: optNumber(body, maxTokensKey, 1, 1_000_000, limits.defaultMaxTokens, { int: true }),
    maxTokensExplicit: body[maxTokensKey] !== undefined && body[maxTokensKey] !== null,
    stop: parseStop(body.stop),
    logprobs: body.logprobs === true,
    ...(seed !== undefined ? { seed } : {}),
    ...(enableThinking !== undefined ? { enableThinking } : {}),
  }
}
