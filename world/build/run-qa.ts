// world/build/run-qa: (re)running the qa and split stages of a built world (the `world qa` command) through the normal
// build runner, so stage status, resumption and the content hash stay the pipeline's; and `show qa`.
import { lockDir } from '../../infra/lock'
import { WorldError } from '../../infra/errors'
import { openDb, tx } from '../../infra/store'
import { buildWorld, type BuildResult } from './build'
import { openWorld } from '../store/open'
import { stagesFrom, WORLD_STAGES } from './stages'
import type { Stage } from '../stage'
import { setStageStatus } from '../store/store'
import { readQaById } from '../qa/store'
import { join } from 'node:path'

/**
 * Run (or finish) the stages of the world in `dir` — `stages` is the same list the world was built with (it must hold
 * 'qa' and 'split'); `force` redraws the qa and every stage after it (the split, and the oracle check, which judged
 * the old questions).
 */
export async function runQaStages(
  dir: string,
  opts: { stages?: readonly Stage[]; force?: boolean; quiet?: boolean; log?: (m: string) => void } = {},
): Promise<BuildResult> {
  const stages = opts.stages ?? WORLD_STAGES
  for (const need of ['qa', 'split'])
    if (!stages.some((s) => s.name === need)) throw new WorldError('qa.no_stage', `the stage list has no '${need}' stage (${stages.map((s) => s.name).join(', ')})`)
  const w = openWorld(dir, { allowIncomplete: true })
  const config = w.config
  w.close()
  if (opts.force) {
    const lock = lockDir(dir, 'world qa --force')
    const db = openDb(join(dir, 'world.db'))
    try {
      tx(db, () => {
        for (const s of stagesFrom(stages, 'qa')) setStageStatus(db, s.name, 'pending')
      })
    } finally {
      db.close()
      lock.release()
    }
  }
  return buildWorld({ config, dir, quiet: opts.quiet, log: opts.log, stages: [...stages] })
}

/** Lines of `searchgym world show DIR qa <id>`: question, answers, path, and each hop's document and sentence. */
export function showQaLines(dir: string, id: string): string[] {
  const w = openWorld(dir, { allowIncomplete: true })
  try {
    const q = readQaById(w.db, id)
    if (!q) throw new WorldError('qa.no_qa', `no QA with id '${id}' in ${dir} (ids look like s-1a2b3c…; list them with \`searchgym world export ${dir} --format jsonl\`)`)
    const out = [`${q.id}  [${q.type}, ${q.hops} hops, ${q.stored}]`, `Q: ${q.question}`, `A: ${q.answer}`, `aliases: ${q.aliases.join(' | ')}`, 'path:']
    q.path.forEach((eid, k) => {
      const e = w.edge(eid)
      const s = e ? w.entity(e.source) : undefined
      const t = e ? w.entity(e.target) : undefined
      out.push(`  ${k + 1}. ${eid} ${e?.relation ?? '?'}: ${s?.name ?? '?'} -> ${t?.name ?? '?'}`)
      for (const ev of q.evidence.filter((x) => x.hop === k)) out.push(`     ${ev.url}`, `     "${ev.sentence}"`)
    })
    const reads = q.evidence.filter((x) => x.hop < 0)
    if (reads.length) {
      out.push('values read:')
      for (const ev of reads) out.push(`  ${ev.url}`, `  "${ev.sentence}"`)
    }
    out.push(`docs: ${q.docs.join(' ')}`, `meta: ${JSON.stringify(q.meta)}`)
    return out
  } finally {
    w.close()
  }
}
