// tests/cli-prototype-names: names a user types on the command line (reward specs and option keys in
// `bench run --gym-options`, curriculum presets in `train`, size presets in `world build`) never index a plain
// object: each prototype key is a one-line error and a non-zero exit from the real CLI, never a crash or a stack.
import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sharedTinyWorld } from './helpers/shared-world'

const BIN = new URL('../bin/searchgym.mjs', import.meta.url).pathname
const KEYS = ['toString', 'constructor', '__proto__', 'hasOwnProperty']
const tmp = mkdtempSync(join(tmpdir(), 'sg-proto-'))

function run(args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, SEARCHGYM_QUIET: '1' } })
  return { status: r.status, stderr: r.stderr }
}

function expectOneLineError(r: { status: number | null; stderr: string }, message: RegExp): void {
  expect(r.status).not.toBe(0)
  expect(r.status).not.toBeNull()
  const lines = r.stderr.trim().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(message)
}

let world: string
beforeAll(async () => {
  world = (await sharedTinyWorld()).dir
}, 300_000)

describe.each(KEYS)('prototype key %s', (k) => {
  const bench = (gym: string) => ['bench', 'run', '--world', world, '--policy', 'oracle', '--limit', '1', '--set', `gym=${gym}`, '--out', join(tmp, `run-${k}`)]
  it('bench run --set gym=… reward / option key / protocol', () => {
    expectOneLineError(run(bench(JSON.stringify({ reward: k }))), /unknown reward spec/)
    expectOneLineError(run(bench(`{"${k}": 1}`)), /unknown config key/)
    expectOneLineError(run(bench(JSON.stringify({ protocol: k }))), /may not set protocol/)
  }, 300_000)
  it('train --curriculum and world build --preset', () => {
    expectOneLineError(run(['train', '--world', world, '--model', join(tmp, 'no-model'), '--curriculum', k, '--out', join(tmp, `train-${k}`)]), /unknown curriculum preset/)
    expectOneLineError(run(['world', 'build', '--preset', k, '--out', join(tmp, `w-${k}`)]), /preset/)
  }, 300_000)
})
