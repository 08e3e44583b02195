// tests/serving-defects: the small defects found probing the servers and CLIs — each a one-line error that says what
// was wrong: `bench run --out` under a folder that cannot be written names the errno (EROFS on a read-only mount, EPERM
// under /sys here) instead of ENOENT; `world build --seed 1e308` is refused with the seed's range; a NaN flag is shown
// as NaN, not null; `k: 1e20` on /v1/search names the bound 50.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startGymServer } from '../gym/server'
import { openFixtureWorld } from './fixtures/gym-fixture-world'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

const lines = (s: string) => s.split('\n').filter((l) => l.trim() !== '')

test('bench run --out under an unwritable folder names its errno, not ENOENT', async () => {
  const w = await sharedTinyWorld()
  const r = await runCli(['bench', 'run', '--world', w.dir, '--policy', 'oracle', '--limit', '1', '--out', '/sys/searchgym-run/x', '--quiet'], 120_000)
  expect(r.code).not.toBe(0)
  expect(lines(r.stderr)).toHaveLength(1)
  expect(r.stderr).toMatch(/cannot create the run folder \/sys\/searchgym-run \((EROFS|EPERM|EACCES)/)
  expect(r.stderr).not.toMatch(/ENOENT/)
}, 150_000)

test('world build --seed 1e308 is refused with the range', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'sg-seed-')), 'w')
  const r = await runCli(['world', 'build', '--preset', 'tiny', '--seed', '1e308', '--out', out])
  expect(r.code).not.toBe(0)
  expect(lines(r.stderr)).toHaveLength(1)
  expect(r.stderr).toContain('--seed must be an integer in [0, 9007199254740991], got 1e+308')
})

test('gym serve maxEnvs NaN says NaN, not null', async () => {
  const r = await runCli(['gym', 'serve', 'nowhere', '--set', 'maxEnvs=NaN'])
  expect(r.code).not.toBe(0)
  expect(r.stderr).toContain('maxEnvs (--set) must be an integer in [1, 10000000], got NaN')
})

test('/v1/search k: 1e20 names the bound 50', async () => {
  const s = await startGymServer(openFixtureWorld())
  try {
    const r = await fetch(`${s.url}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"x","k":1e20}' })
    expect(r.status).toBe(400)
    const msg = ((await r.json()) as { error: { message: string } }).error.message
    expect(msg).toMatch(/<=\s*50/)
    expect(msg).not.toContain('9007199254740991')
  } finally {
    await s.close()
  }
})
