// tests/bench-moved-folder: a bench run folder records its world relative to itself (config.json; no absolute path,
// the world's identity as worldId), so a copied folder still reports its world and a run
// moved away from its world resumes with the same flags (then recording the world from where it now is). Real CLI processes on the shared tiny world (oracle policy).
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

const LONG = 300_000
let root = ''
afterAll(() => root && rmSync(root, { recursive: true, force: true }))

it('config.json records the world relative to the run folder; a moved folder reports it and resumes with the same flags', async () => {
  root = mkdtempSync(join(tmpdir(), 'bench-moved-'))
  const world = (await sharedTinyWorld()).dir
  const out = join(root, 'runs', 'oracle')
  const args = (o: string) => ['bench', 'run', '--world', world, '--policy', 'oracle', '--split', 'train', '--limit', '3', '--limit-mode', 'first', '--bootstrap', '50', '--out', o, '--quiet']
  const r = await runCli(args(out), LONG)
  expect(r.code).toBe(0)
  const cfg = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as { world: string; worldId: string; origin?: unknown }
  expect(cfg.world).toBe(relative(out, world).split('\\').join('/'))
  expect(cfg.origin).toBeUndefined()
  expect(readFileSync(join(out, 'config.json'), 'utf8')).not.toContain(world)
  expect(cfg.worldId).toMatch(/^[0-9a-f]{16,}/)
  // Moved one level deeper (away from its world): `bench report` still names the world by its recorded path and id,
  // and the same flags resume the run (nothing asked again).
  const moved = join(root, 'elsewhere', 'deeper', 'oracle')
  cpSync(out, moved, { recursive: true })
  const rep = await runCli(['bench', 'report', moved], LONG)
  expect(rep.code).toBe(0)
  expect(readFileSync(join(moved, 'report.md'), 'utf8')).toContain(`World \`${cfg.world}\` (${cfg.worldId})`)
  const again = await runCli(args(moved).filter((a) => a !== '--quiet'), LONG)
  expect(again.code).toBe(0)
  expect(again.stdout + again.stderr).toMatch(/ran 0, resumed 3/)
  // Resumed from its new place, it records the world from there (the world's id unchanged).
  const cfg2 = JSON.parse(readFileSync(join(moved, 'config.json'), 'utf8')) as typeof cfg
  expect(cfg2).toMatchObject({ world: relative(moved, world).split('\\').join('/'), worldId: cfg.worldId })
}, LONG)
