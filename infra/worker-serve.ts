// infra/worker-serve: the worker side of infra/worker-pool — a worker main calls `serveWorker(init)` once: `init`
// opens what the worker holds (a world's index, a model) from its workerData, then every call is handed to the
// handler and its result, error or progress posted back under the call's id; a post (no id) is handled in order with
// no reply. The handshake ('ready' with an optional value, or 'failed' with the one-line reason) is sent here.
import { parentPort, workerData } from 'node:worker_threads'
import type { PoolCall, PoolReply } from './worker-pool'

export interface WorkerHandler<Req, Res, Prog = never> {
  /** One call (or post). `progress` posts a progress message to the caller (a post's progress goes nowhere). */
  handle(req: Req, progress: (p: Prog) => void): Res | Promise<Res>
  /** What the parent's handshake receives (e.g. the backend the worker got). */
  readyValue?: unknown
}

/** An error's code, when it carries one (the project's errors do), passed to the parent's typed error. */
function codeOf(e: unknown): string | undefined {
  const c = (e as { code?: unknown } | null)?.code
  return typeof c === 'string' ? c : undefined
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** Serve the pool's calls in this worker thread; `handshake: false` for a pool started without one; `serial`: one
 *  call at a time, in arrival order (the next starts when the last has answered), for a handler that is not
 *  reentrant. */
export function serveWorker<D, Req, Res, Prog = never>(
  init: (data: D) => WorkerHandler<Req, Res, Prog> | Promise<WorkerHandler<Req, Res, Prog>>,
  opts: { handshake?: boolean; serial?: boolean } = {},
): void {
  const port = parentPort
  if (!port) throw new Error('serveWorker runs in a worker thread')
  const send = (m: PoolReply<Res, Prog>) => port.postMessage(m)
  const handlerP = Promise.resolve().then(() => init(workerData as D))
  // Calls that arrive before init is done wait for it (a pool without a handshake may send at once).
  // Serial: each call starts after the one before it answered (a chain; a failed call does not stop it).
  let turn: Promise<unknown> = handlerP
  port.on('message', (m: PoolCall<Req>) => {
    const after = opts.serial ? turn : handlerP
    const done = after.then(
      () => handlerP,
      () => handlerP,
    ).then(
      async (h) => {
        const id = m.id
        try {
          const value = await h.handle(m.req, (p) => {
            if (id !== undefined) send({ kind: 'progress', id, value: p })
          })
          if (id !== undefined) send({ kind: 'result', id, value })
        } catch (e) {
          if (id !== undefined) send({ kind: 'error', id, message: messageOf(e), code: codeOf(e) })
          // A post has no caller to tell: the worker fails, and the pool fails its calls with why.
          else
            process.nextTick(() => {
              throw e
            })
        }
      },
      (e: unknown) => {
        if (m.id !== undefined) send({ kind: 'error', id: m.id, message: messageOf(e), code: codeOf(e) })
      },
    )
    if (opts.serial) turn = done.catch(() => undefined)
  })
  if (opts.handshake === false) return
  handlerP.then(
    (h) => send({ kind: 'ready', value: h.readyValue }),
    (e: unknown) => send({ kind: 'failed', message: messageOf(e), code: codeOf(e) }),
  )
}
