// End to end through the CLI on a tiny world: `world build` (graph, docs, index, verify, qa, split), `world qa`
// (resumption and --force), `world show DIR qa`, `world stats --json`, `world export --format search-r1|parquet`;
// two builds with one seed give one hash, QA and split included.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { parquetReadObjects } from 'hyparquet'
import { openDb } from '../infra/store'

const run = promisify(execFile)
const root = mkdtempSync(join(tmpdir(), 'sg-qa-cli-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

async function cli(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const r = await run(process.execPath, ['bin/searchgym.mjs', ...args], { env: { ...process.env, SEARCHGYM_QUIET: '1' }, maxBuffer: 1 << 26 })
    return { ...r, code: 0 }
  } catch (e) {
    const x = e as { stdout: string; stderr: string; code: number }
    return { stdout: x.stdout, stderr: x.stderr, code: x.code }
  }
}

async function builtWorld(name: string): Promise<string> {
  const dir = join(root, name)
  const b = await cli('world', 'build', '--preset', 'tiny', '--seed', '5', '--out', dir, '--quiet')
  expect(b.stderr).toBe('')
  expect(b.code).toBe(0)
  return dir
}

describe('searchgym world qa (tiny world)', () => {
  let dir = ''
  let hash = ''
  beforeAll(async () => {
    dir = await builtWorld('a')
    const r = await cli('world', 'qa', dir)
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/stage qa: already done, skipped/)
    hash = /hash ([0-9a-f]{64})/.exec(r.stdout)![1]
  })

  it('prints the split with zero overlap and the exact bench of the preset', async () => {
    const stats = JSON.parse((await cli('world', 'stats', dir, '--json')).stdout) as { hash: string; qa: { train: number; bench: number; byType: Record<string, number>; byHops: Record<string, number> } }
    expect(stats.hash).toBe(hash)
    expect(stats.qa.bench).toBe(20 + 6 + 3)
    expect(stats.qa.train).toBeGreaterThan(200)
    expect(Object.keys(stats.qa.byType).sort()).toEqual(['combo', 'parallel', 'simple'])
    expect(Object.keys(stats.qa.byHops).map(Number).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6])
  })

  it('--force redraws both stages from the seed: same hash, zero overlap printed', async () => {
    const r = await cli('world', 'qa', dir, '--force')
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/stage qa: done in/)
    expect(r.stderr).toMatch(/stage split: done in/)
    expect(r.stdout).toContain(`hash ${hash}`)
    expect(r.stdout).toMatch(/overlap bench\/train: question 0, path 0, sub-path 0, start entity 0/)
  })

  it('shows a QA with its path and, for each hop, the document and the sentence', async () => {
    const db = openDb(join(dir, 'world.db'), { readonly: true })
    const { id, hops } = db.prepare("SELECT id, hops FROM qa WHERE split = 'bench' AND type = 'simple' AND hops >= 3 ORDER BY seq LIMIT 1").get() as { id: string; hops: number }
    db.close()
    const r = await cli('world', 'show', dir, 'qa', id)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^Q: /m)
    expect(r.stdout).toMatch(/^A: /m)
    expect((r.stdout.match(/^ {5}"/gm) ?? []).length).toBe(hops)
    const bad = await cli('world', 'show', dir, 'qa', 'no-such-id')
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toMatch(/^searchgym: error: no QA with id 'no-such-id'/)
  })

  it('exports the Search-R1 layout and plain parquet, readable by hyparquet', async () => {
    const out = join(root, 'r1')
    const r = await cli('world', 'export', dir, '--format', 'search-r1', '--out', out)
    expect(r.code).toBe(0)
    const rows = async (f: string) => {
      const b = readFileSync(join(out, f))
      return (await parquetReadObjects({ file: b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) })) as Record<string, unknown>[]
    }
    const test = await rows('test.parquet')
    expect(test.length).toBe(29)
    expect(test[0]).toMatchObject({ data_source: 'hotpotqa', ability: 'fact-reasoning', reward_model: { style: 'rule' } })
    expect((await cli('world', 'export', dir, '--format', 'parquet', '--out', out)).code).toBe(0)
    expect((await rows('bench.parquet')).length).toBe(29)
    const bad = await cli('world', 'export', dir, '--format', 'csv', '--out', out)
    expect(bad.stderr).toMatch(/unknown export format 'csv'/)
  })

  it('the same seed gives the same hash, QA and split included', async () => {
    const other = await builtWorld('b')
    const stats = JSON.parse((await cli('world', 'stats', other, '--json')).stdout) as { hash: string }
    expect(stats.hash).toBe(hash)
  })
})
