// gym/openenv/wire: what crosses the OpenEnv face of `gym serve` — the action, reset parameters, HTTP step body and
// WebSocket messages as strict zod schemas built from the server's limits, their problems as FastAPI's validation
// items ({type, loc, msg}: what an OpenEnv server answers, 422 over HTTP, VALIDATION_ERROR over /ws), and the JSON
// Schemas GET /schema serves. Contracts followed, from meta-pytorch/OpenEnv at 685de411 (src/openenv/core/...):
// env_server/types.py:54-200 (Action, Observation, ResetRequest, StepRequest, State), :248-314 (WS messages and
// responses), :37-46 (WSErrorCode); env_server/mcp_types.py:229-292 (list_tools / call_tool actions and observations).
// Knows no env, no session and no transport.
import { z } from 'zod'

/** The request paths of the OpenEnv face (also served under OPENENV_PREFIX, where /health is OpenEnv's too). */
export const OPENENV_PATHS = ['/reset', '/step', '/state', '/schema', '/metadata', '/openapi.json', '/mcp', '/ws'] as const
/** Everything OpenEnv under one prefix: `openenv validate --url http://HOST:PORT/openenv` sees a pure OpenEnv server
 *  (its /health says "healthy"; the root /health stays the env API's). */
export const OPENENV_PREFIX = '/openenv'

/** WSErrorCode (env_server/types.py:37-46). */
export const WS_ERROR = {
  invalidJson: 'INVALID_JSON',
  unknownType: 'UNKNOWN_TYPE',
  validation: 'VALIDATION_ERROR',
  execution: 'EXECUTION_ERROR',
  capacity: 'CAPACITY_REACHED',
  session: 'SESSION_ERROR',
} as const

/** One problem with a request, as FastAPI's RequestValidationError lists it (the request's value is not echoed). */
export interface Problem {
  type: string
  loc: (string | number)[]
  msg: string
}

export class ValidationProblems extends Error {
  constructor(readonly problems: Problem[]) {
    super(problems.map((p) => `${p.loc.join('.')}: ${p.msg}`).join('; '))
  }
}

export interface WireLimits {
  maxActionChars: number
  maxQueryChars: number
}

const obj = () => z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'must be an object').meta({ type: 'object' })
const metadata = obj().optional().nullable().meta({ description: "OpenEnv's Action.metadata (ignored)" })
const int = (lo: number, hi = Number.MAX_SAFE_INTEGER) => z.number().min(lo).max(hi).int()

/** The tools a SearchGym action may call; `answer` ends the episode (as `gym mcp`'s answer tool). */
export const ANSWER_TOOL = 'answer'

export function wireSchemas(l: WireLimits) {
  const toolCall = z.object({
    id: z.string().max(200).nullish(),
    type: z.string().max(50).nullish(),
    function: z.object({ name: z.string().max(200), arguments: z.union([z.string().max(l.maxActionChars), obj()]).nullish() }),
  })
  // The assistant's turn as text (in the env's protocol: hermes <tool_call> tags, search-r1 tags, <answer>), or an
  // OpenAI message's structured tool_calls.
  const textAction = z
    .object({
      text: z.string().max(l.maxActionChars).nullish().meta({ description: "the assistant turn's text in the env's protocol (default hermes: <tool_call>{...}</tool_call>, or <answer>…</answer>)" }),
      tool_calls: z.array(toolCall).max(64).nullish().meta({ description: 'OpenAI-style tool calls (env option protocol "openai")' }),
      num_tokens: int(0).nullish().meta({ description: "the response's token count, for the token budgets (default: counted by the server)" }),
      metadata,
    })
    .strict()
  // One tool call by name (OpenEnv's MCP CallToolAction, type optional): search {query}, access {url, page?}, answer {answer}.
  const toolAction = z
    .object({
      type: z.literal('call_tool').nullish(),
      tool_name: z.string().min(1).max(200).meta({ description: 'search, access or answer' }),
      arguments: obj().nullish().meta({ description: 'search: {query}; access: {url, page?}; answer: {answer}' }),
      metadata,
    })
    .strict()
  const listTools = z.object({ type: z.literal('list_tools'), metadata }).strict()
  const resetFields = {
    seed: int(0).nullish().meta({ description: 'draw the question from the split with this seed (same seed, same question)' }),
    episode_id: z.string().max(255).nullish().meta({ description: "a label for the episode (State.episode_id; default: the session's id)" }),
    qa_id: z.string().max(500).nullish().meta({ description: 'the question by id (GET /v1/qa lists them)' }),
    split: z.enum(['train', 'bench']).nullish().meta({ description: 'where the question is drawn from (default train)' }),
    index: int(0).nullish().meta({ description: 'the question at this position of the split (GET /v1/qa order)' }),
    options: obj().nullish().meta({ description: "env options over the server's defaults (reward, budgets, protocol, topK, …), as POST /v1/envs" }),
  }
  const reset = z.object(resetFields).strict()
  return {
    textAction,
    toolAction,
    listTools,
    reset,
    /** HTTP POST /reset: one session per episode unless session_id names one to reuse. */
    httpReset: z.object({ ...resetFields, session_id: z.string().max(200).nullish().meta({ description: "reset this HTTP session's episode instead of opening a new session" }) }).strict(),
    /** HTTP POST /step (StepRequest, env_server/types.py:126-152, plus the session). */
    httpStep: z
      .object({
        action: obj().meta({ description: 'the action (see /schema)' }),
        session_id: z.string().max(200).meta({ description: 'the session POST /reset opened' }),
        timeout_s: z.number().gt(0).nullish(),
        request_id: z.string().max(255).nullish(),
      })
      .strict(),
    /** The action's JSON Schema (GET /schema). */
    action: z.union([textAction, toolAction, listTools]),
  }
}

export type WireSchemas = ReturnType<typeof wireSchemas>
export type TextAction = z.infer<WireSchemas['textAction']>
export type ToolAction = z.infer<WireSchemas['toolAction']>
export type ResetParams = z.infer<WireSchemas['reset']>
export type HttpResetParams = z.infer<WireSchemas['httpReset']>

/** A checked action: the assistant's turn, one named tool call, or the tool list (no env step). */
export type Action = { kind: 'text'; text: string; tool_calls?: TextAction['tool_calls']; num_tokens?: number } | { kind: 'tool'; name: string; arguments: Record<string, unknown> } | { kind: 'list_tools' }

/** Parse with a schema; every problem as a FastAPI item under `loc`. */
export function check<S extends z.ZodType>(schema: S, value: unknown, loc: (string | number)[]): z.infer<S> {
  const r = schema.safeParse(value)
  if (r.success) return r.data
  throw new ValidationProblems(r.error.issues.slice(0, 8).flatMap((i) => problemsOf(i, value, loc)))
}

function problemsOf(i: z.core.$ZodIssue, value: unknown, loc: (string | number)[]): Problem[] {
  const at = [...loc, ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))]
  if (i.code === 'unrecognized_keys') return i.keys.slice(0, 8).map((k) => ({ type: 'extra_forbidden', loc: [...at, k.slice(0, 60)], msg: 'Extra inputs are not permitted' }))
  if (i.code === 'invalid_type' && valueAt(value, i.path) === undefined) return [{ type: 'missing', loc: at, msg: 'Field required' }]
  if (i.code === 'too_big') return [{ type: 'too_long', loc: at, msg: i.message }]
  return [{ type: 'value_error', loc: at, msg: i.message }]
}

function valueAt(v: unknown, path: readonly PropertyKey[]): unknown {
  for (const k of path) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, k)) return undefined
    v = (v as Record<PropertyKey, unknown>)[k]
  }
  return v
}

/** An action object → which form it is, checked strictly (an unknown key or shape is a problem, never a guess). */
export function parseAction(s: WireSchemas, raw: unknown, loc: (string | number)[]): Action {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ValidationProblems([{ type: 'model_type', loc, msg: 'the action must be an object' }])
  const a = raw as Record<string, unknown>
  if (a.type === 'list_tools') {
    check(s.listTools, a, loc)
    return { kind: 'list_tools' }
  }
  if (Object.hasOwn(a, 'type') || Object.hasOwn(a, 'tool_name')) {
    if (a.type !== undefined && a.type !== null && a.type !== 'call_tool')
      throw new ValidationProblems([{ type: 'literal_error', loc: [...loc, 'type'], msg: "type must be 'call_tool' or 'list_tools' (or absent for the assistant's text)" }])
    const t = check(s.toolAction, a, loc)
    return { kind: 'tool', name: t.tool_name, arguments: t.arguments ?? {} }
  }
  const t = check(s.textAction, a, loc)
  if ((t.text === undefined || t.text === null) && !t.tool_calls)
    throw new ValidationProblems([{ type: 'missing', loc: [...loc, 'text'], msg: "an action is {text} (the assistant's turn), {text?, tool_calls} or {tool_name, arguments} (one tool call)" }])
  return { kind: 'text', text: t.text ?? '', ...(t.tool_calls ? { tool_calls: t.tool_calls } : {}), ...(t.num_tokens != null ? { num_tokens: t.num_tokens } : {}) }
}

const chatMessage = z.object({ role: z.string(), content: z.string(), tool_call_id: z.string().optional(), name: z.string().optional() }).loose()

/** SearchGymObservation: what `observation` holds in a reset or step answer (reward and done sit beside it). */
export const OBSERVATION_SCHEMA = z
  .object({
    session_id: z.string().optional().meta({ description: 'reset: the session (HTTP: pass it to /step and /state)' }),
    episode_id: z.string().optional(),
    question: z.string().optional().meta({ description: 'reset: the question' }),
    qa: z.object({ id: z.string(), type: z.string(), hops: z.number().int(), split: z.string(), question: z.string() }).optional().meta({ description: "reset: the question's metadata (no answer)" }),
    tool_schemas: z.array(z.record(z.string(), z.unknown())).optional().meta({ description: 'reset: the tools as OpenAI function schemas' }),
    messages: z.array(chatMessage).meta({ description: 'chat messages this answer adds (reset: system prompt and question; step: tool results or a corrective note; [] once the episode ended)' }),
    text: z.string().meta({ description: "the messages' contents, joined by blank lines" }),
    terminated: z.boolean(),
    truncated: z.boolean(),
    stop_reason: z.string().nullable(),
    step_count: z.number().int(),
    metrics: z.record(z.string(), z.number()).meta({ description: "the env API's step metrics without the gold signals (signal/*)" }),
    logs: z.record(z.string(), z.string()),
    tool_name: z.string().optional().meta({ description: 'a tool-call action: the tool called' }),
    result: z.string().optional().meta({ description: "a tool-call action: the tool's answer as text" }),
    error: z.null().optional(),
    tools: z.array(z.object({ name: z.string(), description: z.string(), input_schema: z.record(z.string(), z.unknown()) })).optional().meta({ description: 'list_tools: the tools (MCP Tool shape)' }),
  })
  .meta({ title: 'SearchGymObservation' })

/** SearchGymState (State, env_server/types.py:178-197, with the episode's question and outcome). */
export const STATE_SCHEMA = z
  .object({
    episode_id: z.string().nullable(),
    step_count: z.number().int(),
    session_id: z.string().nullable(),
    qa_id: z.string().nullable(),
    question: z.string().nullable(),
    split: z.string().nullable(),
    type: z.string().nullable(),
    hops: z.number().int().nullable(),
    done: z.boolean(),
    terminated: z.boolean(),
    truncated: z.boolean(),
    stop_reason: z.string().nullable(),
    reward: z.number().meta({ description: "the episode's return so far: the sum of its step rewards" }),
  })
  .meta({ title: 'SearchGymState' })

type Json = Record<string, unknown>

/** GET /schema (SchemaResponse, env_server/types.py:225-236). */
export function schemaResponse(s: WireSchemas): { action: Json; observation: Json; state: Json } {
  const js = (t: z.ZodType) => z.toJSONSchema(t, { io: 'input', unrepresentable: 'any' }) as Json
  return { action: { title: 'SearchGymAction', ...js(s.action) }, observation: js(OBSERVATION_SCHEMA), state: js(STATE_SCHEMA) }
}
