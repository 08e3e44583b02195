// tests/no-fixtures-in-production: production code carries no test hooks — no package index.ts exports a fixture or a
// contract suite, no command declares a --fixture* option, no source file outside tests/ imports from tests/ or reads a
// SEARCHGYM_TEST_* variable, and a run's config.json names no fixture. Tests reach stand-ins through injected
// dependencies (runTraining's sampler, serveModel's generator, cli.ts main's deps from tests/fixtures/scripted-cli.mjs)
// and hold processes at infra/run-points through a preload of their own (tests/fixtures/hold-at-point.mjs).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const repo = new URL('..', import.meta.url).pathname
const PACKAGES = ['infra', 'world', 'gym', 'agent', 'curriculum', 'bench', 'view']

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    if (name === 'node_modules' || name.startsWith('.')) return []
    if (statSync(p).isDirectory()) return sources(p)
    return /\.(ts|mjs)$/.test(name) && !name.endsWith('.test.ts') ? [p] : []
  })
}

const files = PACKAGES.flatMap((p) => sources(join(repo, p))).concat([join(repo, 'cli.ts')])
const hits = (re: RegExp, only?: (f: string) => boolean) =>
  files
    .filter((f) => !only || only(f))
    .flatMap((f) => readFileSync(f, 'utf8').split('\n').map((line, i) => ({ f, line, i })))
    .filter(({ line }) => re.test(line))
    .map(({ f, line, i }) => `${relative(repo, f)}:${i + 1}: ${line.trim()}`)

it('no package surface exports a fixture or a contract suite', () => {
  expect(hits(/^export .*(fixture|contract)/i, (f) => f.endsWith('/index.ts'))).toEqual([])
})

it('no production source reads a test variable or names a test hook', () => {
  expect(hits(/SEARCHGYM_TEST_|holdForTest|loadTestFixture|test-hold|test-fixture/)).toEqual([])
})

it('no command has a --fixture* flag', () => {
  expect(hits(/\.option\(\s*'fixture/)).toEqual([])
})

it('no production source imports from tests/ (bench/perf scripts aside: they are measurements, not commands)', () => {
  expect(hits(/from '(\.\.\/)+tests\//, (f) => !relative(repo, f).startsWith('bench/perf/'))).toEqual([])
})
