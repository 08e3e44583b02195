// gym/server-validate: request-body checks for the gym server — each failure is an HttpError with a status and a
// stable code (the one kit in infra/http), so bad input is always a 4xx JSON error. Iterative only (no recursion over untrusted JSON).
import { HttpError } from '../infra/http/errors'
import type { AssistantAction } from './types'

export { HttpError }

export type Body = Record<string, unknown>

export function parseJsonBody(text: string): Body {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    throw new HttpError(400, 'request.bad_json', 'the request body is not valid JSON')
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new HttpError(400, 'request.bad_body', 'the request body must be a JSON object')
  return v as Body
}

export function onlyKeys(b: Body, allowed: readonly string[]): void {
  for (const k of Object.keys(b))
    if (!allowed.includes(k))
      throw new HttpError(400, 'request.unknown_field', `unknown field ${JSON.stringify(k.slice(0, 60))}; allowed: ${allowed.join(', ')}`)
}

export function str(b: Body, key: string, maxChars: number, required: true): string
export function str(b: Body, key: string, maxChars: number, required?: false): string | undefined
export function str(b: Body, key: string, maxChars: number, required = false): string | undefined {
  const v = b[key]
  if (v === undefined || v === null) {
    if (required) throw new HttpError(400, 'request.missing_field', `the field "${key}" is required`)
    return undefined
  }
  if (typeof v !== 'string') throw new HttpError(400, 'request.bad_field', `the field "${key}" must be a string`)
  if (v.length > maxChars)
    throw new HttpError(400, 'request.too_long', `the field "${key}" has ${v.length} characters; at most ${maxChars} allowed`)
  return v
}

export function int(b: Body, key: string, lo: number, hi: number, fallback?: number): number {
  const v = b[key]
  if (v === undefined || v === null) {
    if (fallback === undefined) throw new HttpError(400, 'request.missing_field', `the field "${key}" is required`)
    return fallback
  }
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi)
    throw new HttpError(400, 'request.bad_field', `the field "${key}" must be an integer in [${lo}, ${hi}]`)
  return v
}

export function bool(b: Body, key: string, fallback: boolean): boolean {
  const v = b[key]
  if (v === undefined || v === null) return fallback
  if (typeof v !== 'boolean') throw new HttpError(400, 'request.bad_field', `the field "${key}" must be true or false`)
  return v
}

/** A step action: a string, or {text, tool_calls?, numTokens?} with OpenAI-shaped tool calls. */
export function action(b: Body, maxChars: number): AssistantAction | string {
  const a = b.action
  if (typeof a === 'string') {
    if (a.length > maxChars) throw new HttpError(400, 'request.too_long', `the action has ${a.length} characters; at most ${maxChars}`)
    return a
  }
  if (typeof a !== 'object' || a === null || Array.isArray(a))
    throw new HttpError(400, 'request.bad_field', 'the field "action" must be a string or an object {text, tool_calls?, numTokens?}')
  const o = a as Body
  onlyKeys(o, ['text', 'tool_calls', 'numTokens', 'content'])
  const text = o.text ?? o.content ?? ''
  if (typeof text !== 'string') throw new HttpError(400, 'request.bad_field', 'action.text must be a string')
  if (text.length > maxChars) throw new HttpError(400, 'request.too_long', `action.text has ${text.length} characters; at most ${maxChars}`)
  const out: AssistantAction = { text }
  if (o.numTokens !== undefined && o.numTokens !== null) {
    if (typeof o.numTokens !== 'number' || !Number.isInteger(o.numTokens) || o.numTokens < 0)
      throw new HttpError(400, 'request.bad_field', 'action.numTokens must be a non-negative integer')
    out.numTokens = o.numTokens
  }
  if (o.tool_calls !== undefined && o.tool_calls !== null) {
    if (!Array.isArray(o.tool_calls) || o.tool_calls.length > 64)
      throw new HttpError(400, 'request.bad_field', 'action.tool_calls must be an array of at most 64 calls')
    const calls: NonNullable<AssistantAction['tool_calls']> = []
    for (const tc of o.tool_calls) {
      const fn = typeof tc === 'object' && tc !== null ? (tc as Body).function : undefined
      const f = typeof fn === 'object' && fn !== null ? (fn as Body) : undefined
      const id = typeof tc === 'object' && tc !== null ? (tc as Body).id : undefined
      const args = f?.arguments
      if (!f || typeof f.name !== 'string')
        throw new HttpError(400, 'request.bad_field', 'each tool call needs {"function": {"name": string, "arguments": string|object}}')
      // The env judges the arguments (bad JSON is a malformed turn, not a bad request); only the wire shape is checked here.
      let argStr: string
      if (typeof args === 'string') argStr = args
      else if (args === undefined || args === null) argStr = ''
      else if (typeof args === 'object') argStr = safeStringify(args)
      else throw new HttpError(400, 'request.bad_field', 'function.arguments must be a JSON string or object')
      calls.push({ id: typeof id === 'string' ? id : '', type: 'function', function: { name: f.name, arguments: argStr } })
    }
    out.tool_calls = calls
  }
  return out
}

function safeStringify(v: unknown): string {
  try {
    return JSON.stringify(v)
  } catch {
    // e.g. nesting too deep to serialise; the env will see bad JSON and say so
    return '{'
  }
}
