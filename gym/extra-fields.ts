// gym/extra-fields: the fields an outside engine may add to a /retrieve or /access body (engines grow their payloads:
// a request id, a session tag, sampling hints) — accepted and answered as without them, and noted: the names go back
// in the x-searchgym-ignored-fields header and are logged once per route and name on stderr. Knows no routes.

/** The fields each lenient route reads; anything else is ignored (and noted). */
export const KNOWN_FIELDS = {
  '/retrieve': ['queries', 'topk', 'return_scores'],
  '/access': ['urls'],
} as const

export const IGNORED_FIELDS_HEADER = 'x-searchgym-ignored-fields'

/** Notes unknown fields: returns the header value (names, comma-separated, each cut to 60 characters; at most 20), or
 * undefined when there is none. Logs each (route, name) once per process. */
export function extraFieldNotes(logged: Set<string>, route: keyof typeof KNOWN_FIELDS, body: Record<string, unknown>): string | undefined {
  const known: readonly string[] = KNOWN_FIELDS[route]
  const extra = Object.keys(body).filter((k) => !known.includes(k))
  if (extra.length === 0) return undefined
  const names = extra.slice(0, 20).map((k) => k.slice(0, 60).replace(/[^\x21-\x7e]/g, '?'))
  const fresh = names.filter((n) => !logged.has(`${route} ${n}`))
  if (fresh.length > 0 && logged.size < 1000) {
    for (const n of fresh) logged.add(`${route} ${n}`)
    process.stderr.write(`searchgym gym server: ${route} ignores unknown body field(s) ${fresh.map((n) => JSON.stringify(n)).join(', ')} (answered as without them; logged once)\n`)
  }
  return names.join(',')
}
