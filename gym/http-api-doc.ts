// gym/http-api-doc: renders docs/http-api.md, the reference of the gym server's HTTP env API, from the server's own
// objects — the routes a server registers (createGymServer over an empty world), their request schemas (gym/server-
// schemas at the default limits, as JSON Schema), and their responses and error codes (gym/server-routes). A route the
// server registers that the table does not describe (or the reverse) is refused. Run: node bin/run-ts.mjs
// gym/http-api-doc.ts [--check]; --check exits 1 with one line when docs/http-api.md is stale.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { createGymServer, DEFAULT_SERVER_OPTIONS } from './server'
import { gymSchemas } from './server-schemas'
import { COMMON_ERRORS, ERROR_BODY, GYM_ROUTES, type ErrorCode, type GymRoute } from './server-routes'
import { DEFAULT_GYM_OPTIONS } from './make-env'
import { isOpenEnvPath } from './openenv/http-face'
import type { GymWorld } from './world-view'

export const HTTP_API_DOC = fileURLToPath(new URL('../docs/http-api.md', import.meta.url))

/** A world with nothing in it: enough for a server to register its routes. */
const EMPTY_WORLD: GymWorld = {
  name: 'http-api-doc',
  search: async () => [],
  access: async () => undefined,
  qa: () => undefined,
  listQa: () => [],
  close: async () => {},
}

/** Every `METHOD path` of the env API the gym server registers (its handlers, not the middleware every route passes
 *  through; not the OpenEnv face's routes, whose reference is docs/openenv.md). */
export async function registeredRoutes(): Promise<string[]> {
  const s = await createGymServer(EMPTY_WORLD)
  try {
    return [...new Set(s.app.routes.filter((r) => r.method !== 'ALL' && r.path !== '*' && !isOpenEnvPath(r.path)).map((r) => `${r.method} ${r.path}`))]
  } finally {
    s.dispose()
  }
}

type Json = Record<string, unknown>

/** A JSON Schema type in a few words: string (≤ 2048), integer 1–50, array of …, one of …. */
function typeOf(s: Json): string {
  if (Array.isArray(s.anyOf)) {
    const parts = (s.anyOf as Json[]).filter((p) => p.type !== 'null')
    const nullable = parts.length < (s.anyOf as Json[]).length
    const t = parts.length === 0 ? 'any' : parts.map(typeOf).join(' or ')
    return nullable ? `${t} (or null)` : t
  }
  if (s.const !== undefined) return JSON.stringify(s.const)
  if (Array.isArray(s.enum)) return (s.enum as unknown[]).map((v) => JSON.stringify(v)).join(' \\| ')
  if (Array.isArray(s.type)) {
    const ts = (s.type as string[]).filter((t) => t !== 'null')
    const t = ts.map((one) => typeOf({ ...s, type: one })).join(' or ')
    return ts.length < (s.type as string[]).length ? `${t} (or null)` : t
  }
  const t = typeof s.type === 'string' ? s.type : 'any'
  const bounds: string[] = []
  if (t === 'string' && typeof s.maxLength === 'number') bounds.push(`≤ ${s.maxLength} chars`)
  if ((t === 'integer' || t === 'number') && (s.minimum !== undefined || s.maximum !== undefined)) {
    const hi = typeof s.maximum === 'number' && s.maximum < Number.MAX_SAFE_INTEGER ? s.maximum : '∞'
    bounds.push(`${String(s.minimum ?? '−∞')}–${String(hi)}`)
  }
  if (t === 'array') {
    const items = s.items as Json | undefined
    const inner = items && Object.keys(items).length > 0 ? typeOf(items) : 'any'
    return `array of ${inner}${typeof s.maxItems === 'number' ? ` (≤ ${s.maxItems})` : ''}`
  }
  if (t === 'object' && s.properties) return `object {${Object.keys(s.properties as Json).join(', ')}}`
  return bounds.length ? `${t} (${bounds.join(', ')})` : t
}

const jsonSchema = (s: z.ZodType, io: 'input' | 'output') => z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Json

/** The fields of an object schema as a table (field, type, required, default, description), then a table for each
 *  field that is (or may be) an object with fields of its own. */
function fieldTable(s: z.ZodType, io: 'input' | 'output'): string[] {
  return objectTable(jsonSchema(s, io), '')
}

/** Text for a table cell: no HTML tags (an <answer> shows as written), no column breaks. */
const cell = (t: string) => t.replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|')

function objectTable(js: Json, prefix: string): string[] {
  const props = (js.properties ?? {}) as Record<string, Json>
  const req = new Set((js.required ?? []) as string[])
  const rows = ['| field | type | required | default | description |', '| --- | --- | --- | --- | --- |']
  const nested: string[] = []
  for (const [name, p] of Object.entries(props)) {
    rows.push(`| \`${prefix}${name}\` | ${typeOf(p)} | ${req.has(name) ? 'yes' : 'no'} | ${p.default === undefined ? '' : `\`${JSON.stringify(p.default)}\``} | ${cell(String(p.description ?? ''))} |`)
    const parts = Array.isArray(p.anyOf) ? (p.anyOf as Json[]) : [p]
    for (const part of parts)
      if (part.type === 'object' && part.properties) nested.push('', `\`${prefix}${name}\` as an object:`, '', ...objectTable(part, `${prefix}${name}.`))
  }
  const extra = js.additionalProperties === false ? 'Unknown fields are refused (`request.unknown_field`).' : 'Unknown fields are let through.'
  return [...rows, '', extra, ...nested]
}

/** A JSON Schema as a TypeScript-like type, indented, descriptions as comments (the shape exactly as zod checks it). */
function tsType(js: Json, indent: string): string {
  if (Array.isArray(js.anyOf)) return (js.anyOf as Json[]).map((p) => tsType(p, indent)).join(' | ')
  if (js.const !== undefined) return JSON.stringify(js.const)
  if (Array.isArray(js.enum)) return (js.enum as unknown[]).map((v) => JSON.stringify(v)).join(' | ')
  if (Array.isArray(js.type)) return (js.type as string[]).map((t) => tsType({ ...js, type: t }, indent)).join(' | ')
  switch (js.type) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
      return js.type
    case 'integer':
      return 'integer'
    case 'array': {
      const inner = tsType((js.items ?? {}) as Json, indent)
      return /[ |]/.test(inner) && !inner.startsWith('{') ? `(${inner})[]` : `${inner}[]`
    }
    case 'object': {
      const props = (js.properties ?? {}) as Record<string, Json>
      const req = new Set((js.required ?? []) as string[])
      const add = js.additionalProperties
      const lines: string[] = []
      const inner = indent + '  '
      for (const [k, v] of Object.entries(props)) lines.push(`${inner}${k}${req.has(k) ? '' : '?'}: ${tsType(v, inner)}${v.description ? `  // ${String(v.description)}` : ''}`)
      if (typeof add === 'object' && add !== null) lines.push(`${inner}[key: string]: ${tsType(add as Json, inner)}`)
      else if (add !== false && lines.length > 0) lines.push(`${inner}...  // other fields may follow`)
      if (lines.length === 0) return '{ [key: string]: unknown }'
      return `{\n${lines.join('\n')}\n${indent}}`
    }
    default:
      return 'unknown'
  }
}

function shape(s: z.ZodType): string[] {
  return ['```ts', tsType(jsonSchema(s, 'output'), ''), '```']
}

function errorRows(errors: ErrorCode[]): string[] {
  if (errors.length === 0) return ['Only the common errors.']
  return ['| status | code | when |', '| --- | --- | --- |', ...errors.map((e) => `| ${e.status} | \`${e.code}\` | ${e.when} |`)]
}

function routeSection(r: GymRoute, schemas: ReturnType<typeof gymSchemas>): string[] {
  const out = [`### \`${r.method} ${r.path}\``, '', r.summary, '', `Auth: ${r.auth === 'public' ? 'none (public)' : 'the token, when the server has one'}.`, '']
  if (r.query) out.push('Query parameters:', '', ...fieldTable(r.query, 'input'), '')
  if (r.body) out.push(`Request body (JSON; schema \`${r.body}\` of gym/server-schemas.ts):`, '', ...fieldTable(schemas[r.body], 'input'), '')
  else if (r.method !== 'GET') out.push('No request body.', '')
  out.push(`Response ${r.response.status}:`, '', ...shape(r.response.schema), '', 'Errors (besides the common ones):', '', ...errorRows(r.errors), '')
  return out
}

/** The page, from the server's routes and schemas at the default limits (`gym serve` flags change the limits). */
export async function renderHttpApiDoc(): Promise<string> {
  const registered = await registeredRoutes()
  const described = GYM_ROUTES.map((r) => `${r.method} ${r.path}`)
  const missing = registered.filter((r) => !described.includes(r))
  const stale = described.filter((r) => !registered.includes(r))
  if (missing.length || stale.length)
    throw new Error(`gym/server-routes.ts is out of step with gym/server.ts: ${missing.length ? `undescribed ${missing.join(', ')}` : ''}${missing.length && stale.length ? '; ' : ''}${stale.length ? `not registered ${stale.join(', ')}` : ''}`)
  const l = DEFAULT_SERVER_OPTIONS
  const schemas = gymSchemas({ ...l, searchTopK: DEFAULT_GYM_OPTIONS.topK })
  const lines = [
    '# The gym server\'s HTTP env API',
    '',
    '<!-- Generated by `node bin/run-ts.mjs gym/http-api-doc.ts` from gym/server.ts (the routes it registers), gym/server-schemas.ts (request schemas) and gym/server-routes.ts (responses, errors). Do not edit; tests/http-api-doc.test.ts fails when it is stale. -->',
    '',
    '`searchgym gym serve worlds/NAME` serves these routes (default http://127.0.0.1:8000). Limits below are the defaults;',
    `\`gym serve\` flags change them: bodies ≤ ${l.maxBodyBytes} bytes, queries ≤ ${l.maxQueryChars} characters, URLs ≤ ${l.maxUrlChars}, actions ≤ ${l.maxActionChars}, top-k ≤ ${l.maxTopK}, ${l.maxEnvs} open envs, an env closed after ${l.envIdleMs / 1000} s idle.`,
    'Clients: the Python package (python/README.md) and `searchgym.verl_tool`; the gym README has an episode with curl.',
    "The same server also answers OpenEnv's routes (`/reset`, `/step`, `/state`, `/schema`, `/metadata`, `/mcp`, the WebSocket `/ws`, and all of them under `/openenv/`) over the same envs and guards: [docs/openenv.md](openenv.md).",
    '',
    '## Routes',
    '',
    '| method | path | auth | request body |',
    '| --- | --- | --- | --- |',
    ...GYM_ROUTES.map((r) => `| ${r.method} | [\`${r.path}\`](#${anchor(r)}) | ${r.auth === 'public' ? 'public' : 'token'} | ${r.body ? `\`${r.body}\`` : r.query ? 'query parameters' : '—'} |`),
    '',
    '## Auth',
    '',
    'With `gym serve --token T` (or `$SEARCHGYM_TOKEN`) every route but `/health` needs `Authorization: Bearer T`, or the path prefix `/t/T/` (for engines that send no header: `/t/T/retrieve`). Without a token set, no route needs one.',
    '',
    '## Errors',
    '',
    'Every refusal is JSON with a stable `code`:',
    '',
    ...shape(ERROR_BODY),
    '',
    'Common errors (any route):',
    '',
    ...errorRows(COMMON_ERRORS),
    '',
    '## Reference',
    '',
    ...GYM_ROUTES.flatMap((r) => routeSection(r, schemas)),
  ]
  return lines.join('\n').replace(/\n+$/, '') + '\n'
}

/** GitHub's heading anchor of a route section. */
function anchor(r: GymRoute): string {
  return `${r.method} ${r.path}`.toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-')
}

async function main(): Promise<void> {
  const page = await renderHttpApiDoc()
  if (process.argv.includes('--check')) {
    let now = ''
    try {
      now = readFileSync(HTTP_API_DOC, 'utf8')
    } catch {
      // absent: stale
    }
    if (now !== page) {
      process.stderr.write('docs/http-api.md is stale: regenerate it with `node bin/run-ts.mjs gym/http-api-doc.ts` and commit it\n')
      process.exit(1)
    }
    return
  }
  writeFileSync(HTTP_API_DOC, page)
  process.stdout.write(`wrote ${HTTP_API_DOC}\n`)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
