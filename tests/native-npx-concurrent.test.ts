// tests/native-npx-concurrent: the first `npx searchgym` in a checkout installs the package into npx's cache — a link to
// the checkout — and runs its install script there, which rebuilds the native addon when its stamp does not match. This
// runs exactly that on a copy of the working tree (a fresh npm cache, the stamp removed as after a source change), and
// meanwhile, again and again, `searchgym model init --backend native` in the same copy — the addon loaded through the
// CLI's own loader — and a 10 ms poll of the addon file. None may see a missing addon, and the rebuild must really have
// replaced it. A control run first shows the probe does fail ("native backend is not built") when the addon is gone.
// Real processes, real npx and node-gyp: as slow as one C++ build of the addon on this machine.
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { sharedTinyWorld } from './helpers/shared-world'

const NATIVE = 'infra/engine/native'
const ADDON = `${NATIVE}/build/Release/searchgym_native.node`
const tmp = mkdtempSync(join(tmpdir(), 'native-npx-'))
const pkg = join(tmp, 'searchgym')
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

interface Done {
  code: number | null
  stdout: string
  stderr: string
}

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Done> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd, env: { ...process.env, SEARCHGYM_QUIET: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    p.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** The working tree as its owner sees it (tracked files and untracked ones git does not ignore), node_modules linked,
 *  the native build folder as `npm ci` left it. */
function copyCheckout(): void {
  const ls = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
  expect(ls.status).toBe(0)
  for (const f of ls.stdout.split('\0').filter(Boolean)) {
    if (!existsSync(f)) continue // deleted in the working tree, not yet committed
    mkdirSync(dirname(join(pkg, f)), { recursive: true })
    cpSync(f, join(pkg, f))
  }
  symlinkSync(realpathSync('node_modules'), join(pkg, 'node_modules'))
  cpSync(`${NATIVE}/build`, join(pkg, NATIVE, 'build'), { recursive: true })
}

test('npx searchgym rebuilding the addon (install script) while --backend native commands run: none sees it missing', async () => {
  expect(existsSync(ADDON)).toBe(true) // this checkout's addon is built: the copy starts from it
  const world = (await sharedTinyWorld()).dir
  copyCheckout()
  const addon = join(pkg, ADDON)
  // The compiled CLI in the copy (the install script's last step then finds it up to date).
  expect((await run(process.execPath, ['bin/build-cli.mjs'], pkg)).code).toBe(0)
  let k = 0
  const probe = () => run(process.execPath, ['bin/searchgym.mjs', 'model', 'init', '--preset', 'tiny', '--backend', 'native', '--tokenizer', `world:${world}`, '--out', join(tmp, `model-${k++}`)], pkg)

  // Control: with the addon gone, the probe fails and says so.
  renameSync(addon, `${addon}.away`)
  const control = await probe()
  renameSync(`${addon}.away`, addon)
  expect(control.code).not.toBe(0)
  expect(control.stderr).toMatch(/native backend is not built/)
  expect((await probe()).code).toBe(0)

  // A source change since the last build: the stamp no longer matches, so the install script must rebuild.
  rmSync(join(pkg, NATIVE, 'build', 'stamp.json'))
  const inodeBefore = statSync(addon).ino
  const npmCache = join(tmp, 'npm-cache') // a fresh npx cache: npx installs (links) the package and runs its install script
  const t0 = performance.now()
  let building = false
  let sawBuild = false
  let polls = 0
  let missing = 0
  const poller = setInterval(() => {
    polls++
    if (!existsSync(addon)) missing++
    building = readdirSync(join(pkg, NATIVE)).some((f) => f.startsWith('.build-'))
    if (building) sawBuild = true
  }, 10)
  let npxDone = false
  const npx = run('npx', ['searchgym', '--version'], pkg, { npm_config_cache: npmCache, npm_config_yes: 'true', npm_config_update_notifier: 'false' }).then((r) => {
    npxDone = true
    return r
  })
  const probes: (Done & { duringBuild: boolean })[] = []
  while (!npxDone) {
    let overlapped = building
    const watch = setInterval(() => (overlapped ||= building), 10)
    const r = await probe()
    clearInterval(watch)
    probes.push({ ...r, duringBuild: overlapped })
  }
  const n = await npx
  clearInterval(poller)
  const seconds = (performance.now() - t0) / 1000

  // Nothing ever found the addon missing…
  expect(polls).toBeGreaterThan(100)
  expect(missing).toBe(0)
  for (const p of probes) {
    expect(p.stderr).not.toMatch(/not built|failed to load/)
    expect(p.code).toBe(0)
  }
  // …while the install script npx ran really rebuilt it (a new file renamed into place, a new stamp), with native
  // runs under way during the build.
  expect([n.code, n.stdout.trim()]).toEqual([0, '0.1.0'])
  expect(sawBuild).toBe(true)
  expect(probes.filter((p) => p.duringBuild).length).toBeGreaterThanOrEqual(1)
  expect(existsSync(join(pkg, NATIVE, 'build', 'stamp.json'))).toBe(true)
  expect(statSync(addon).ino).not.toBe(inodeBefore)
  expect(JSON.parse(readFileSync(join(pkg, NATIVE, 'build', 'status.json'), 'utf8'))).toMatchObject({ ok: true, reason: 'built' })
  process.stdout.write(`native-npx-concurrent: npx + rebuild ${seconds.toFixed(0)} s, ${probes.length} native runs (${probes.filter((p) => p.duringBuild).length} during the build), ${polls} polls\n`)
}, 1_200_000)
