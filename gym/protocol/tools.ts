// gym/protocol/tools: the two tool schemas (OpenAI function format, which Qwen3/Hermes templates also render) and
// argument validation shared by every protocol. Knows nothing of how calls are written in text.
import type { GymToolCall, MalformedKind, ProtocolContext, ToolName } from './types'

export interface FunctionSchema {
  type: 'function'
  function: {
    name: ToolName
    description: string
    parameters: { type: 'object'; properties: Record<string, { type: 'string' | 'integer'; description: string }>; required: string[] }
  }
}

export const TOOL_SCHEMAS: Record<ToolName, FunctionSchema> = {
  search: {
    type: 'function',
    function: {
      name: 'search',
      description: 'Search the web. Returns the top results, each with a title, a URL and a short snippet.',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string', description: 'The search query (keywords or a question).' } },
        required: ['query'],
      },
    },
  },
  access: {
    type: 'function',
    function: {
      name: 'access',
      description: 'Open a web page by its URL (exactly as given in search results) and return its full text.',
      parameters: {
        type: 'object',
        properties: {
          url: { type: 'string', description: 'The URL of the page to open.' },
          page: { type: 'integer', description: 'Page of a long document (default 1; a long page says how many it has).' },
        },
        required: ['url'],
      },
    },
  },
}

export function toolSchemas(tools: readonly ToolName[]): FunctionSchema[] {
  return tools.map((t) => TOOL_SCHEMAS[t])
}

type Checked = { ok: true; call: GymToolCall } | { ok: false; error: MalformedKind; message: string }

const ARG: Record<ToolName, 'query' | 'url'> = { search: 'query', access: 'url' }

/** Validate a decoded {name, arguments} pair against the enabled tools. */
export function checkToolCall(name: unknown, args: unknown, id: string, ctx: ProtocolContext): Checked {
  if (typeof name !== 'string' || name.length === 0)
    return { ok: false, error: 'bad_tool_call', message: 'the tool call has no "name" string' }
  if (name !== 'search' && name !== 'access')
    return {
      ok: false,
      error: 'unknown_tool',
      message: `there is no tool named ${JSON.stringify(clip(name, 60))}; the tools are: ${ctx.tools.join(', ')}`,
    }
  if (!ctx.tools.includes(name))
    return { ok: false, error: 'tool_disabled', message: `the ${name} tool is not available here; use: ${ctx.tools.join(', ')}` }
  let a = args
  if (typeof a === 'string') {
    // Some models emit the arguments object as a JSON string; accept it when it decodes to an object.
    try {
      a = JSON.parse(a)
    } catch {
      return { ok: false, error: 'bad_json', message: 'the "arguments" string is not valid JSON' }
    }
  }
  if (a === undefined || a === null) a = {}
  if (typeof a !== 'object' || Array.isArray(a))
    return { ok: false, error: 'bad_tool_call', message: '"arguments" must be a JSON object' }
  const key = ARG[name]
  const v = (a as Record<string, unknown>)[key]
  if (v === undefined || v === null)
    return { ok: false, error: 'missing_argument', message: `${name} needs the argument "${key}"` }
  if (typeof v !== 'string')
    return { ok: false, error: 'bad_argument', message: `the argument "${key}" of ${name} must be a string` }
  const s = v.trim()
  if (s.length === 0) return { ok: false, error: 'bad_argument', message: `the argument "${key}" of ${name} is empty` }
  if (s.length > ctx.maxArgChars)
    return {
      ok: false,
      error: 'bad_argument',
      message: `the argument "${key}" of ${name} is too long (${s.length} characters; at most ${ctx.maxArgChars})`,
    }
  if (name === 'search') return { ok: true, call: { id, name, query: s } }
  // Paged access: a `page` argument, or `#page=k` after the URL (the form text protocols can write).
  let url = s
  let page: unknown = (a as Record<string, unknown>).page
  const frag = /#page=(\d+)$/.exec(url)
  if (frag && (page === undefined || page === null)) {
    url = url.slice(0, frag.index)
    page = Number(frag[1])
  }
  if (page === undefined || page === null) return { ok: true, call: { id, name, url } }
  const n = typeof page === 'string' && /^\s*\d+\s*$/.test(page) ? Number(page) : page
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
    return { ok: false, error: 'bad_argument', message: 'the argument "page" of access must be a whole number from 1' }
  return { ok: true, call: { id, name, url, page: n } }
}

/** Shorten untrusted text for quoting in a corrective message. */
export function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}…`
}
