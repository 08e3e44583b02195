// world/cli/show: `searchgym world show DIR <name|url|id>` — an entity, its attributes, its edges and its document.
import { WorldError } from '../../infra/errors'
import { handler, type Command } from '../../infra/cli-util'
import { openWorld } from '../store/open'
import { relation } from '../schema'
import { showQaLines } from '../build/run-qa'

export const showCommand: Command = {
  command: 'show <dir> <ref> [id]',
  describe: 'show an entity (by id, URL or exact name): attributes, facts and document; `show DIR qa <id>`: a question, its answers, path and evidence',
  builder: (y) =>
    y.positional('dir', { type: 'string', demandOption: true }).positional('ref', { type: 'string', demandOption: true }).positional('id', { type: 'string', describe: 'QA id (with ref = qa)' }),
  handler: handler(async (raw: object) => {
    const a = raw as { dir: string; ref: string; id?: string }
    if (a.ref === 'qa' && a.id !== undefined) {
      process.stdout.write(showQaLines(a.dir, String(a.id)).join('\n') + '\n')
      return
    }
    const w = openWorld(a.dir, { allowIncomplete: true })
    try {
      const found = w.findEntities(String(a.ref))
      if (found.length === 0) throw new WorldError('world.no_entity', `no entity with id, URL or name '${a.ref}' in ${a.dir}`)
      const out: string[] = []
      for (const e of found) {
        out.push(`${e.name}  [${e.type}, ${e.id}]  ${e.url}`)
        for (const [k, v] of Object.entries(e.attrs)) out.push(`  ${k}: ${v}`)
        const { out: o, in: i } = w.edgesOf(e.id)
        const name = (id: string) => w.entity(id)?.name ?? id
        for (const ed of o) out.push(`  -> ${ed.id} ${ed.relation}: ${(relation(ed.relation)?.forward[0] ?? '{s} {t}').replace('{s}', e.name).replace('{t}', name(ed.target))}`)
        for (const ed of i) out.push(`  <- ${ed.id} ${ed.relation}: ${(relation(ed.relation)?.inverse[0] ?? '{s} {t}').replace('{s}', name(ed.source)).replace('{t}', e.name)}`)
        const d = w.docOf(e.id)
        out.push('', d ? d.text : '(no document yet)', `(${d?.facts.length ?? 0} facts recorded)`, '')
      }
      process.stdout.write(out.join('\n') + '\n')
    } finally {
      w.close()
    }
  }),
}
