// tests/worker-bundle: worker threads start from an esbuild bundle of their sources (infra/worker-bundle) — the bundle
// runs in a real worker, each bundled file keeps its own import.meta.url, packages resolve from node_modules, the
// bundle is reused while its inputs are unchanged and rebuilt when one changes, and SEARCHGYM_WORKER_BUNDLE=0 keeps
// the tsx entry.
import { readFileSync, statSync, utimesSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { bundled, workerEntry } from '../infra/worker-bundle'

const dir = join(process.cwd(), 'tests', 'fixtures', 'worker-bundle')
const entry = join(dir, 'entry.ts')
const where = join(dir, 'where.ts')

function run(url: URL): Promise<{ url: string; greeting: string; parsed: number }> {
  return new Promise((resolve, reject) => {
    const w = new Worker(url)
    w.once('message', (m) => {
      resolve(m)
      void w.terminate()
    })
    w.once('error', reject)
  })
}

test('a bundled worker runs, keeps each file its own import.meta.url and loads packages from node_modules', async () => {
  const url = await bundled(entry)
  expect(fileURLToPath(url)).toContain(join('node_modules', '.cache', 'searchgym-workers'))
  expect(readFileSync(url, 'utf8')).toContain('bundled by infra/worker-bundle from tests/fixtures/worker-bundle/entry.ts')
  const got = await run(url)
  expect(got).toEqual({ url: pathToFileURL(where).href, greeting: 'from where.ts', parsed: 42 })
}, 60_000)

test('the bundle is reused while its inputs are unchanged and rebuilt when one changes', async () => {
  const first = fileURLToPath(await bundled(entry))
  const t1 = statSync(first).mtimeMs
  await new Promise((r) => setTimeout(r, 20))
  expect(statSync(fileURLToPath(await bundled(entry))).mtimeMs).toBe(t1)
  // A changed input (its mtime) makes a new bundle.
  const now = new Date()
  utimesSync(where, now, new Date(now.getTime() + 5000))
  await new Promise((r) => setTimeout(r, 20))
  expect(statSync(fileURLToPath(await bundled(entry))).mtimeMs).toBeGreaterThan(t1)
}, 60_000)

test('SEARCHGYM_WORKER_BUNDLE=0 starts workers from their tsx entry', async () => {
  const saved = process.env.SEARCHGYM_WORKER_BUNDLE
  process.env.SEARCHGYM_WORKER_BUNDLE = '0'
  try {
    const tsx = new URL('file:///nowhere/entry.mjs')
    expect((await workerEntry(pathToFileURL(join(dir, 'other-entry.ts')), tsx)).href).toBe(tsx.href)
  } finally {
    if (saved === undefined) delete process.env.SEARCHGYM_WORKER_BUNDLE
    else process.env.SEARCHGYM_WORKER_BUNDLE = saved
  }
})
