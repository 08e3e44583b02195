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
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(new EngineError('engine.serve_listen', `cannot listen on ${host}:${opts.port ?? 0}: ${e.code ?? e.message}; choose another --port`, { cause: e })),
    )
  })
}
