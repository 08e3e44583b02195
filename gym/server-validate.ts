// gym/server-validate: the gym server's JSON body parse — not JSON or not an object is an HttpError with a stable code
// (the one kit in infra/http). Field checks are the zod schemas in server-schemas.ts.
import type { Context } from 'hono'
import { HttpError } from '../infra/http/errors'

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

/** A request's body read as text and parsed (parseJsonBody). */
export async function jsonBody(c: Context): Promise<Body> {
  return parseJsonBody(await c.req.text())
}
