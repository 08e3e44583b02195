// infra/engine/chat/hermes: THE Hermes tool-call parser of the project (<tool_call>{"name":…,"arguments":{…}}</tool_call>
// blocks, as Qwen3 writes them). Three layers: scanHermesBlocks (where the blocks are, closed or cut off),
// decodeHermesCall (one block body → name + arguments, or why not), and parseHermesToolCalls (the lenient server
// reading: model text → OpenAI `tool_calls`, malformed blocks stay text). The gym's strict hermes protocol
// (gym/protocol/hermes.ts) is built on the first two; nothing else parses Hermes blocks.
import { sha256 } from '../../hash'

export interface OpenAIToolCall {
  id: string
  type: 'function'
  /** `arguments` is a JSON object serialised as a string, as the OpenAI API sends it. */
  function: { name: string; arguments: string }
}

export interface HermesParse {
  /** The text outside the parsed tool-call blocks (malformed blocks included verbatim), trimmed. */
  content: string
  toolCalls: OpenAIToolCall[]
  /** One line per block that stayed text, saying why. */
  malformed: string[]
}

export const HERMES_OPEN = '<tool_call>'
export const HERMES_CLOSE = '</tool_call>'

export interface HermesBlock {
  /** Text between the tags (to the end of the text when not closed). */
  body: string
  /** Offsets of the block in the text: from `<tool_call>` to after `</tool_call>` (or the end). */
  start: number
  end: number
  closed: boolean
}

/** Every `<tool_call>` block in order; a block without `</tool_call>` runs to the end of the text and is the last. */
export function scanHermesBlocks(text: string): HermesBlock[] {
  const out: HermesBlock[] = []
  let pos = 0
  for (;;) {
    const start = text.indexOf(HERMES_OPEN, pos)
    if (start < 0) return out
    const bodyStart = start + HERMES_OPEN.length
    const close = text.indexOf(HERMES_CLOSE, bodyStart)
    if (close < 0) {
      out.push({ body: text.slice(bodyStart), start, end: text.length, closed: false })
      return out
    }
    out.push({ body: text.slice(bodyStart, close), start, end: close + HERMES_CLOSE.length, closed: true })
    pos = close + HERMES_CLOSE.length
  }
}

export type HermesDecode =
  | { ok: true; name: unknown; arguments: unknown }
  | { ok: false; error: 'bad_json' | 'bad_tool_call'; message: string; detail: string }

/** One block body → its `name` and `arguments` (or `parameters`) as written; the caller checks their types. */
export function decodeHermesCall(body: string): HermesDecode {
  let v: unknown
  try {
    v = JSON.parse(body.trim())
  } catch (e) {
    return { ok: false, error: 'bad_json', message: 'the <tool_call> content is not valid JSON', detail: `not JSON: ${(e as Error).message}` }
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    return { ok: false, error: 'bad_tool_call', message: 'the <tool_call> content must be a JSON object {"name", "arguments"}', detail: 'not a JSON object' }
  const o = v as Record<string, unknown>
  return { ok: true, name: o.name, arguments: o.arguments ?? o.parameters }
}

/** The server's reading of one block: a string name and an object of arguments (a JSON string of one is accepted). */
function serverCall(body: string): { name: string; args: Record<string, unknown> } | string {
  const d = decodeHermesCall(body)
  if (!d.ok) return d.detail
  if (typeof d.name !== 'string' || d.name.length === 0) return 'no string "name"'
  let args = d.arguments ?? {}
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args)
    } catch {
      return '"arguments" is a string that is not JSON'
    }
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return '"arguments" is not a JSON object'
  return { name: d.name, args: args as Record<string, unknown> }
}

/**
 * Split `text` into content and tool calls. A final block without </tool_call> (cut by a stop sequence or max_tokens)
 * still counts when its JSON is complete, as vLLM's Hermes parser does. Call ids are derived from the text and the block
 * index (`idSalt` makes them unique across choices), so the same output gives the same ids.
 */
export function parseHermesToolCalls(text: string, idSalt = ''): HermesParse {
  const toolCalls: OpenAIToolCall[] = []
  const malformed: string[] = []
  let content = ''
  let pos = 0
  for (const b of scanHermesBlocks(text)) {
    const parsed = serverCall(b.body)
    content += text.slice(pos, b.start)
    if (typeof parsed === 'string') {
      malformed.push(`block ${toolCalls.length + malformed.length + 1}: ${parsed}`)
      content += text.slice(b.start, b.end)
    } else {
      const index = toolCalls.length
      toolCalls.push({
        id: `call_${sha256(`${idSalt}\u0000${index}\u0000${text}`).slice(0, 24)}`,
        type: 'function',
        function: { name: parsed.name, arguments: JSON.stringify(parsed.args) },
      })
    }
    pos = b.end
  }
  content += text.slice(pos)
  return { content: content.trim(), toolCalls, malformed }
}

/** The Hermes text of OpenAI tool calls, as Qwen3's chat template writes them (for fixtures and round-trip tests). */
export function formatHermesToolCalls(calls: { function: { name: string; arguments: string | Record<string, unknown> } }[]): string {
  return calls
    .map((c) => {
      const args = typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments)
      return `${HERMES_OPEN}\n{"name": ${JSON.stringify(c.function.name)}, "arguments": ${args}}\n${HERMES_CLOSE}`
    })
    .join('\n')
}
