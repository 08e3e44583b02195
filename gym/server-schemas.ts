// gym/server-schemas: one zod schema per gym server endpoint (built from the server's limits), the request types
// inferred from them (shared with TypeScript clients), and the mapping of a schema failure to the HTTP error kit's
// stable codes (request.unknown_field / missing_field / too_long / bad_field). No routes here.
import { z } from 'zod'
import { HttpError } from '../infra/http/errors'
import type { AssistantAction } from './types'

export interface SchemaLimits {
  maxQueryChars: number
  maxUrlChars: number
  maxActionChars: number
  maxTopK: number
  /** /v1/search's k when none is given: the server's env topK (documented as the field's default). */
  searchTopK: number
}

/** `topk` of a /retrieve call that gives none (Search-R1's retrieval server default). */
export const DEFAULT_RETRIEVE_TOPK = 3

// Range before integrality: 1e20 is told the field's bound (e.g. <= 50), not zod's safe-integer one.
const int = (lo: number, hi: number) => z.number().min(lo).max(hi).int()

const toolCall = z.object({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({
    name: z.string(),
    // The env judges the arguments (bad JSON is a malformed turn, not a bad request); only the wire shape is checked.
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  }),
})

export function gymSchemas(l: SchemaLimits) {
  const actionObject = z
    .object({
      text: z.string().max(l.maxActionChars).nullish().meta({ description: "the assistant turn's text (hermes/search-r1 tags, or an <answer>)", default: '' }),
      content: z.string().max(l.maxActionChars).nullish().meta({ description: 'the same as text (an OpenAI message\'s field name), used when text is absent' }),
      numTokens: z.number().int().min(0).nullish().meta({ description: "the response's token count, for the token budgets (default: counted by the server)" }),
      tool_calls: z.array(toolCall).max(64).nullish().meta({ description: 'OpenAI-style tool calls (protocol openai)' }),
    })
    .strict()
  return {
    createEnv: z
      .object({
        qaId: z.string().max(500).nullish().meta({ description: 'the question, by id (or split + index)' }),
        split: z.enum(['train', 'bench']).nullish().meta({ description: 'the split of the question, with index (instead of qaId)' }),
        index: int(0, Number.MAX_SAFE_INTEGER).nullish().meta({ description: 'position in the split, in GET /v1/qa order' }),
        /** GymOptions overrides; their keys and values are checked by resolveGymOptions. */
        // Passed through as sent (z.record would rebuild it and drop an own "__proto__" key silently).
        options: z
          .custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'options must be an object')
          .meta({ type: 'object' })
          .nullish()
          .meta({ description: "env options over the server's defaults (protocol, reward, budgets, topK, faults, episode, ...)", default: {} }),
        /** Close this env after this many seconds idle, if sooner than the server's --idle-seconds (a later one is
         *  the server's): a client whose envs live for one call (the verl tool) has its vanished envs reaped soon. */
        idleSeconds: z.number().min(1).max(7 * 24 * 3600).nullish().meta({ description: "close the env after this many seconds idle, if sooner than the server's --idle-seconds" }),
      })
      .strict(),
    step: z.object({ action: z.union([z.string().max(l.maxActionChars), actionObject]).meta({ description: 'the assistant turn: its text, or {text, tool_calls?, numTokens?}' }) }).strict(),
    search: z
      .object({ query: z.string().max(l.maxQueryChars).meta({ description: 'the search query (blank: no results)' }), k: int(1, l.maxTopK).nullish().meta({ description: "results (default: the server's env topK)", default: l.searchTopK }) })
      .strict(),
    access: z.object({ url: z.string().max(l.maxUrlChars).meta({ description: 'the page URL, exactly as search gave it' }) }).strict(),
    // Items are not checked here: one bad query never fails a batch (the route cuts or answers it empty).
    // ASearcher's batch access; items are judged by the route (a bad one is answered null).
    // Outside engines add fields to these two bodies: unknown ones are let through (the route notes them).
    accessMany: z.object({ urls: z.array(z.unknown()).meta({ description: 'page URLs (a non-string or unknown one is answered null)' }) }).loose(),
    retrieve: z
      .object({
        queries: z.array(z.unknown()).meta({ description: 'queries (a non-string one is answered [], an over-long one cut)' }),
        topk: int(1, l.maxTopK).nullish().meta({ description: 'hits per query', default: DEFAULT_RETRIEVE_TOPK }),
        return_scores: z.boolean().nullish().meta({ description: 'hits as {document, score} (Search-R1/verl) instead of flat items', default: false }),
      })
      .loose(),
  }
}

export type GymSchemas = ReturnType<typeof gymSchemas>
export type CreateEnvRequest = z.infer<GymSchemas['createEnv']>
export type StepRequest = z.infer<GymSchemas['step']>
export type SearchRequest = z.infer<GymSchemas['search']>
export type AccessRequest = z.infer<GymSchemas['access']>
export type RetrieveRequest = z.infer<GymSchemas['retrieve']>

/** Validate a parsed JSON body against an endpoint's schema; the first problem is an HttpError with a stable code. */
export function checkBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const r = schema.safeParse(body)
  if (r.success) return r.data
  throw issueError(r.error.issues[0], body)
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let v = body
  for (const k of path) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, k)) return undefined
    v = (v as Record<PropertyKey, unknown>)[k]
  }
  return v
}

function issueError(issue: z.core.$ZodIssue, body: unknown): HttpError {
  const field = issue.path.map(String).join('.')
  const param = field || null
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? ''
    const at = field ? `${field}.` : ''
    return new HttpError(400, 'request.unknown_field', `unknown field ${JSON.stringify(at + key.slice(0, 60))}`, at + key.slice(0, 60))
  }
  const value = valueAt(body, issue.path)
  if (value === undefined && issue.code === 'invalid_type')
    return new HttpError(400, 'request.missing_field', `the field "${field}" is required`, param)
  if (issue.code === 'too_big' && typeof value === 'string')
    return new HttpError(400, 'request.too_long', `the field "${field}" has ${value.length} characters; at most ${String(issue.maximum)} allowed`, param)
  if (issue.code === 'invalid_union' && field === 'action')
    return new HttpError(400, 'request.bad_field', 'the field "action" must be a string or an object {text, tool_calls?, numTokens?}', param)
  return new HttpError(400, 'request.bad_field', `the field "${field}" is invalid: ${issue.message}`, param)
}

/** A validated step body → the env's action (tool call arguments as the JSON string the protocol parses). */
export function toAction(a: StepRequest['action']): AssistantAction | string {
  if (typeof a === 'string') return a
  const out: AssistantAction = { text: a.text ?? a.content ?? '' }
  if (a.numTokens !== undefined && a.numTokens !== null) out.numTokens = a.numTokens
  if (a.tool_calls) {
    out.tool_calls = a.tool_calls.map((tc) => {
      const args = tc.function.arguments
      return { id: tc.id ?? '', type: 'function' as const, function: { name: tc.function.name, arguments: typeof args === 'string' ? args : args ? safeStringify(args) : '' } }
    })
  }
  return out
}

function safeStringify(v: unknown): string {
  try {
    return JSON.stringify(v)
  } catch {
    return '{' // e.g. nesting too deep to serialise; the env will see bad JSON and say so
  }
}
