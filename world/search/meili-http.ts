// world/search/meili-http: a keep-alive HTTP layer (node:http) for the meilisearch client's `httpClient` option.
// The client's default fetch costs ~48 ms per search on loopback; a pooled socket costs a few. Knows no Meili API.
import http from 'node:http'
import https from 'node:https'

/** A non-2xx answer of the server, with Meilisearch's error code when it sent one. */
export class MeiliHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'MeiliHttpError'
  }
}

/** The server could not be reached at all (refused, reset, DNS, timeout). */
export class MeiliConnectError extends Error {
  constructor(
    readonly url: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'MeiliConnectError'
  }
}

export interface KeepAliveClient {
  request: (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => Promise<unknown>
  close(): void
}

function headerRecord(h: ConstructorParameters<typeof Headers>[0]): Record<string, string> {
  const out: Record<string, string> = {}
  new Headers(h).forEach((v, k) => (out[k] = v))
  return out
}

/** An `httpClient` for `new Meilisearch({ httpClient })`: resolves with parsed JSON, rejects on errors. */
export function keepAliveClient(opts: { timeoutMs?: number; maxSockets?: number } = {}): KeepAliveClient {
  const timeoutMs = opts.timeoutMs ?? 60_000
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 16 })
  const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 16 })
  const request = (input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1] = {}): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input))
      const secure = url.protocol === 'https:'
      const body = typeof init.body === 'string' ? init.body : undefined
      const headers = headerRecord(init.headers)
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body))
      const req = (secure ? https : http).request(
        url,
        { method: init.method ?? 'GET', headers, agent: secure ? httpsAgent : httpAgent },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('error', (e) => reject(new MeiliConnectError(url.origin, `reading the answer of ${url.origin} failed: ${e.message}`, { cause: e })))
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            let json: unknown = undefined
            try {
              json = text === '' ? undefined : JSON.parse(text)
            } catch {
              json = undefined
            }
            const status = res.statusCode ?? 0
            if (status >= 200 && status < 300) return resolve(json)
            const o = (json ?? {}) as { code?: unknown; message?: unknown }
            const code = typeof o.code === 'string' ? o.code : `http_${status}`
            const msg = typeof o.message === 'string' ? o.message : text.slice(0, 200) || `HTTP ${status}`
            reject(new MeiliHttpError(status, code, msg))
          })
        },
      )
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
      req.on('error', (e) => reject(new MeiliConnectError(url.origin, `cannot reach ${url.origin}: ${e.message}`, { cause: e })))
      if (body !== undefined) req.write(body)
      req.end()
    })
  return {
    request,
    close() {
      httpAgent.destroy()
      httpsAgent.destroy()
    },
  }
}

/** The first MeiliHttpError / MeiliConnectError in an error's cause chain (the client wraps ours). */
export function rootMeiliError(e: unknown): MeiliHttpError | MeiliConnectError | undefined {
  for (let cur: unknown = e, i = 0; cur && i < 8; i++) {
    if (cur instanceof MeiliHttpError || cur instanceof MeiliConnectError) return cur
    cur = (cur as { cause?: unknown }).cause
  }
  return undefined
}
