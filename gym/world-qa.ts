// gym/world-qa: the QA a world serves — rows of the world file's `qa` table with split train or bench (rows the
// split stage excluded are not served), in stored order. Read-only; the QA stage owns the table.
import type { Db } from '../infra/store'
import { GymError } from '../infra/errors'
import type { Qa, QaType, Split } from '../world/types'

interface Row {
  id: string
  type: string
  hops: number
  question: string
  answer: string
  aliases_json: string
  path_json: string
  docs_json: string
  evidence_json: string
  meta_json: string
  split: string
}

export function readServedQa(db: Db, where: string): Qa[] {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'qa'").get()
  if (!has) throw new GymError('world.no_qa', `world ${where} has no QA table; build it with the qa stage (searchgym world build)`)
  const rows = db
    .prepare("SELECT id, type, hops, question, answer, aliases_json, path_json, docs_json, evidence_json, meta_json, split FROM qa WHERE split IN ('train', 'bench') ORDER BY seq")
    .all() as Row[]
  return rows.map((r) => ({
    id: r.id,
    type: r.type as QaType,
    hops: r.hops,
    question: r.question,
    answer: r.answer,
    aliases: JSON.parse(r.aliases_json) as string[],
    path: JSON.parse(r.path_json) as string[],
    docs: JSON.parse(r.docs_json) as string[],
    evidence: JSON.parse(r.evidence_json) as Qa['evidence'],
    split: r.split as Split,
    meta: JSON.parse(r.meta_json) as Record<string, unknown>,
  }))
}
