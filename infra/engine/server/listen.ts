// infra/engine/server/listen: puts a hono app on a TCP port with @hono/node-server and hands back its URL and a close().
import { serve } from '@hono/node-server'
import type { Hono } from 'hono'
import type { AddressInfo } from 'node:net'
import { EngineError } from '../../errors'

export interface RunningServer {
  /** e.g. http://127.0.0.1:8000 (the OpenAI base URL is this + '/v1'). */
  url: string
  port: number
  close(): Promise<void>
}

/** How long an idle keep-alive connection is kept open (see listen()). */
export const KEEP_ALIVE_MS = 65_000

/** Listen on host:port (port 0 = a free port chosen by the OS). */
export function listen(app: Hono, opts: { port?: number; host?: string } = {}): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1'
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: opts.port ?? 0, hostname: host }, (info: AddressInfo) => {
      const urlHost = info.family === 'IPv6' ? `[${info.address}]` : info.address
      resolve({
        url: `http://${urlHost}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((res, rej) => {
            server.close((err?: Error) => (err ? rej(err) : res()))
            if ('closeAllConnections' in server) (server as { closeAllConnections(): void }).closeAllConnections()
          }),
      })
    })
    // Node's 5 s keep-alive is 1 s above undici's idle reuse limit (4 s): a client whose event loop is starved past that
    // second (a loaded machine) reuses a socket the server has just closed and gets ECONNRESET — a spurious "network"
    // retry in every long bench run. Idle sockets stay open 65 s; request headers still must arrive within 66 s.
    const http = server as unknown as { keepAliveTimeout: number; headersTimeout: number }
    http.keepAliveTimeout = KEEP_ALIVE_MS
    http.headersTimeout = KEEP_ALIVE_MS + 1000
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(new EngineError('engine.serve_listen', `cannot listen on ${host}:${opts.port ?? 0}: ${e.code ?? e.message}; choose another --port`, { cause: e })),
    )
  })
}
