// tests/native-build-atomic: the native addon's build is idempotent (unchanged sources: skipped, in well under a second
// of work) and atomic — while a forced rebuild runs (a real node-gyp build, minutes on a loaded box), the addon file
// never goes missing (polled every 10 ms) and `bench run --policy engine --backend native` runs started meanwhile all
// succeed. Real processes and the real compiler; slow by nature (one C++ build).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

const ADDON = 'infra/engine/native/build/Release/searchgym_native.node'
const dir = mkdtempSync(join(tmpdir(), 'native-build-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('unchanged sources: the build is skipped', () => {
  // The first call may build (no stamp yet in this checkout); the second must find it up to date.
  spawnSync(process.execPath, ['infra/engine/native/build.mjs'], { encoding: 'utf8' })
  const r = spawnSync(process.execPath, ['infra/engine/native/build.mjs'], { encoding: 'utf8' })
  expect(r.status).toBe(0)
  expect(r.stdout).toMatch(/native engine backend up to date \(sources unchanged/)
  expect(existsSync(ADDON)).toBe(true)
}, 900_000)

test('a forced rebuild never leaves the addon missing; native runs during it succeed', async () => {
  const world = (await sharedTinyWorld()).dir
  const model = join(dir, 'model')
  const init = await runCli(['model', 'init', '--preset', 'tiny', '--tokenizer', `world:${world}`, '--out', model])
  expect(init.code).toBe(0)

  const build = spawn(process.execPath, ['infra/engine/native/build.mjs', '--force'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let buildOut = ''
  build.stdout.on('data', (d: Buffer) => (buildOut += d.toString()))
  const buildDone = new Promise<number | null>((r) => build.on('close', r))
  let running = true
  void buildDone.then(() => (running = false))

  let polls = 0
  let missing = 0
  const poller = setInterval(() => {
    polls++
    if (!existsSync(ADDON)) missing++
  }, 10)

  const runs: { code: number | null; stderr: string; duringBuild: boolean }[] = []
  let k = 0
  while (running) {
    const r = await runCli(['bench', 'run', world, '--policy', 'engine', '--model', model, '--protocol', 'hermes', '--backend', 'native', '--max-tokens', '8', '--limit', '1', '--bootstrap', '20', '--out', join(dir, `run-${k++}`)], 300_000)
    runs.push({ ...r, duringBuild: running })
  }
  const code = await buildDone
  clearInterval(poller)

  expect(code).toBe(0)
  expect(buildOut).toMatch(/native engine backend built/)
  expect(polls).toBeGreaterThan(100)
  expect(missing).toBe(0)
  // At least one native run started and finished while the build was under way, and none saw a missing addon.
  expect(runs.filter((r) => r.duringBuild).length).toBeGreaterThanOrEqual(1)
  for (const r of runs) {
    expect(r.stderr).not.toMatch(/not built|failed to load/)
    expect(r.code).toBe(0)
  }
  // After the build: up to date again.
  expect(spawnSync(process.execPath, ['infra/engine/native/build.mjs'], { encoding: 'utf8' }).stdout).toMatch(/up to date/)
}, 1_200_000)
