// tests/bounds-59: every bound and check before work, in one line naming the flag (issue 59, item 6), on the real CLI.
// On c3906aa: `bench compare --bootstrap -1` crashed ("Invalid typed array length"); `train sft --mix demo=1e308,…`
// trained on 0 tokens and `demo=1,demo=2` was accepted; `world export` wrote into a world's or an experiment's folder,
// wrote files before failing on --curriculum, and took --stage1-steps 1e15 (or ignored it without --curriculum); `model
// pretrain --out` could be its own model folder; `bench funnel` took unknown --qa-ids, --show -5 and named
// budgets.maxResponseTokens for --max-tokens; `--host 0.0.0.0` without a token said nothing and `--token ' '` made
// every request 401; a full disk printed a raw "ENOSPC … write"; an experiment's eval/held-out.json was refused by
// `bench run --qa-ids`; and `gym serve` printed "1 search threads".
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { diskFull } from '../infra/cli-util'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

const LONG = 300_000
const BIN = fileURLToPath(new URL('../bin/searchgym.mjs', import.meta.url))
const root = mkdtempSync(join(tmpdir(), 'sg-bounds59-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let world = ''
let exp = ''
beforeAll(async () => {
  world = (await sharedTinyWorld()).dir
  exp = join(root, 'exp')
  expect((await runCli(['experiment', 'run', 'curriculum/experiments/quick-smoke.json', '--out', exp, '--quiet'], LONG)).code).toBe(0)
}, LONG)

async function refused(args: string[], line: RegExp): Promise<void> {
  const r = await runCli(args, LONG)
  expect({ args, code: r.code }).toEqual({ args, code: 1 })
  expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(line)])
}

test('bench compare: --bootstrap out of bounds is one line naming it', async () => {
  const a = join(root, 'a')
  expect((await runCli(['bench', 'run', world, '--policy', 'oracle', '--limit', '2', '--bootstrap', '20', '--out', a, '--quiet'], LONG)).code).toBe(0)
  for (const b of ['-1', '1e9', '0.5']) await refused(['bench', 'compare', a, a, '--bootstrap', b], /--bootstrap must be an integer in \[1, 100000\]/)
}, LONG)

test('train sft mix: weights bounded and finite, each kind once', async () => {
  const model = join(exp, 'model')
  const sft = (mix: string) => ['train', 'sft', '--world', world, '--model', model, '--set', `mix=${mix}`, '--out', join(root, 'sft'), '--set', 'questions=1']
  await refused(sft('demo=1e308,search=1e308'), /mix \(--set\): the weight of demo must be a number in \[0, 1000\]/)
  await refused(sft('demo=1,demo=2'), /mix \(--set\) names demo twice/)
  expect(existsSync(join(root, 'sft'))).toBe(false)
}, LONG)

test('world export: --out not a world, experiment or run folder; --curriculum and --stage1-steps checked before writing', async () => {
  const w2 = join(root, 'w2')
  await refused(['world', 'export', world, '--out', world], /--out .* is a world's folder \(it holds world.db\)/)
  await refused(['world', 'export', world, '--out', join(exp, 'exports')], /--out .* is inside .*exp, an experiment's folder \(it holds experiment.json\)/)
  await refused(['world', 'export', world, '--format', 'jsonl', '--curriculum', 'two-stage', '--out', w2], /--curriculum writes stage files for an outside engine/)
  await refused(['world', 'export', world, '--format', 'verl', '--curriculum', 'two-stage', '--stage1-steps', '1e15', '--out', w2], /--stage1-steps must be an integer in \[1, 10000000\]/)
  await refused(['world', 'export', world, '--format', 'verl', '--stage1-steps', '40', '--out', w2], /--stage1-steps sets the phases of --curriculum/)
  expect(existsSync(w2)).toBe(false)
}, LONG)

test('model pretrain: --out may not be (or hold) the model it reads', async () => {
  const m = join(root, 'pre-model')
  mkdirSync(m)
  for (const f of readdirSync(join(exp, 'model'))) writeFileSync(join(m, f), '')
  writeFileSync(join(m, 'config.json'), '{}')
  await refused(['model', 'pretrain', '--model', m, '--world', world, '--out', m, '--steps', '1'], /--out .* would overwrite the model it reads/)
  await refused(['model', 'pretrain', '--model', join(root, 'pre', 'model'), '--world', world, '--out', join(root, 'pre'), '--steps', '1'], /no model at|would overwrite/)
}, LONG)

test('bench funnel: unknown qaIds, show -5 and maxTokens 1e9 refused naming the key', async () => {
  const model = join(exp, 'model')
  const ids = join(root, 'ids.json')
  writeFileSync(ids, JSON.stringify(['no-such-question']))
  await refused(['bench', 'funnel', '--model', model, '--world', world, '--set', `qaIds=${ids}`, '--questions', '1'], /1 of the 1 qaIds in .* are not questions of/)
  await refused(['bench', 'funnel', '--model', model, '--world', world, '--set', 'show=-5'], /show \(--set\) must be an integer in \[0, 10000\]/)
  await refused(['bench', 'funnel', '--model', model, '--world', world, '--set', 'maxTokens=1e9'], /maxTokens \(--set\) must be an integer in \[1, 1000000\]/)
}, LONG)

test("bench run qaIds takes an experiment's eval/held-out.json", async () => {
  const w = join(exp, 'worlds', readdirSync(join(exp, 'worlds'))[0])
  const r = await runCli(['bench', 'run', w, '--policy', 'oracle', '--set', 'split=train', '--set', `qaIds=${join(exp, 'eval', 'held-out.json')}`, '--set', 'bootstrap=20', '--out', join(root, 'held'), '--quiet'], LONG)
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  expect(r.stdout).toMatch(/on 4 questions/)
}, LONG)

/** Start `searchgym ARGS` (a server), return its stderr once `until` matches it, then stop it. */
function serverStderr(args: string[], until: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SEARCHGYM_TOKEN: '' } })
    let err = ''
    const timer = setTimeout(() => (p.kill('SIGKILL'), reject(new Error(`no ${until} in: ${err}`))), 60_000)
    p.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      if (until.test(err)) {
        clearTimeout(timer)
        p.kill('SIGTERM')
        resolve(err)
      }
    })
  })
}

test('servers: --host 0.0.0.0 without a token warns in one line; a blank token is refused; one search thread, singular', async () => {
  const serve = await serverStderr(['gym', 'serve', world, '--port', '0', '--host', '0.0.0.0', '--workers', '1'], /on http:\/\//)
  expect(serve).toMatch(/^searchgym: warning: gym serve listens on 0\.0\.0\.0 \(every interface\) with no --token/m)
  expect(serve).not.toMatch(/\b1 search threads\b/)
  const mcp = await serverStderr(['gym', 'mcp', world, '--http', '--port', '0', '--host', '0.0.0.0'], /on http:\/\//)
  expect(mcp).toMatch(/^searchgym: warning: gym mcp --http listens on 0\.0\.0\.0 \(every interface\) with no --token/m)
  const quiet = await serverStderr(['gym', 'serve', world, '--port', '0', '--workers', '1'], /on http:\/\//)
  expect(quiet).not.toMatch(/warning/)
  await refused(['gym', 'serve', world, '--port', '0', '--token', ' '], /--token is blank/)
  await refused(['gym', 'mcp', world, '--http', '--port', '0', '--token', 'a b'], /--token has spaces or control characters/)
}, LONG)

test('a full disk is one line naming where the command writes', () => {
  const e = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' })
  expect(String((diskFull(e, { out: 'runs/x' }) as Error).message)).toBe('no space left on the device writing under runs/x (ENOSPC); free some space and rerun the same command: it resumes where it stopped')
  const p = Object.assign(new Error('ENOSPC'), { code: 'ENOSPC', path: '/data/w/world.db' })
  expect(String((diskFull(p, {}) as Error).message)).toMatch(/^no space left on the device writing \/data\/w\/world.db/)
  const other = new Error('x')
  expect(diskFull(other, { out: 'y' })).toBe(other)
})
