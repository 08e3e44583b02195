// tests/gpu-carry: the GPU run's carry preparation cannot rot unnoticed — bench/gpu/prepare-carry.sh --bundles-only
// (the esbuild part: no network, no GPU, about a second) bundles every script bench/gpu/run.sh runs from .gpu-carry,
// each bundle parses as an ES module, and a bad argument is a one-line error. (The npm pack of Node and the koffi
// copy need the registry and are left to the development machine.)
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SCRIPT = join(ROOT, 'bench/gpu/prepare-carry.sh')
const out = mkdtempSync(join(tmpdir(), 'sg-gpu-carry-'))
afterAll(() => rmSync(out, { recursive: true, force: true }))

/** The .gpu-carry/NAME.mjs files bench/gpu/run.sh runs or checks for. */
function carriedByRunSh(): string[] {
  const sh = readFileSync(join(ROOT, 'bench/gpu/run.sh'), 'utf8')
  const named = [...sh.matchAll(/\.gpu-carry\/([A-Za-z0-9_-]+)\.mjs/g)].map((m) => m[1]).filter((n) => n !== '$f')
  const loop = /for f in ([A-Za-z0-9_ -]+); do\s*\n\s*\[ -f "\.gpu-carry\/\$f\.mjs" \]/.exec(sh)
  return [...new Set([...named, ...(loop ? loop[1].trim().split(/\s+/) : [])])].sort()
}

it('bundles every script bench/gpu/run.sh runs from the carry, each a module that parses', () => {
  const need = carriedByRunSh()
  expect(need).toEqual(expect.arrayContaining(['bench', 'compare', 'contracts']))
  const r = spawnSync('bash', [SCRIPT, '--bundles-only', '--out', out], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 })
  expect(r.stderr).toBe('')
  expect(r.status).toBe(0)
  for (const n of need) {
    const f = join(out, `${n}.mjs`)
    expect([n, existsSync(f)]).toEqual([n, true])
    execFileSync(process.execPath, ['--check', f])
  }
}, 120_000)

it('an unknown argument is a one-line error', () => {
  const r = spawnSync('bash', [SCRIPT, '--bundle-only'], { cwd: ROOT, encoding: 'utf8' })
  expect(r.status).toBe(2)
  expect(r.stderr.trim().split('\n')).toEqual(["prepare-carry: unknown argument '--bundle-only' (use --bundles-only, --out DIR)"])
})
