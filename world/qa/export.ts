// world/qa/export: the QA of a world as files — JSON Lines (qa.train.jsonl, bench.jsonl), Parquet
// (qa.train.parquet, bench.parquet) and the Search-R1/veRL layout (train.parquet, test.parquet with data_source,
// prompt as chat messages, ability, reward_model.ground_truth.target, extra_info.split/index).
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs'
import { once } from 'node:events'
import { join } from 'node:path'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { WorldError } from '../../infra/errors'
import type { Db } from '../../infra/store'
import type { Qa } from '../types'
import { readQa } from './store'

export const QA_EXPORT_FORMATS = ['jsonl', 'parquet', 'search-r1'] as const
export type QaExportFormat = (typeof QA_EXPORT_FORMATS)[number]

/** The Search-R1 instruction (scripts/data_process/nq_search.py make_prefix, template 'base'). */
export function searchR1Prompt(question: string): string {
  return (
    'Answer the given question. You must conduct reasoning inside <think> and </think> first every time you get new information. ' +
    'After reasoning, if you find you lack some knowledge, you can call a search engine by <search> query </search> and it will return the top searched results between <information> and </information>. ' +
    'You can search as many times as your want. If you find no further external knowledge needed, you can directly provide the answer inside <answer> and </answer>, without detailed illustrations. ' +
    `For example, <answer> Beijing </answer>. Question: ${question}\n`
  )
}

const S = (name: string) => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' })
const I64 = (name: string) => ({ name, type: 'INT64', repetition_type: 'OPTIONAL' })
const I32 = (name: string) => ({ name, type: 'INT32', repetition_type: 'OPTIONAL' })
const LIST = (name: string) => [
  { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
]
const STRLIST = (name: string) => [...LIST(name), S('element')]

type SchemaElement = Record<string, unknown>
type Column = { name: string; data: unknown[] }

function writeParquet(path: string, columns: Column[], schema: SchemaElement[]): void {
  const buf = parquetWriteBuffer({ columnData: columns as never, schema: [{ name: 'root', num_children: columns.length }, ...schema] as never })
  writeFileSync(path, new Uint8Array(buf))
}

/** Plain QA table: scalars, string lists, and JSON text for evidence and meta. */
function writeQaParquet(path: string, qas: Qa[]): void {
  writeParquet(
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

/** Search-R1 / veRL RL dataset layout (one row per question). */
export function writeSearchR1Parquet(path: string, qas: Qa[], dataSource: string, split: string): void {
  writeParquet(
    path,
    [
      { name: 'id', data: qas.map((q) => q.id) },
      { name: 'question', data: qas.map((q) => q.question) },
      { name: 'golden_answers', data: qas.map((q) => q.aliases) },
      { name: 'data_source', data: qas.map(() => dataSource) },
      { name: 'prompt', data: qas.map((q) => [{ role: 'user', content: searchR1Prompt(q.question) }]) },
      { name: 'ability', data: qas.map(() => 'fact-reasoning') },
      { name: 'reward_model', data: qas.map((q) => ({ style: 'rule', ground_truth: { target: q.aliases } })) },
      { name: 'extra_info', data: qas.map((q, i) => ({ split, index: BigInt(i), type: q.type, hops: q.hops })) },
    ],
    [
      S('id'),
      S('question'),
      ...STRLIST('golden_answers'),
      S('data_source'),
      ...LIST('prompt'),
      { name: 'element', repetition_type: 'OPTIONAL', num_children: 2 },
      S('role'),
      S('content'),
      S('ability'),
      { name: 'reward_model', repetition_type: 'OPTIONAL', num_children: 2 },
      S('style'),
      { name: 'ground_truth', repetition_type: 'OPTIONAL', num_children: 1 },
      ...STRLIST('target'),
      { name: 'extra_info', repetition_type: 'OPTIONAL', num_children: 4 },
      S('split'),
      I64('index'),
      S('type'),
      I32('hops'),
    ],
  )
}

async function writeJsonl(path: string, rows: unknown[]): Promise<void> {
  const s = createWriteStream(path)
  for (const r of rows) if (!s.write(JSON.stringify(r) + '\n')) await once(s, 'drain')
  s.end()
  await once(s, 'finish')
}

/** Write the training pool and the bench of a world in `format`; returns file name → row count. */
export async function exportQa(db: Db, outDir: string, format: QaExportFormat, dataSource = 'searchgym'): Promise<Record<string, number>> {
  const all = readQa(db)
  if (all.length === 0) throw new WorldError('qa.none', 'this world has no QA: run `searchgym world qa DIR` (or build with the qa and split stages) first')
  const train = all.filter((q) => q.split === 'train')
  const bench = all.filter((q) => q.split === 'bench')
  try {
    mkdirSync(outDir, { recursive: true })
  } catch (e) {
    throw new WorldError('qa.export_out', `cannot create export folder ${outDir}: ${(e as NodeJS.ErrnoException).code}`, { cause: e })
  }
  if (format === 'jsonl') {
    await writeJsonl(join(outDir, 'qa.train.jsonl'), train)
    await writeJsonl(join(outDir, 'bench.jsonl'), bench)
    return { 'qa.train.jsonl': train.length, 'bench.jsonl': bench.length }
  }
  if (format === 'parquet') {
    writeQaParquet(join(outDir, 'qa.train.parquet'), train)
    writeQaParquet(join(outDir, 'bench.parquet'), bench)
    return { 'qa.train.parquet': train.length, 'bench.parquet': bench.length }
  }
  writeSearchR1Parquet(join(outDir, 'train.parquet'), train, dataSource, 'train')
  writeSearchR1Parquet(join(outDir, 'test.parquet'), bench, dataSource, 'test')
  return { 'train.parquet': train.length, 'test.parquet': bench.length }
}
