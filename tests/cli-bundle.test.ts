// tests/cli-bundle: the compiled CLI — `node bin/build-cli.mjs` builds dist/cli.mjs (+ chunks, source maps) and skips
// when nothing changed; bin/searchgym.mjs runs the bundle while it is fresh and gives the same output as the tsx path
// (`--help`, `world stats --json`, a bench oracle run); a touched source makes it fall back to tsx until rebuilt.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sharedTinyWorld } from './helpers/shared-world'

const dir = mkdtempSync(join(tmpdir(), 'cli-bundle-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function node(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, SEARCHGYM_QUIET: '1', SEARCHGYM_DEBUG: '1', ...env } })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}
const cli = (args: string[], env: Record<string, string> = {}) => node(['bin/searchgym.mjs', ...args], env)
const ranBundle = (stderr: string) => /searchgym: running \S+dist\/cli\.mjs/.test(stderr)
const ranTsx = (stderr: string) => /searchgym: running the TypeScript through tsx/.test(stderr)

beforeAll(() => {
  const r = node(['bin/build-cli.mjs'])
  expect(r.code).toBe(0)
  expect(r.stdout).toMatch(/^build-cli: (built dist\/cli\.mjs|dist\/cli\.mjs is up to date)/)
})

test('the build is idempotent and keeps source maps', () => {
  const r = node(['bin/build-cli.mjs'])
  expect(r.stdout.trim()).toBe('build-cli: dist/cli.mjs is up to date')
  expect(readFileSync('dist/cli.mjs', 'utf8')).toMatch(/\/\/# sourceMappingURL=cli\.mjs\.map\s*$/)
  const map = JSON.parse(readFileSync('dist/cli.mjs.map', 'utf8')) as { sources: string[] }
  expect(map.sources.some((s) => s.endsWith('cli.ts'))).toBe(true)
})

test('--help and world stats --json: the bundle runs and says what tsx says', async () => {
  const world = (await sharedTinyWorld()).dir
  for (const args of [['--help'], ['world', 'stats', world, '--json'], ['bench', 'run', '--help']]) {
    const b = cli(args)
    const t = cli(args, { SEARCHGYM_TSX: '1' })
    expect(ranBundle(b.stderr)).toBe(true)
    expect(ranTsx(t.stderr)).toBe(true)
    expect([b.code, b.stdout]).toEqual([0, t.stdout])
  }
})

test('a real command through the bundle: bench run --policy oracle (gym, world file, native sqlite)', async () => {
  const world = (await sharedTinyWorld()).dir
  const r = cli(['bench', 'run', world, '--policy', 'oracle', '--limit', '3', '--bootstrap', '50', '--out', join(dir, 'oracle'), '--quiet'])
  expect(ranBundle(r.stderr)).toBe(true)
  expect(r.code).toBe(0)
  expect(r.stdout).toMatch(/F1 100\.0/)
})

test('a source newer than the bundle: tsx runs it until the bundle is rebuilt', () => {
  const src = 'infra/errors.ts'
  const st = statSync(src)
  try {
    utimesSync(src, st.atime, new Date(st.mtimeMs + 5000))
    const r = cli(['--version'])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/through tsx \(infra\/errors\.ts changed since the bundle was built\)/)
  } finally {
    // utimes takes seconds as a double: the restored mtime can land a millisecond off the stamped one, so the
    // rebuild below may really rebuild (or find the bundle up to date when the restore was exact).
    utimesSync(src, st.atime, st.mtime)
  }
  const b = node(['bin/build-cli.mjs'])
  expect(b.code).toBe(0)
  expect(ranBundle(cli(['--version']).stderr)).toBe(true)
  expect(existsSync('dist/cli.json')).toBe(true)
})
