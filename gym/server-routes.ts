// gym/server-routes: the gym server's routes as data — method, path, auth, which request schema of gym/server-schemas
// the route checks its body with, the response's shape (a zod schema, checked against real answers in
// tests/http-api-doc) and the error codes it can answer — for the reference page (gym/http-api-doc) and its check that
// every route the server registers is described. The handlers are gym/server's; this file knows no world.
import { z } from 'zod'
import type { GymSchemas } from './server-schemas'

const message = z.object({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.string(), tool_call_id: z.string().optional(), name: z.string().optional() }).loose()
const qaMeta = z.object({ id: z.string(), type: z.string(), hops: z.number().int(), split: z.enum(['train', 'bench']), question: z.string() })
const searchResult = z.object({ title: z.string(), url: z.string(), snippet: z.string(), score: z.number().optional() })
const stepResult = z.object({
  observation: z.array(message).meta({ description: 'messages to append (tool results, corrective notes); [] once the episode ended' }),
  reward: z.number(),
  terminated: z.boolean().meta({ description: 'ended with an answer' }),
  truncated: z.boolean().meta({ description: 'cut by a budget or an error (scored as no answer)' }),
  stopReason: z.enum(['answer', 'max_turns', 'max_tokens', 'context', 'time_limit', 'error']).optional(),
  metrics: z.record(z.string(), z.number()),
  logs: z.record(z.string(), z.string()),
})
const retrieveHit = z.union([
  z.object({ document: z.object({ id: z.string(), contents: z.string() }).loose(), score: z.number() }).loose(),
  z.object({ id: z.string(), contents: z.string() }).loose(),
])

/** The error body every refusal has (infra/http/errors). */
export const ERROR_BODY = z.object({
  error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().meta({ description: 'stable; match on this' }) }),
})

export interface ErrorCode {
  status: number
  code: string
  when: string
}

export interface GymRoute {
  method: 'GET' | 'POST' | 'DELETE'
  /** As hono registers it (`:id` a path parameter). */
  path: string
  summary: string
  /** Whether the server's token (when one is set) is required. */
  auth: 'token' | 'public'
  /** The request body's schema in gymSchemas (absent: no body). */
  body?: keyof GymSchemas
  /** Query parameters (GET). */
  query?: z.ZodObject
  response: { status: number; schema: z.ZodType }
  errors: ErrorCode[]
}

/** Errors any route can answer: the guards in front of every handler (gym/server, infra/http/host-guard). */
export const COMMON_ERRORS: ErrorCode[] = [
  { status: 401, code: 'auth.unauthorized', when: 'a token is set and the request has neither `Authorization: Bearer TOKEN` nor the path prefix `/t/TOKEN/` (every route but /health)' },
  { status: 403, code: 'request.bad_origin', when: 'a cross-site Origin' },
  { status: 404, code: 'route.not_found', when: 'no such route' },
  { status: 413, code: 'request.too_large', when: 'the body exceeds --max-body-bytes' },
  { status: 415, code: 'request.bad_content_type', when: 'a body that is not application/json' },
  { status: 421, code: 'request.bad_host', when: "a Host that is not this server's (see --allow-host)" },
  { status: 500, code: 'internal', when: 'a bug; see the server log' },
]

/** Errors of a route that reads a JSON body checked by a schema (gym/server-validate, gym/server-schemas). */
const BODY_ERRORS: ErrorCode[] = [
  { status: 400, code: 'request.bad_json', when: 'the body is not valid JSON' },
  { status: 400, code: 'request.bad_body', when: 'the body is not a JSON object' },
  { status: 400, code: 'request.unknown_field', when: 'a field the schema does not know (strict schemas)' },
  { status: 400, code: 'request.missing_field', when: 'a required field is absent' },
  { status: 400, code: 'request.too_long', when: 'a string field over its limit' },
  { status: 400, code: 'request.bad_field', when: 'a field of the wrong type or out of range' },
]

const ENV_ERRORS: ErrorCode[] = [
  { status: 404, code: 'env.not_found', when: 'no open env with this id' },
  { status: 404, code: 'env.expired', when: 'the env was closed after being idle' },
]

export const GYM_ROUTES: GymRoute[] = [
  {
    method: 'GET',
    path: '/health',
    summary:
      'Liveness. Without the token (when one is set) only `{"status":"up"}`; with it, the world, its content hash, its question count, the open and reaped envs and the serving process id (the primary\'s under `--workers N`; "degraded" while a worker is down). Launch scripts compare `pid` and `worldHash` with their own gym\'s.',
    auth: 'public',
    response: {
      status: 200,
      schema: z
        .object({
          status: z.enum(['up', 'ok', 'degraded']),
          world: z.string().optional(),
          worldHash: z.string().optional().meta({ description: "the world's content hash (a built world)" }),
          qa: z.number().int().optional(),
          envs: z.number().int().optional(),
          reaped: z.number().int().optional(),
          pid: z.number().int().optional().meta({ description: 'the serving process (the primary of --workers N)' }),
        })
        .loose(),
    },
    errors: [{ status: 503, code: 'server.starting', when: '`gym serve --workers N` is still starting a worker (with the token or without)' }],
  },
  {
    method: 'GET',
    path: '/v1/qa',
    summary: 'List questions (metadata and text; answers stay on the server), in the order `split` + `index` refer to.',
    auth: 'token',
    query: z.object({
      split: z.enum(['train', 'bench']).optional().meta({ description: 'one split (default: all)' }),
      offset: z.number().int().min(0).optional().meta({ default: 0 }),
      limit: z.number().int().min(0).max(10_000).optional().meta({ default: 100 }),
    }),
    response: { status: 200, schema: z.object({ total: z.number().int(), offset: z.number().int(), items: z.array(qaMeta) }) },
    errors: [{ status: 400, code: 'request.bad_field', when: 'a bad split, offset or limit' }],
  },
  {
    method: 'POST',
    path: '/v1/envs',
    summary: 'Create an env (one episode of one question): its id, the question with its metadata, the first observation (system prompt + question) and the tools as OpenAI function schemas.',
    auth: 'token',
    body: 'createEnv',
    response: { status: 201, schema: z.object({ envId: z.string(), qa: qaMeta, observation: z.array(message), tools: z.array(z.object({ type: z.literal('function'), function: z.object({ name: z.string() }).loose() }).loose()) }) },
    errors: [
      ...BODY_ERRORS,
      { status: 400, code: 'request.bad_body', when: 'both qaId and split/index' },
      { status: 400, code: 'config.unknown_key', when: 'an unknown env option' },
      { status: 400, code: 'options.range', when: 'an env option out of range (other option errors have their own config.* / options.* codes)' },
      { status: 404, code: 'qa.not_found', when: 'no such question id, or index out of range' },
      { status: 429, code: 'env.limit', when: 'too many open envs (--max-envs): close finished ones; `Retry-After: 1` says when to ask again' },
    ],
  },
  {
    method: 'POST',
    path: '/v1/envs/:id/step',
    summary: "One assistant turn: the env parses it (the env's protocol), runs the tool call or scores the answer. A malformed turn is a corrective observation, not an error.",
    auth: 'token',
    body: 'step',
    response: { status: 200, schema: stepResult },
    errors: [...BODY_ERRORS, ...ENV_ERRORS, { status: 409, code: 'env.busy', when: 'a step of this env is still running' }],
  },
  {
    method: 'DELETE',
    path: '/v1/envs/:id',
    summary: "Close an env (free its slot): the episode's statistics.",
    auth: 'token',
    response: { status: 200, schema: z.object({ closed: z.literal(true), stats: z.record(z.string(), z.unknown()) }) },
    errors: ENV_ERRORS,
  },
  {
    method: 'POST',
    path: '/v1/envs/:id/close',
    summary: 'The same as DELETE /v1/envs/:id, for clients that send only POST.',
    auth: 'token',
    response: { status: 200, schema: z.object({ closed: z.literal(true), stats: z.record(z.string(), z.unknown()) }) },
    errors: ENV_ERRORS,
  },
  {
    method: 'POST',
    path: '/v1/search',
    summary: "Stateless search (no env, no budget): the top results as the env's search tool sees them.",
    auth: 'token',
    body: 'search',
    response: { status: 200, schema: z.object({ results: z.array(searchResult) }) },
    errors: [...BODY_ERRORS, { status: 503, code: 'search.*', when: 'the search engine failed' }],
  },
  {
    method: 'POST',
    path: '/v1/access',
    summary: 'Stateless access: the whole page at a URL.',
    auth: 'token',
    body: 'access',
    response: { status: 200, schema: z.object({ page: z.object({ title: z.string(), url: z.string(), text: z.string() }) }) },
    errors: [...BODY_ERRORS, { status: 404, code: 'access.not_found', when: 'no such page' }],
  },
  {
    method: 'POST',
    path: '/retrieve',
    summary:
      "Batch retrieval for outside engines (Search-R1, verl, AReaL/ASearcher): one result list per query, in order. One bad item never fails the batch: it is answered [] or cut, and `notes` says so (header x-searchgym-retrieve-notes: their count). Unknown fields are let through and named in the x-searchgym-ignored-fields header.",
    auth: 'token',
    body: 'retrieve',
    response: { status: 200, schema: z.object({ result: z.array(z.array(retrieveHit)), notes: z.array(z.object({ index: z.number().int(), note: z.string() })).optional() }) },
    errors: [
      ...BODY_ERRORS,
      { status: 413, code: 'request.too_much_work', when: "queries x topk over gym serve's maxRetrieveHits" },
      { status: 413, code: 'response.too_large', when: "the answer would pass gym serve's maxResponseBytes" },
    ],
  },
  {
    method: 'POST',
    path: '/access',
    summary: "ASearcher's batch access: one entry per URL in order, null for an unknown page (never a 404: ASearcher would retry it). `contents` is the title, a newline and the text, as a /retrieve hit.",
    auth: 'token',
    body: 'accessMany',
    response: { status: 200, schema: z.object({ result: z.array(z.object({ id: z.string(), url: z.string(), title: z.string(), contents: z.string(), text: z.string() }).nullable()) }) },
    errors: [...BODY_ERRORS, { status: 400, code: 'request.too_many', when: 'more URLs than --max-batch-queries' }],
  },
]
