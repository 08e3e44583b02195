// world/build/prehash: the content hash's first sections, hashed in a worker thread while later stages run. The hash
// is one SHA-256 stream over every stage's rows in stage order (contentHash); the rows of the sealed stages — graph,
// docs, write, index, verify: no later stage changes their tables — are final once they are done, so a worker hashes
// them while the qa stage draws (a core is free then). Each later stage's section follows as soon as the stage is done
// and no stage after it may change its rows (Stage.rewrites): the worker reads a world stage's rows itself, the build
// streams another package's (the oracle check's), and at the end whatever is left. Same bytes in the same order: the
// same digest as contentHash on the build's own thread.
import type { Db } from '../../infra/store'
import { canonicalJson } from '../../infra/hash'
import type { WorldConfig } from '../config'
import { WorkerPool } from '../../infra/worker-pool'
import { workerEntry } from '../../infra/worker-bundle'
import type { Stage } from '../stage'
import { WORLD_STAGES } from './stages'
import type { PrehashRequest } from './prehash-worker-main'

/** Stages whose hashed rows no stage after them changes. */
export const SEALED_STAGES: readonly string[] = ['graph', 'docs', 'write', 'index', 'verify']

/** Characters of canonical rows sent to the worker per message. */
const SEND_CHARS = 1 << 20

/** The stages a prehash can take from the front of `stages`: sealed, done, and hashing their rows with the world's
 *  own stage's hashRows (the worker hashes through WORLD_STAGES; a wrapped stage — timing, logging — may keep it). */
export function sealedPrefix(stages: readonly Stage[], status: Record<string, string | undefined>): Stage[] {
  const out: Stage[] = []
  for (const s of stages) {
    const own = WORLD_STAGES.find((w) => w.name === s.name)
    if (!SEALED_STAGES.includes(s.name) || own?.hashRows !== s.hashRows || status[s.name] !== 'done') break
    out.push(s)
  }
  return out
}

export class Prehash {
  /** The stages whose sections it has (the front of the build's list; grows as later stages are done). */
  readonly stages: Stage[]

  private constructor(
    private readonly worker: WorkerPool<PrehashRequest, string | undefined>,
    prefix: readonly Stage[],
  ) {
    this.stages = [...prefix]
  }

  /** Start hashing the sealed stages at the front of `stages` in the world file `dbPath`; undefined if none. */
  static async start(dbPath: string, stages: readonly Stage[], status: Record<string, string | undefined>): Promise<Prehash | undefined> {
    const prefix = sealedPrefix(stages, status)
    if (prefix.length === 0) return undefined
    const pool = await WorkerPool.start<PrehashRequest, string | undefined, never, { dbPath: string; stages: string[] }>({
      name: 'content-hash worker',
      entry: await workerEntry(new URL('./prehash-worker-main.ts', import.meta.url), new URL('./prehash-worker.mjs', import.meta.url)),
      size: 1,
      data: () => ({ dbPath, stages: prefix.map((s) => s.name) }),
      handshake: false,
      error: (m, phase) => new Error(`content-hash worker: ${phase === 'exit' ? m.replace(/^a content-hash worker /, 'it ') : m}`),
    })
    return new Prehash(pool, prefix)
  }

  /** The worker died or was released: later sections are not sent; finish says why. */
  private get over(): boolean {
    return !this.worker.open
  }

  /** After a stage is done: hand over the sections of the next stages of `all` (the build's list) that are done and
   *  final — no stage after them may change their rows under `config` (Stage.rewrites) — in order, up to the first that
   *  is not. A world stage's rows the worker reads itself; another's are streamed from this thread. */
  extend(all: readonly Stage[], status: Record<string, string | undefined>, config: WorldConfig, db: Db): void {
    if (this.over) return
    for (let i = this.stages.length; i < all.length; i++) {
      const s = all[i]
      if (status[s.name] !== 'done' || all.slice(i + 1).some((t) => t.rewrites?.(config).includes(s.name))) return
      const own = WORLD_STAGES.find((w) => w.name === s.name)
      if (own?.hashRows === s.hashRows) this.worker.post({ kind: 'section', name: s.name })
      else this.stream([{ name: s.name, rows: (emit) => s.hashRows(db, (row) => emit(canonicalJson(row))) }])
      this.stages.push(s)
    }
  }

  /** Sections' text (header + rows), in messages of about SEND_CHARS characters. */
  private stream(sections: readonly { name: string; rows: (emit: (line: string) => void) => void }[]): void {
    let buf = ''
    const send = (text: string) => this.worker.post({ kind: 'text', text })
    for (const s of sections) {
      buf += `\u0000section:${s.name}\n`
      s.rows((line) => {
        buf += line
        buf += '\n'
        if (buf.length >= SEND_CHARS) {
          send(buf)
          buf = ''
        }
      })
    }
    if (buf) send(buf)
  }

  /** The digest: the worker's sections, then these sections' rows (`rows`: one stage's canonical rows in order). */
  async finish(rest: readonly { name: string; rows: (emit: (line: string) => void) => void }[]): Promise<string> {
    try {
      // A dead worker: the call below fails with why (the pool's exit error), without streaming the rest.
      if (!this.over) this.stream(rest)
      return (await this.worker.call({ kind: 'end' })) as string
    } finally {
      this.release()
    }
  }

  release(): void {
    void this.worker.close()
  }
}
