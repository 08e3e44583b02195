// infra/http/host-guard: the one Host/Origin allowlist every server (gym serve, model serve, view) puts in front of
// its routes, against DNS rebinding and blind cross-site requests. Allowed: loopback names, the bound host, this
// machine's own names and interface addresses when bound to all interfaces, and --allow-host values ('*': any).
// Also the JSON-only guard for POST routes (a cross-site form or text/plain POST needs no CORS preflight).
// Also the checks a server's token, bind address and allow-list get before it listens (tokenProblem, openHostWarning,
// bindHostProblem, allowHostProblem).
// Knows nothing of any server's routes.
import type { MiddlewareHandler } from 'hono'
import { hostname as osHostname, networkInterfaces } from 'node:os'
import { errorBody } from './errors'

export interface HostGuardOptions {
  /** The host the server is bound to (e.g. 127.0.0.1, 0.0.0.0, ::, a name). */
  bindHost: string
  /** Extra Host names to accept ('*' accepts any: a server behind a proxy that rewrites Host). */
  allowHosts?: readonly string[]
}

const LOOPBACK = ['localhost', '127.0.0.1', '::1', '[::1]']
const WILDCARD = new Set(['0.0.0.0', '::', '[::]', ''])

/** Why a bearer token cannot work (a blank one, or one with spaces or control characters, would make every request
 *  401: the header's value is trimmed), or undefined when it can. '' means no token (no auth). */
export function tokenProblem(token: string): string | undefined {
  if (token === '') return undefined
  if (token.trim() === '') return 'is blank (it would refuse every request); give a token, or none for no auth'
  if (/[\s\x00-\x1f\x7f]/.test(token)) return 'has spaces or control characters (a Bearer header cannot carry them); give one word'
  return undefined
}

/** Why a bind host cannot work (a blank one), or undefined. */
export function bindHostProblem(host: string): string | undefined {
  return host.trim() === '' ? 'must be a host name or address, e.g. 127.0.0.1' : undefined
}

/** Why an allow-list of Host names cannot work (a blank entry, or one with a scheme, path or space), or undefined. */
export function allowHostProblem(hosts: readonly string[]): string | undefined {
  return hosts.some((h) => h.trim() === '' || /[\s/]/.test(h.trim())) ? 'must list host names or addresses without scheme or path, e.g. gpu-node-3' : undefined
}

/** The one-line warning for a server bound beyond loopback with no token, or undefined. */
export function openHostWarning(host: string, token: string, server: string): string | undefined {
  const h = stripBrackets(host.trim().toLowerCase())
  if (token !== '' || LOOPBACK.includes(h) || /^127\./.test(h) || h.endsWith('.localhost')) return undefined
  return `${server} listens on ${host}${WILDCARD.has(h) ? ' (every interface)' : ''} with no --token: anyone who can reach this machine can use it; set --token (or $SEARCHGYM_TOKEN)`
}

/** The set of lower-case host names (no port) this server answers to; null when any host is allowed. */
export function allowedHosts(o: HostGuardOptions): Set<string> | null {
  const extra = (o.allowHosts ?? []).map((h) => h.trim().toLowerCase()).filter((h) => h !== '')
  if (extra.includes('*')) return null
  const out = new Set<string>([...LOOPBACK, ...extra.map(stripBrackets)])
  const bind = o.bindHost.trim().toLowerCase()
  if (WILDCARD.has(bind)) {
    // Bound to every interface: the machine's own name and addresses are how other nodes reach it.
    out.add(osHostname().toLowerCase())
    for (const addrs of Object.values(networkInterfaces())) for (const a of addrs ?? []) out.add(a.address.toLowerCase())
  } else out.add(stripBrackets(bind))
  for (const h of [...out]) if (h.endsWith('.localhost') || /^127\./.test(h)) out.add(h)
  return out
}

/** The host name of a Host header value or an Origin URL, lower-case, without port or brackets; null if unparsable. */
export function hostOf(value: string, isOrigin = false): string | null {
  try {
    const u = new URL(isOrigin ? value : `http://${value}`)
    return stripBrackets(u.hostname.toLowerCase())
  } catch {
    return null
  }
}

function stripBrackets(h: string): string {
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h
}

function isAllowed(allowed: Set<string> | null, host: string | null): boolean {
  if (allowed === null) return true
  if (host === null) return false
  return allowed.has(host) || host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host)
}

/**
 * Refuses (421 for Host, 403 for Origin) a request whose Host header names a host this server is not, or whose
 * Origin header is a page on another host. A request with no Origin (curl, Python requests, the engines' clients)
 * passes the Origin check; every HTTP/1.1 request has a Host.
 */
export function hostGuard(o: HostGuardOptions): MiddlewareHandler {
  const allowed = allowedHosts(o)
  return async (c, next) => {
    const host = c.req.header('host')
    if (host !== undefined && !isAllowed(allowed, hostOf(host))) {
      return c.json(errorBody(421, 'request.bad_host', `Host '${host.slice(0, 100)}' is not this server's; start it with --allow-host NAME to accept it`), 421)
    }
    const origin = c.req.header('origin')
    if (origin !== undefined && origin !== 'null' && !isAllowed(allowed, hostOf(origin, true))) {
      return c.json(errorBody(403, 'request.bad_origin', `cross-site request from '${origin.slice(0, 100)}' refused`), 403)
    }
    if (origin === 'null') return c.json(errorBody(403, 'request.bad_origin', 'cross-site request from an opaque origin refused'), 403)
    return next()
  }
}

/** Refuses (415) a POST/PUT/PATCH whose Content-Type is not JSON: blind cross-site POSTs can only send simple types. */
export function requireJson(): MiddlewareHandler {
  return async (c, next) => {
    const m = c.req.method
    if (m === 'POST' || m === 'PUT' || m === 'PATCH') {
      const ct = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase()
      if (ct !== 'application/json' && !ct.endsWith('+json'))
        return c.json(errorBody(415, 'request.bad_content_type', `Content-Type must be application/json, got '${ct.slice(0, 100) || 'none'}'`), 415)
    }
    return next()
  }
}
