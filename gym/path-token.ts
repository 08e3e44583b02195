// gym/path-token: the server token carried as a URL path prefix — `http://host:port/t/TOKEN/retrieve` — for outside
// engines that send no Authorization header (Search-R1's retriever.url, verl's retrieval_service_url, ASearcher's
// address line all take a URL or host:port only). Owns the prefix's shape and the router path without it; the server's
// auth middleware decides what a prefix is worth. Knows nothing of routes.
import { getPath } from 'hono/utils/url'

export const PATH_TOKEN_PREFIX = '/t/'

/** `/t/TOKEN` for a token: what an engine's URL setting or an address line carries before the route. */
export const pathPrefixFor = (token: string): string => `${PATH_TOKEN_PREFIX}${encodeURIComponent(token)}`

/** The token a request path carries (`/t/TOKEN/...`), decoded; undefined when the path has no such prefix. */
export function pathToken(path: string): string | undefined {
  if (!path.startsWith(PATH_TOKEN_PREFIX)) return undefined
  const end = path.indexOf('/', PATH_TOKEN_PREFIX.length)
  const raw = path.slice(PATH_TOKEN_PREFIX.length, end === -1 ? undefined : end)
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/** The raw (undecoded) path of a request URL. */
export function rawPath(url: string): string {
  const start = url.indexOf('/', url.indexOf(':') + 3)
  if (start === -1) return '/'
  let end = url.length
  for (const ch of ['?', '#']) {
    const i = url.indexOf(ch, start)
    if (i !== -1 && i < end) end = i
  }
  return url.slice(start, end)
}

/** Hono's router path with a leading `/t/TOKEN` removed (`/t/TOKEN` alone is `/`): routes match as without it. The
 * prefix is cut from the raw URL, so a token holding an encoded `/` (%2F) cuts as one segment. */
export function getPathWithoutToken(request: Request): string {
  const url = request.url
  const start = url.indexOf('/', url.indexOf(':') + 3)
  if (start === -1 || !url.startsWith(PATH_TOKEN_PREFIX, start)) return getPath(request)
  const raw = rawPath(url)
  const end = raw.indexOf('/', PATH_TOKEN_PREFIX.length)
  if (end === -1) return '/'
  return getPath({ url: url.slice(0, start) + url.slice(start + end) } as Request)
}
