// tests/cli-lazy-imports: which npm packages a command loads — `--help`, `world stats --json` and `gym check` through
// the real CLI, with a module resolve hook (node --import) that writes every node_modules file resolved. The heavy
// packages (the MCP SDK, faker, zod, hono's server, hyparquet-writer, graphology, openai, onnxruntime) are imported only by the
// commands that use them (bench/RESULTS.md, "CLI start-up, second round"); a static import of one of them anywhere
// these commands reach fails here.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { sharedTinyWorld } from './helpers/shared-world'

const dir = mkdtempSync(join(tmpdir(), 'cli-lazy-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const hook = join(dir, 'hook.mjs')
const register = join(dir, 'register.mjs')
writeFileSync(
  hook,
  `export async function resolve(spec, ctx, next) {
  const r = await next(spec, ctx)
  if (r.url.includes('/node_modules/')) process.stderr.write('RESOLVED ' + r.url.replace(/^.*\\/node_modules\\//, '') + '\\n')
  return r
}
`,
)
writeFileSync(register, `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(hook).href)})\n`)

/** The node_modules files `searchgym ARGS` resolved (paths below node_modules/), after checking it succeeded. */
function loaded(args: string[]): string[] {
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, 'bin/searchgym.mjs', ...args], { encoding: 'utf8', env: { ...process.env, SEARCHGYM_QUIET: '1' } })
  expect(r.status).toBe(0)
  return r.stderr.split('\n').filter((l) => l.startsWith('RESOLVED ')).map((l) => l.slice('RESOLVED '.length))
}

const HEAVY = ['@modelcontextprotocol/', '@faker-js/faker/', 'zod/', 'hyparquet-writer/', 'graphology/', '@hono/node-server/', 'openai/', 'onnxruntime-node/', '@huggingface/transformers/']
/** hono's package itself (its app and middleware); gym/path-token's one URL helper (hono/dist/utils/url.js) is allowed. */
const honoServer = (f: string) => f.startsWith('hono/') && !/^hono\/dist\/utils\//.test(f)
const heavy = (files: string[]) => files.filter((f) => HEAVY.some((p) => f.startsWith(p)) || honoServer(f))

beforeAll(() => {
  expect(spawnSync(process.execPath, ['bin/build-cli.mjs'], { encoding: 'utf8' }).status).toBe(0)
})

test('the hook sees what a command loads (world build draws names: faker)', async () => {
  const files = loaded(['world', 'build', '--preset', 'tiny', '--out', join(dir, 'w'), '--quiet'])
  expect(files.some((f) => f.startsWith('@faker-js/faker/'))).toBe(true)
  expect(files.some((f) => f.startsWith('graphology/'))).toBe(true)
  // Only the configured locales' modules (and en), not faker's index of all 77.
  expect(files.filter((f) => /^@faker-js\/faker\/dist\/locale\//.test(f)).length).toBeLessThan(10)
}, 300_000)

test('--help, world stats --json and gym check load none of the heavy packages', async () => {
  const world = (await sharedTinyWorld()).dir
  expect(heavy(loaded(['--help']))).toEqual([])
  const stats = loaded(['world', 'stats', world, '--json'])
  expect(stats.some((f) => f.startsWith('better-sqlite3/'))).toBe(true) // the hook saw the world file being opened
  expect(heavy(stats)).toEqual([])
  expect(heavy(loaded(['gym', 'check', world, '--split', 'bench']))).toEqual([])
  // The MCP SDK (and hono, zod) load when `gym mcp` serves, not for its help.
  expect(heavy(loaded(['gym', 'mcp', '--help']))).toEqual([])
}, 300_000)
