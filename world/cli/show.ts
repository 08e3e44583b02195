// world/cli/show: `searchgym world show DIR <name|url|id>` — an entity, its attributes, its edges and its document;
// `--list` names some entities of each type to start from.
import { WorldError } from '../../infra/errors'
import { handler, type Command } from '../../infra/cli-util'
import { openWorld } from '../store/open'
import { relation } from '../schema'
import { showQaLines } from '../build/run-qa'

/** `--list N`: up to N entities per type (name, type, id), so a newcomer has names to pass to `world show`. */
export function listLines(w: { entities(): { id: string; type: string; name: string }[] }, perType: number): string[] {
  const byType = new Map<string, { id: string; name: string }[]>()
  for (const e of w.entities()) {
    const g = byType.get(e.type) ?? []
    if (g.length < perType) g.push(e)
    byType.set(e.type, g)
  }
  const out: string[] = []
  for (const [type, es] of [...byType].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) for (const e of es) out.push(`${e.name}\t${type}\t${e.id}`)
  return out
}

export const showCommand: Command = {
  command: 'show <dir> [ref] [id]',
  describe: 'show an entity (by id, URL or exact name): attributes, facts and document; `show DIR qa <id>`: a question, its answers, path and evidence; `show DIR --list`: names to try',
  builder: (y) =>
    y
      .positional('dir', { type: 'string', demandOption: true, describe: 'world folder (written by world build --out)' })
      .positional('ref', { type: 'string', describe: "an entity's id, URL or exact name (see --list), or the word qa" })
      .positional('id', { type: 'string', describe: 'QA id (with ref = qa; ids are in world export or world stats)' })
      .option('list', { type: 'boolean', default: false, describe: 'list some entities of each type (name, type, id) instead of showing one' })
      .option('per-type', { type: 'number', default: 3, describe: 'with --list: how many entities of each type' })
      .example('searchgym world show worlds/paper --list', 'a few entity names of each type')
      .example('searchgym world show worlds/paper "<a name from --list>"', 'an entity, its facts and its document'),
  handler: handler(async (raw: object) => {
    const a = raw as { dir: string; ref?: string; id?: string; list: boolean; perType: number }
    if (a.list) {
      const n = a.perType
      if (!Number.isInteger(n) || n < 1) throw new WorldError('world.args', `--per-type must be a positive integer, got ${a.perType}`)
      const w = openWorld(a.dir, { allowIncomplete: true })
      try {
        process.stdout.write(listLines(w, n).join('\n') + '\n')
      } finally {
        w.close()
      }
      return
    }
    if (a.ref === undefined) throw new WorldError('world.args', `world show needs what to show: an entity's id, URL or exact name, 'qa <id>', or --list for names (searchgym world show ${a.dir} --list)`)
    if (a.ref === 'qa' && a.id !== undefined) {
      process.stdout.write(showQaLines(a.dir, String(a.id)).join('\n') + '\n')
      return
    }
    const w = openWorld(a.dir, { allowIncomplete: true })
    try {
      const found = w.findEntities(String(a.ref))
      if (found.length === 0) throw new WorldError('world.no_entity', `no entity with id, URL or name '${a.ref}' in ${a.dir}; names to try: searchgym world show ${a.dir} --list`)
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
