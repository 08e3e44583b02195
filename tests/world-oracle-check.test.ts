// tests/world-oracle-check: the build's last stage runs the oracle through the real env over every served question;
// a question it cannot solve (here: its evidence removed from a document) is dropped, reported and never served.
// And the library and the CLI build the same world: buildWorld with CHECKED_WORLD_STAGES gives the content hash that
// `searchgym world build` reported for the run's shared tiny world.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildWorld, contentHash, presetConfig, readQa, WORLD_STAGES } from '../world'
import { CHECKED_WORLD_STAGES, oracleCheckStageWith } from '../agent'
import { openDb, tx } from '../infra/store'
import { setStageStatus } from '../world/store/store'
import { sharedTinyWorld } from './helpers/shared-world'

const root = mkdtempSync(join(tmpdir(), 'sg-oracle-check-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const stages = CHECKED_WORLD_STAGES

test('every question of a finished tiny world is solved by the oracle; a broken one is dropped on re-check', async () => {
  const dir = join(root, 'w')
  const [first, cli] = await Promise.all([buildWorld({ config: presetConfig('tiny'), dir, quiet: true, stages }), sharedTinyWorld()])
  // the same world through the library API and through the CLI
  expect(first.hash).toMatch(/^[0-9a-f]{64}$/)
  expect(first.hash).toBe(cli.hash)
  expect(stages.map((s) => s.name)).toEqual(['graph', 'docs', 'write', 'index', 'verify', 'qa', 'check', 'split', 'rephrase'])
  const db = openDb(join(dir, 'world.db'))
  try {
    // the oracle check is part of the hash: without it the same rows hash differently
    expect(contentHash(db, WORLD_STAGES)).not.toBe(first.hash)
    const served = readQa(db, ['train', 'bench'])
    expect(served.length).toBeGreaterThan(100)
    const checks = db.prepare('SELECT ok, COUNT(*) AS n FROM qa_check GROUP BY ok').all() as { ok: number; n: number }[]
    // the check covers the whole pool (before the split), so it is at least every served question
    const pool = (db.prepare('SELECT COUNT(*) AS n FROM qa').get() as { n: number }).n
    expect(checks).toEqual([{ ok: 1, n: pool }])
    expect(pool).toBeGreaterThan(served.length)

    // break one simple question: remove its last hop's evidence sentence from the document the oracle must read
    const victim = served.find((q) => q.type === 'simple' && q.split === 'train')!
    const ev = victim.evidence.filter((e) => e.hop === victim.hops - 1)
    expect(ev.length).toBeGreaterThan(0)
    tx(db, () => {
      for (const e of ev) {
        const row = db.prepare('SELECT text FROM docs WHERE url = ?').get(e.url) as { text: string }
        db.prepare('UPDATE docs SET text = ? WHERE url = ?').run(row.text.split(e.sentence).join(' '), e.url)
      }
      setStageStatus(db, 'check', 'pending')
    })
  } finally {
    db.close()
  }
  const second = await buildWorld({ config: presetConfig('tiny'), dir, quiet: true, stages })
  expect(second.hash).not.toBe(first.hash)
  const db2 = openDb(join(dir, 'world.db'), { readonly: true })
  try {
    const failed = db2.prepare('SELECT id, reason FROM qa_check WHERE ok = 0').all() as { id: string; reason: string }[]
    expect(failed.length).toBeGreaterThanOrEqual(1)
    for (const f of failed) expect(f.reason).toMatch(/^(evidence-unreadable|search|value-unreadable|wrong-answer|other): ./)
    // the split re-ran after the check: the bench is still exactly the tiny preset's quota, all of it solvable
    const bench = readQa(db2, ['bench'])
    const quota = presetConfig('tiny').split.bench
    expect(bench.length).toBe(quota.simple + quota.parallel + quota.combo)
    const labels = new Map((db2.prepare('SELECT id, split FROM qa').all() as { id: string; split: string }[]).map((r) => [r.id, r.split]))
    for (const f of failed) expect(labels.get(f.id)).toBe('dropped')
    expect(readQa(db2, ['train', 'bench']).some((q) => failed.some((f) => f.id === q.id))).toBe(false)
  } finally {
    db2.close()
  }
})

function readQaAll(dir: string) {
  const db = openDb(join(dir, 'world.db'), { readonly: true })
  try {
    return readQa(db, ['train', 'bench', 'excluded', 'dropped'])
  } finally {
    db.close()
  }
}

test('the oracle check over worker threads gives the same runs as in one thread', async () => {
  const { checkWorldFolder } = await import('../agent/oracle/oracle-check')
  const cli = await sharedTinyWorld()
  const db = openDb(join(cli.dir, 'world.db'), { readonly: true })
  const qas = readQa(db, ['train', 'bench']).slice(0, 120)
  db.close()
  const one = await checkWorldFolder(cli.dir, qas, { workers: 1, quiet: true })
  const two = await checkWorldFolder(cli.dir, qas, { workers: 2, quiet: true })
  // Only worker threads (this thread would take every chunk of a small pool before a worker has loaded): two workers
  // share the 200 questions' four chunks, whichever is free first.
  const many = readQaAll(cli.dir).slice(0, 200)
  const oneMany = await checkWorldFolder(cli.dir, many, { workers: 1, quiet: true })
  const workersOnly = await checkWorldFolder(cli.dir, many, { workers: 2, thisThread: false, quiet: true })
  expect(one.workers).toBe(1)
  expect(two.workers).toBe(2)
  expect(two.total).toBe(120)
  const strip = (r: typeof one) => ({ ...r, workers: 0 })
  expect(strip(two)).toEqual(strip(one))
  expect(many.length).toBe(200)
  expect(workersOnly.total).toBe(200)
  expect(strip(workersOnly)).toEqual(strip(oneMany))
})

test("the check's oracle reads only the pages a hop needs by default, in every thread, with the same outcomes as reading all", async () => {
  const { checkWorldFolder } = await import('../agent/oracle/oracle-check')
  const cli = await sharedTinyWorld()
  const qas = readQaAll(cli.dir).slice(0, 200)
  // A small observation cap pages most tiny documents (gym/pages), so how the oracle reads pages shows in its turns.
  const gym = { observationCap: 300 }
  const all = await checkWorldFolder(cli.dir, qas, { workers: 1, quiet: true, gym, pages: 'all' })
  const needed = await checkWorldFolder(cli.dir, qas, { workers: 1, quiet: true, gym })
  const neededWorkers = await checkWorldFolder(cli.dir, qas, { workers: 2, thisThread: false, quiet: true, gym })
  // (at this cap some search results are cut too and a few questions fail — in both modes alike, checked below)
  expect(all.solved).toBeGreaterThan(qas.length * 0.75)
  // the same questions solved, the same failures with the same reasons: the check's rows (and the world hash) agree
  const outcome = (r: typeof all) => ({ solved: r.solved, failures: r.failures.map((f) => [f.qaId, f.failure, f.f1]) })
  expect(outcome(needed)).toEqual(outcome(all))
  // fewer pages read: the oracle's turns drop (the default is 'needed', and it reaches the worker threads)
  expect(needed.turns.max).toBeLessThan(all.turns.max)
  expect(neededWorkers.turns).toEqual(needed.turns)
})

test('warm check workers (started as the qa stage begins) build the same world; mismatched settings fall back to a cold check', async () => {
  const { checkWorldFolder, WarmCheck } = await import('../agent/oracle/oracle-check')
  const cli = await sharedTinyWorld()
  // Every chunk to the one warm worker (not this thread): the world it checks must hash as the CLI's cold build.
  const warmStages = CHECKED_WORLD_STAGES.map((s) => (s.name === 'check' ? oracleCheckStageWith({ workers: 2, thisThread: false }) : s))
  const logs: string[] = []
  const dir = join(root, 'warm')
  const built = await buildWorld({ config: presetConfig('tiny'), dir, quiet: true, stages: warmStages, log: (m) => logs.push(m) })
  // One warm worker, which also checked the pool's first chunks while the qa stage drew them.
  expect(logs.find((l) => l.startsWith('check:'))).toMatch(/, 1 worker, [1-9]\d* sent to them as the qa stage drew them\)/)
  expect(built.hash).toBe(cli.hash)
  // Warm threads started with other gym settings are not used (released) — the check runs cold, same report.
  const qas = readQaAll(cli.dir)
  const warm = await WarmCheck.start(cli.dir, { questions: qas.length, workers: 2, gym: { topK: 3 } })
  expect(warm).toBeDefined()
  const cold = await checkWorldFolder(cli.dir, qas, { workers: 1, quiet: true })
  const viaWarm = await checkWorldFolder(cli.dir, qas, { workers: 1, quiet: true, warm })
  expect({ ...viaWarm, workers: 0 }).toEqual({ ...cold, workers: 0 })
  expect(warm!.matches({}, 'needed')).toBe(false) // released: nothing left to take
  // Warm threads with the check's settings that were handed other questions than the pool are not used either.
  const other = await WarmCheck.start(cli.dir, { questions: qas.length, workers: 2 })
  other!.accept(qas.slice(0, 130)) // two whole chunks go to the thread at once
  expect(other!.pool(qas.map((q) => q.id))).toBeUndefined() // not the stored pool
  const viaOther = await checkWorldFolder(cli.dir, qas, { workers: 1, quiet: true, warm: other })
  expect({ ...viaOther, workers: 0 }).toEqual({ ...cold, workers: 0 })
  expect(other!.matches({}, 'needed')).toBe(false)
})
