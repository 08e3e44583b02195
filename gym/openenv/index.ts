// gym/openenv: the OpenEnv face of `gym serve` — OpenEnv's HTTP routes, its WebSocket session protocol and its MCP
// JSON-RPC over the env API's own env sessions (same envs, budgets, rewards, limits and guards), mounted by
// createGymServer with one call: the error shape first (before the guards), the routes after the env API's, the
// WebSocket on the HTTP server's 'upgrade'. Contracts followed (meta-pytorch/OpenEnv at 685de411 and huggingface/trl at
// f2cd5771, file:line) are listed in docs/openenv.md. Loaded only when a server is made.
import type { Hono, MiddlewareHandler } from 'hono'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Split, Qa } from '../../world'
import { ClusterEnvSessions } from '../cluster-sessions'
import type { EnvSessions } from '../env-sessions'
import type { GymOptions } from '../make-env'
import type { GymWorld } from '../world-view'
import { isOpenEnvPath, openEnvErrorShape, registerOpenEnvRoutes } from './http-face'
import { HttpSessions, type PeerBridge } from './http-sessions'
import { OPENENV_PREFIX, wireSchemas } from './wire'
import { WsFace } from './ws-face'

export { OPENENV_PATHS, OPENENV_PREFIX } from './wire'
export { isOpenEnvPath }

export interface OpenEnvFaceDeps {
  world: GymWorld
  sessions: EnvSessions
  envDefaults: GymOptions
  qaList(split?: Split): Qa[]
  limits: { maxEnvs: number; envIdleMs: number; maxBodyBytes: number; maxActionChars: number; maxQueryChars: number }
  version: string
}

export interface OpenEnvFace {
  /** Register before the guards: turns their refusals on OpenEnv paths into FastAPI's {detail} shape. */
  errorShape: MiddlewareHandler
  /** Register the routes (root and /openenv). */
  mount(app: Hono): void
  /** The HTTP server's 'upgrade' listener (the WebSocket sessions); after mount. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void
  dispose(): void
}

export function openEnvFace(d: OpenEnvFaceDeps): OpenEnvFace {
  const schemas = wireSchemas(d.limits)
  const host = { world: d.world, sessions: d.sessions, envDefaults: d.envDefaults, qaList: d.qaList }
  const s = d.sessions
  const peers: PeerBridge | undefined =
    s instanceof ClusterEnvSessions
      ? { ...s.worker, call: (w, head, payload) => s.callLayerOp(w, head, payload), handle: (op, fn) => s.handleLayerOp(op, fn) }
      : undefined
  const http = new HttpSessions(host, { maxSessions: d.limits.maxEnvs, idleMs: d.limits.envIdleMs }, peers)
  let ws: WsFace | undefined
  return {
    errorShape: openEnvErrorShape(),
    mount(app) {
      for (const base of ['', OPENENV_PREFIX]) registerOpenEnvRoutes(app, base, { world: d.world, schemas, sessions: http, defaultAccess: d.envDefaults.access, version: d.version })
      ws = new WsFace(app, host, schemas, { maxSessions: d.limits.maxEnvs, idleMs: d.limits.envIdleMs, maxMessageBytes: d.limits.maxBodyBytes }, d.envDefaults.access)
    },
    upgrade(req, socket, head) {
      if (!ws) {
        socket.destroy()
        return
      }
      ws.upgrade(req, socket, head)
    },
    dispose() {
      ws?.dispose()
      http.dispose()
    },
  }
}
