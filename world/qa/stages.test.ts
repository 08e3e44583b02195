// Tests of the qa and split stages on a real SQLite world file (fixture graph written with the world's store):
// every stored QA re-checks against the file, the bench has its exact sizes and is disjoint from training by
// question, path and start entity (recomputed here), the hash is reproducible, and the exports read back.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parquetReadObjects, parquetMetadata } from 'hyparquet'
import { readFileSync } from 'node:fs'
import { ContentHasher } from '../../infra/hash'
import { openDb, type Db } from '../../infra/store'
import { DEFAULT_CONFIG, type WorldConfig } from '../config'
import type { StageContext } from '../stage'
import { initDocTables, initGraphTables, insertDocs, insertEdges, insertEntities } from '../store/store'
import { makeQaChecker } from './check'
import { exportQa } from './export'
import { docText, loadQaView } from './load'
import { splitItemOf } from '../split/split-item'
import { qaStage } from './qa-stage'
import { splitStage } from '../split/split-stage'
import { qaSummary, readQa, readSplitStats } from './store'
import { fixtureDocText, makeFixtureWorld } from '../../tests/fixtures/qa-fixture-world'
import { SearchHandle } from '../indexing/search-handle'

const config: WorldConfig = {
  ...DEFAULT_CONFIG,
  seed: 4,
  qa: { ...DEFAULT_CONFIG.qa, target: 900 },
  split: { ...DEFAULT_CONFIG.split, bench: { simple: 36, parallel: 22, combo: 10 } },
}
const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

function fixtureDb(verified = true): { db: Db; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sg-qa-'))
  dirs.push(dir)
  const db = openDb(join(dir, 'world.db'))
  const view = makeFixtureWorld({ seed: 9, perType: 30, keptRate: 0.85, homonymRate: 0.15 })
  initGraphTables(db)
  initDocTables(db)
  db.transaction(() => {
    insertEntities(db, view.entities)
    insertEdges(db, view.edges)
    insertDocs(
      db,
      view.entities.map((e) => ({ url: e.url, entityId: e.id, title: e.name, text: `${e.name}. ${fixtureDocText(view, e.url)}`, facts: view.factsByUrl.get(e.url) ?? [] })),
    )
    if (verified) {
      // Stands in for the verify stage (its table contract: edge_id, hits, kept).
      db.exec('CREATE TABLE edge_verification (edge_id TEXT PRIMARY KEY, hits INTEGER, kept INTEGER)')
      const ins = db.prepare('INSERT INTO edge_verification VALUES (?, ?, ?)')
      for (const e of view.edges) ins.run(e.id, view.kept.has(e.id) ? 9 : 2, view.kept.has(e.id) ? 1 : 0)
    }
  })()
  return { db, dir }
}

async function runStages(db: Db, dir: string): Promise<string> {
  const ctx: StageContext = { db, config, dir, search: new SearchHandle(), quiet: true, log: () => {} }
  for (const s of [qaStage, splitStage]) {
    s.init(db)
    await s.run(ctx)
  }
  const h = new ContentHasher()
  for (const s of [qaStage, splitStage]) {
    h.section(s.name)
    s.hashRows(db, (r) => h.row(r))
  }
  return h.digest()
}

describe('qa and split stages', () => {
  const { db, dir } = fixtureDb()
  let hash = ''
  beforeAll(async () => {
    hash = await runStages(db, dir)
  })

  it('stores QA that all re-check against the world file (paths, uniqueness, answers, evidence in the documents)', () => {
    const qas = readQa(db, ['train', 'bench', 'excluded'])
    expect(qas.length).toBe(Math.ceil(900 * (1 + config.qa.headroom)))
    const check = makeQaChecker(loadQaView(db), (u) => docText(db, u))
    expect(qas.flatMap((q) => check(q))).toEqual([])
  })

  it('holds out a bench of the exact size, covering hops 1..12, disjoint from training by all three criteria', () => {
    const all = readQa(db)
    const bench = all.filter((q) => q.split === 'bench')
    const train = all.filter((q) => q.split === 'train')
    expect(bench.filter((q) => q.type === 'simple').length).toBe(36)
    expect(bench.filter((q) => q.type === 'parallel').length).toBe(22)
    expect(bench.filter((q) => q.type === 'combo').length).toBe(10)
    expect([...new Set(bench.map((q) => q.hops))].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    // Recomputed here, independently of the stored statistics.
    const b = bench.map(splitItemOf)
    const bq = new Set(b.map((x) => x.question))
    const nonEmpty = (x: { path: string[]; subPaths: string[][] }) => [x.path, ...x.subPaths].filter((p) => p.length > 0)
    const bp = new Set(b.flatMap(nonEmpty).map((p) => p.join('>')))
    const bs = new Set(b.flatMap((x) => x.starts))
    for (const t of train.map(splitItemOf)) {
      expect(bq.has(t.question)).toBe(false)
      expect(nonEmpty(t).some((p) => bp.has(p.join('>')))).toBe(false)
      expect(t.starts.some((s) => bs.has(s))).toBe(false)
    }
    const stats = readSplitStats(db) as { overlap: Record<string, number>; bench: number; train: number }
    expect(stats.overlap).toEqual({ question: 0, path: 0, subPath: 0, startEntity: 0 })
    expect(stats.bench).toBe(68)
    expect(stats.train).toBe(train.length)
    expect(qaSummary(db)).toMatchObject({ train: train.length, bench: 68 })
  })

  it('same seed and world give the same QA and split hash; a rerun of the stages is idempotent', async () => {
    const other = fixtureDb()
    expect(await runStages(other.db, other.dir)).toBe(hash)
    expect(await runStages(db, dir)).toBe(hash)
  })

  it('exports jsonl, parquet and the Search-R1 layout, which read back with hyparquet', async () => {
    const all = readQa(db)
    const nTrain = all.filter((q) => q.split === 'train').length
    const out = join(dir, 'export')
    expect(await exportQa(db, out, 'jsonl')).toEqual({ 'qa.train.jsonl': nTrain, 'bench.jsonl': 68 })
    expect(readFileSync(join(out, 'bench.jsonl'), 'utf8').trim().split('\n').length).toBe(68)
    await exportQa(db, out, 'parquet')
    await exportQa(db, out, 'search-r1')
    const read = async (f: string) => {
      const b = readFileSync(join(out, f))
      const file = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)
      return { meta: parquetMetadata(file), rows: (await parquetReadObjects({ file })) as Record<string, unknown>[] }
    }
    const pq = await read('bench.parquet')
    expect(Number(pq.meta.num_rows)).toBe(68)
    expect(Object.keys(pq.rows[0]).sort()).toEqual(['aliases', 'answer', 'docs', 'evidence_json', 'hops', 'id', 'meta_json', 'path', 'question', 'split', 'type'])
    const first = all.find((q) => q.split === 'bench')!
    expect(pq.rows[0]).toMatchObject({ id: first.id, question: first.question, aliases: first.aliases, path: first.path, hops: first.hops })
    const tr = await read('qa.train.parquet')
    expect(tr.rows.length).toBe(nTrain)
    const r1 = await read('train.parquet')
    const te = await read('test.parquet')
    expect(r1.rows.length).toBe(nTrain)
    expect(te.rows.length).toBe(68)
    const row = te.rows[0] as { data_source: string; prompt: { role: string; content: string }[]; ability: string; reward_model: { style: string; ground_truth: { target: string[] } }; extra_info: { split: string; index: bigint } }
    expect(Object.keys(row).sort()).toEqual(['ability', 'data_source', 'extra_info', 'golden_answers', 'id', 'prompt', 'question', 'reward_model'])
    expect(row.data_source).toBe('hotpotqa') // Search-R1's trainer accepts only its own dataset names
    expect(row.prompt).toEqual([{ role: 'user', content: expect.stringContaining(`Question: ${first.question}`) }])
    expect(row.reward_model).toEqual({ style: 'rule', ground_truth: { target: [...new Set([first.answer, ...first.aliases])] } })
    expect(row.extra_info.split).toBe('test')
    expect(Number(row.extra_info.index)).toBe(0)
  })

  it('refuses to sample on a world without verification results', async () => {
    const raw = fixtureDb(false)
    const ctx: StageContext = { db: raw.db, config, dir: raw.dir, search: new SearchHandle(), quiet: true, log: () => {} }
    qaStage.init(raw.db)
    await expect(qaStage.run(ctx)).rejects.toThrow(/verify stage/)
  })
})
