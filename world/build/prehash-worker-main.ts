// world/build/prehash-worker-main: the content-hash worker — opens the world file read-only, hashes the sealed stages'
// sections (header + canonical rows, as contentHash writes them), then, in the order sent, the sections of stages the
// build says are final (read here) and the text the build streams, and answers with the SHA-256 digest. Never writes.
import { createHash } from 'node:crypto'
import { parentPort, workerData } from 'node:worker_threads'
import { canonicalJson } from '../../infra/hash'
import { openDb } from '../../infra/store'
import { WORLD_STAGES } from './stages'

export type PrehashRequest = { kind: 'section'; name: string } | { kind: 'text'; text: string } | { kind: 'end' }
export type PrehashMessage = { kind: 'digest'; digest: string } | { kind: 'failed'; message: string }

async function main(): Promise<void> {
  const port = parentPort!
  const { dbPath, stages } = workerData as { dbPath: string; stages: string[] }
  // Requests queue up while the sections are hashed (the port delivers them once this thread is free).
  const queue: PrehashRequest[] = []
  let wake: (() => void) | undefined
  port.on('message', (m: PrehashRequest) => {
    queue.push(m)
    wake?.()
  })
  const h = createHash('sha256')
  const db = openDb(dbPath, { readonly: true, mustExist: true })
  try {
    let buf = ''
    const section = (name: string) => {
      const stage = WORLD_STAGES.find((s) => s.name === name)
      if (!stage) throw new Error(`no world stage named ${name}`)
      buf += `\u0000section:${name}\n`
      stage.hashRows(db, (row) => {
        buf += canonicalJson(row)
        buf += '\n'
        if (buf.length >= 1 << 20) {
          h.update(buf)
          buf = ''
        }
      })
      h.update(buf)
      buf = ''
    }
    for (const name of stages) section(name)
    for (;;) {
      while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve))
      const m = queue.shift()!
      if (m.kind === 'end') break
      if (m.kind === 'section') section(m.name)
      else h.update(m.text)
    }
  } finally {
    db.close()
  }
  port.postMessage({ kind: 'digest', digest: h.digest('hex') } satisfies PrehashMessage)
  port.close()
}

main().catch((e: unknown) => parentPort!.postMessage({ kind: 'failed', message: e instanceof Error ? e.message : String(e) } satisfies PrehashMessage))
