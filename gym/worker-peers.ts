// gym/worker-peers: the channel between `gym serve --workers N` processes — each worker listens on a Unix socket;
// a peer sends it framed calls and gets framed answers. A frame is [u32 head bytes][u32 payload bytes][head JSON]
// [payload UTF-8], so a step's answer (already JSON text) crosses without being escaped or re-parsed. A peer whose
// socket closes fails the calls pending on that connection at once (never a hang); a call with a deadline fails when
// it passes (a stopped or hung peer), and its late answer, if one comes, goes to the caller's onLate (so a create that
// timed out can close the env it made). The link also says since when the peer has not answered anything
// (unansweredSince). Knows nothing of envs or HTTP.
import { createConnection, createServer, type Server, type Socket } from 'node:net'

export type PeerHead = Record<string, unknown>

/** Late answers a link remembers at most (calls that timed out and may still be answered). */
const MAX_LATE = 10_000

/** What a call's handler answers: the payload text, or an error the caller turns back into a status. */
export type PeerHandler = (head: PeerHead, payload: string) => Promise<string>

export interface PeerFailure {
  status: number
  code: string
  message: string
  param: string | null
}

/** A call that did not get an answer: the peer is gone or did not answer in time. */
export class PeerDownError extends Error {
  constructor(
    message: string,
    /** The peer may be alive but busy: it did not answer in time (else it is gone or cannot be reached). */
    readonly timedOut = false,
  ) {
    super(message)
  }
}

function encode(head: PeerHead, payload: string): Buffer {
  const h = Buffer.from(JSON.stringify(head))
  const p = Buffer.from(payload)
  const b = Buffer.allocUnsafe(8 + h.length + p.length)
  b.writeUInt32BE(h.length, 0)
  b.writeUInt32BE(p.length, 4)
  h.copy(b, 8)
  p.copy(b, 8 + h.length)
  return b
}

/** Calls onFrame for each whole frame read from the socket. */
function readFrames(sock: Socket, onFrame: (head: PeerHead, payload: string) => void): void {
  let buf: Buffer = Buffer.alloc(0)
  sock.on('data', (d: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, d]) : d
    let off = 0
    while (buf.length - off >= 8) {
      const hl = buf.readUInt32BE(off)
      const pl = buf.readUInt32BE(off + 4)
      if (buf.length - off < 8 + hl + pl) break
      const head = JSON.parse(buf.toString('utf8', off + 8, off + 8 + hl)) as PeerHead
      const payload = buf.toString('utf8', off + 8 + hl, off + 8 + hl + pl)
      off += 8 + hl + pl
      onFrame(head, payload)
    }
    buf = off === buf.length ? Buffer.alloc(0) : buf.subarray(off)
  })
}

/** Answer peers' calls on a Unix socket path. toFailure maps a thrown error to the status the caller reports. */
export function listenPeers(path: string, handler: PeerHandler, toFailure: (e: unknown) => PeerFailure): Promise<Server> {
  const srv = createServer((sock) => {
    sock.setNoDelay(true)
    sock.on('error', () => sock.destroy())
    readFrames(sock, (head, payload) => {
      handler(head, payload).then(
        (text) => sock.writable && sock.write(encode({ i: head.i, ok: true }, text)),
        (e: unknown) => sock.writable && sock.write(encode({ i: head.i, ok: false, ...toFailure(e) }, '')),
      )
    })
  })
  return new Promise((resolve, reject) => {
    srv.once('error', reject)
    srv.listen(path, () => resolve(srv))
  })
}

/** Calls to one peer over one lazily opened connection; answers match calls by a per-link counter. */
export class PeerLink {
  private sock: Socket | undefined
  private next = 1
  private readonly pending = new Map<number, { resolve(t: string): void; reject(e: Error): void; timer?: NodeJS.Timeout; sock: Socket }>()
  /** Calls whose deadline passed, by id: what to do with their answer if it still comes (bounded: oldest dropped). */
  private readonly late = new Map<number, (payload: string) => void>()
  /** Set once the peer is known to have exited: calls fail at once. */
  dead = false
  /** When (performance.now() ms) the first call sent since the peer last answered anything was sent; undefined while
   *  every call sent has been followed by some answer. A peer that answers nothing for long is stopped or hung. */
  unansweredSince: number | undefined

  constructor(
    private readonly path: string,
    private readonly name: string,
  ) {}

  /** The payload of the answer; a PeerFailure-shaped Error (with .failure) when the peer's handler threw. With
   *  timeoutMs > 0 the call fails with a timed-out PeerDownError when no answer came in time; a successful answer
   *  arriving after that goes to onLate. */
  call(head: PeerHead, payload = '', timeoutMs = 0, onLate?: (payload: string) => void): Promise<string> {
    if (this.dead) return Promise.reject(new PeerDownError(`${this.name} is down`))
    const s = this.socket()
    const i = this.next++
    this.unansweredSince ??= performance.now()
    return new Promise<string>((resolve, reject) => {
      const entry: { resolve(t: string): void; reject(e: Error): void; timer?: NodeJS.Timeout; sock: Socket } = { resolve, reject, sock: s }
      if (timeoutMs > 0)
        entry.timer = setTimeout(() => {
          this.pending.delete(i)
          if (onLate) {
            this.late.set(i, onLate)
            if (this.late.size > MAX_LATE) this.late.delete(this.late.keys().next().value!)
          }
          reject(new PeerDownError(`${this.name} did not answer within ${timeoutMs} ms`, true))
        }, timeoutMs)
      this.pending.set(i, entry)
      s.write(encode({ ...head, i }, payload))
    })
  }

  /** Calls sent and not yet answered (nor failed). */
  get inFlight(): number {
    return this.pending.size
  }

  private socket(): Socket {
    if (this.sock) return this.sock
    const s = createConnection(this.path)
    s.setNoDelay(true)
    this.sock = s
    readFrames(s, (head, payload) => {
      this.unansweredSince = undefined
      const lateAnswer = this.late.get(head.i as number)
      if (lateAnswer) {
        this.late.delete(head.i as number)
        if (head.ok) lateAnswer(payload)
        return
      }
      const p = this.pending.get(head.i as number)
      if (!p) return
      this.pending.delete(head.i as number)
      if (p.timer) clearTimeout(p.timer)
      if (head.ok) p.resolve(payload)
      else p.reject(Object.assign(new Error(String(head.message)), { failure: head as unknown as PeerFailure }))
    })
    const fail = (why: string) => {
      if (this.sock === s) {
        this.sock = undefined
        this.unansweredSince = undefined
        this.late.clear()
      }
      // Only the calls sent on this connection: a peer restarted at the same path already has a new one.
      for (const [i, p] of this.pending) {
        if (p.sock !== s) continue
        if (p.timer) clearTimeout(p.timer)
        this.pending.delete(i)
        p.reject(new PeerDownError(`${this.name} ${why}`))
      }
    }
    s.on('error', (e) => fail(`cannot be reached (${(e as NodeJS.ErrnoException).code ?? e.message})`))
    s.on('close', () => fail('closed its connection'))
    return s
  }

  close(): void {
    this.sock?.destroy()
    this.sock = undefined
    this.unansweredSince = undefined
    this.late.clear()
  }
}
