// world/qa/export: the QA of a world as files — JSON Lines (qa.train.jsonl, bench.jsonl), Parquet
// (qa.train.parquet, bench.parquet), and the layouts of the outside trainers in the engine registry (search-r1, verl,
// asearcher, …: world/qa/export-trainers through world/qa/engines).
import { createWriteStream, mkdirSync } from 'node:fs'
import { once } from 'node:events'
import { join } from 'node:path'
import { I32, STRLIST, S, writeParquet } from './parquet'
import { WorldError } from '../../infra/errors'
import type { Db } from '../../infra/store'
import type { Qa } from '../types'
import { readQa } from './store'
import { exportForTrainer, type WorldIdentity } from './export-trainers'
import type { ExportTuning } from './engines/profile'
import { engineProfile, engineProfileNames, orList } from './engines/registry'
import type { ExportCurriculum } from './export-stages'

/** The plain QA formats; every other export format is a registered engine's name. */
export const PLAIN_QA_FORMATS = ['jsonl', 'parquet'] as const

/** jsonl, parquet and the registered engines' names. */
export const qaExportFormats = (): string[] => [...PLAIN_QA_FORMATS, ...engineProfileNames()]

/** Plain QA table: scalars, string lists, and JSON text for evidence and meta. */
async function writeQaParquet(path: string, qas: Qa[]): Promise<void> {
  await writeParquet(
    path,
    [
      { name: 'id', data: qas.map((q) => q.id) },
      { name: 'type', data: qas.map((q) => q.type) },
      { name: 'hops', data: qas.map((q) => q.hops) },
      { name: 'question', data: qas.map((q) => q.question) },
      { name: 'answer', data: qas.map((q) => q.answer) },
      { name: 'aliases', data: qas.map((q) => q.aliases) },
      { name: 'path', data: qas.map((q) => q.path) },
      { name: 'docs', data: qas.map((q) => q.docs) },
      { name: 'evidence_json', data: qas.map((q) => JSON.stringify(q.evidence)) },
      { name: 'meta_json', data: qas.map((q) => JSON.stringify(q.meta)) },
      { name: 'split', data: qas.map((q) => q.split) },
    ],
    [S('id'), S('type'), I32('hops'), S('question'), S('answer'), ...STRLIST('aliases'), ...STRLIST('path'), ...STRLIST('docs'), S('evidence_json'), S('meta_json'), S('split')],
  )
}

async function writeJsonl(path: string, rows: unknown[]): Promise<void> {
  const s = createWriteStream(path)
  for (const r of rows) if (!s.write(JSON.stringify(r) + '\n')) await once(s, 'drain')
  s.end()
  await once(s, 'finish')
}

/** Write the training pool and the bench of a world in `format`; returns file name → row count. */
export async function exportQa(
  db: Db,
  outDir: string,
  /** jsonl, parquet or a registered engine's name (qaExportFormats()). */
  format: string,
  id: WorldIdentity = { world: 'searchgym', hash: '' },
  /** Outside-engine formats: run the oracle through the engine's limits over the questions to export. */
  tune?: (qas: Qa[]) => Promise<ExportTuning>,
  curriculum?: ExportCurriculum,
): Promise<Record<string, number>> {
  const all = readQa(db)
  if (all.length === 0) throw new WorldError('qa.none', 'this world has no QA: run `searchgym world qa DIR` (or build with the qa and split stages) first')
  const train = all.filter((q) => q.split === 'train')
  const bench = all.filter((q) => q.split === 'bench')
  try {
    mkdirSync(outDir, { recursive: true })
  } catch (e) {
    throw new WorldError('qa.export_out', `cannot create export folder ${outDir}: ${(e as NodeJS.ErrnoException).code}`, { cause: e })
  }
  if (curriculum && (format === 'jsonl' || format === 'parquet')) throw new WorldError('qa.export_curriculum', `--curriculum needs --format ${orList(engineProfileNames())} (got ${format})`)
  if (format === 'jsonl') {
    await writeJsonl(join(outDir, 'qa.train.jsonl'), train)
    await writeJsonl(join(outDir, 'bench.jsonl'), bench)
    return { 'qa.train.jsonl': train.length, 'bench.jsonl': bench.length }
  }
  if (format === 'parquet') {
    await writeQaParquet(join(outDir, 'qa.train.parquet'), train)
    await writeQaParquet(join(outDir, 'bench.parquet'), bench)
    return { 'qa.train.parquet': train.length, 'bench.parquet': bench.length }
  }
  const profile = engineProfile(format)
  const tuning = tune ? await tune([...train, ...bench]) : undefined
  return exportForTrainer(profile, outDir, train, bench, id, { writeJsonl }, tuning, curriculum)
}
