// infra/engine/hermes: turns a model's Hermes-style output (<tool_call>{"name":…,"arguments":{…}}</tool_call> blocks) into
// OpenAI `tool_calls` for the engine's server. Malformed blocks stay text. Knows nothing of the gym's own protocol parser.
import { sha256 } from '../hash'

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

const OPEN = '<tool_call>'
const CLOSE = '</tool_call>'

/** Parse one block body: a JSON object with a string `name` and an object `arguments` (or `parameters`, or a JSON string of one). */
function parseCall(body: string): { name: string; args: Record<string, unknown> } | string {
  let v: unknown
  try {
    v = JSON.parse(body.trim())
  } catch (e) {
    return `not JSON: ${(e as Error).message}`
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'not a JSON object'
  const o = v as Record<string, unknown>
  if (typeof o.name !== 'string' || o.name.length === 0) return 'no string "name"'
  let args = o.arguments ?? o.parameters ?? {}
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args)
    } catch {
      return '"arguments" is a string that is not JSON'
    }
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return '"arguments" is not a JSON object'
  return { name: o.name, args: args as Record<string, unknown> }
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
  while (pos < text.length) {
    const start = text.indexOf(OPEN, pos)
    if (start < 0) break
    const bodyStart = start + OPEN.length
    const end = text.indexOf(CLOSE, bodyStart)
    const bodyEnd = end < 0 ? text.length : end
    const blockEnd = end < 0 ? text.length : end + CLOSE.length
    const parsed = parseCall(text.slice(bodyStart, bodyEnd))
    content += text.slice(pos, start)
    if (typeof parsed === 'string') {
      malformed.push(`block ${toolCalls.length + malformed.length + 1}: ${parsed}`)
      content += text.slice(start, blockEnd)
    } else {
      const index = toolCalls.length
      toolCalls.push({
        id: `call_${sha256(`${idSalt}\u0000${index}\u0000${text}`).slice(0, 24)}`,
        type: 'function',
        function: { name: parsed.name, arguments: JSON.stringify(parsed.args) },
      })
    }
    pos = blockEnd
  }
  content += text.slice(pos)
  return { content: content.trim(), toolCalls, malformed }
}

/** The Hermes text of OpenAI tool calls, as Qwen3's chat template writes them (for fixtures and round-trip tests). */
export function formatHermesToolCalls(calls: { function: { name: string; arguments: string | Record<string, unknown> } }[]): string {
  return calls
    .map((c) => {
      const args = typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments)
      return `${OPEN}\n{"name": ${JSON.stringify(c.function.name)}, "arguments": ${args}}\n${CLOSE}`
    })
    .join('\n')
}
