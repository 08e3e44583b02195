// world/build/prehash-worker-main: the content-hash worker — opens the world file read-only, hashes the sealed stages'
// sections (header + canonical rows, as contentHash writes them), then, in the order sent, the sections of stages the
// build says are final (read here) and the text the build streams, and answers with the SHA-256 digest. Never writes.
import { createHash } from 'node:crypto'
import { serveWorker } from '../../infra/worker-serve'
import { canonicalJson } from '../../infra/hash'
import { openDb } from '../../infra/store'
import { WORLD_STAGES } from './stages'

export type PrehashRequest = { kind: 'section'; name: string } | { kind: 'text'; text: string } | { kind: 'end' }

// Posts (section, text) are handled in the order sent, while the build goes on; 'end' is the one call: the digest.
serveWorker<{ dbPath: string; stages: string[] }, PrehashRequest, string | undefined>(
  ({ dbPath, stages }) => {
    const h = createHash('sha256')
    const db = openDb(dbPath, { readonly: true, mustExist: true })
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
    try {
      for (const name of stages) section(name)
    } catch (e) {
      db.close()
      throw e
    }
    return {
      handle(m) {
        if (m.kind === 'section') section(m.name)
        else if (m.kind === 'text') h.update(m.text)
        else {
          db.close()
          return h.digest('hex')
        }
        return undefined
      },
    }
  },
  { handshake: false },
)
