// tests/view-confined: the viewer serves nothing outside the folders it was given (issue 47): an experiment.json that
// names an arm `../../../outside/r` (or an evaluation set `../x`) is refused in one line before any folder is opened,
// and a run folder inside the experiment that is a symbolic link to somewhere else is refused too. A well-formed
// experiment still opens, and every run it serves lies inside it.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSources } from '../view/experiments'
import { createViewApp } from '../view/server'
import { ViewError } from '../view/errors'

const root = mkdtempSync(join(tmpdir(), 'sg-view-confined-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A run folder an outsider wants served: where `../../../outside/r` + `-s0` lands from T/a/b/exp/runs. */
const outside = join(root, 'a', 'outside', 'r-s0')
mkdirSync(outside, { recursive: true })
writeFileSync(join(outside, 'metrics.jsonl'), JSON.stringify({ step: 1, reward: 0.99 }) + '\n')

function experiment(name: string, spec: { arms: { name: string }[]; sets?: { name: string }[] }, runs: string[] = []): string {
  const dir = join(root, 'a', 'b', name)
  mkdirSync(join(dir, 'runs'), { recursive: true })
  const arms = spec.arms.map((a) => ({ curriculum: 'two-stage', reward: 'f1', access: true, ...a }))
  writeFileSync(join(dir, 'experiment.json'), JSON.stringify({ name, arms, seeds: [0], eval: { sets: spec.sets ?? [{ name: 'bench' }] } }))
  for (const r of runs) {
    mkdirSync(join(dir, 'runs', r), { recursive: true })
    writeFileSync(join(dir, 'runs', r, 'metrics.jsonl'), JSON.stringify({ step: 1, reward: 0.5 }) + '\n')
  }
  return dir
}

function refusal(dir: string): ViewError {
  try {
    openSources([dir])
  } catch (e) {
    return e as ViewError
  }
  throw new Error(`${dir} was opened`)
}

test('an arm named ../../../outside/r is refused in one line; nothing outside is opened', () => {
  const e = refusal(experiment('crafted-arm', { arms: [{ name: '../../../outside/r' }] }))
  expect(e).toBeInstanceOf(ViewError)
  expect(e.message).toMatch(/experiment.json: arm name "..\/..\/..\/outside\/r" is not a name/)
  expect(e.message).not.toMatch(/\n/)
})

test('an evaluation set named ../x, an arm named ..: refused', () => {
  expect(refusal(experiment('crafted-set', { arms: [{ name: 'a' }], sets: [{ name: '../x' }] })).message).toMatch(/evaluation set name "..\/x" is not a name/)
  expect(refusal(experiment('dotdot', { arms: [{ name: '..' }] })).message).toMatch(/arm name ".." is not a name/)
})

test('a run folder that is a symbolic link out of the experiment is refused', () => {
  const dir = experiment('linked', { arms: [{ name: 'r' }] })
  symlinkSync(outside, join(dir, 'runs', 'r-s0'))
  const e = refusal(dir)
  expect(e.code).toBe('view.outside')
  expect(e.message).toMatch(/resolves outside the experiment folder/)
})

test('a well-formed experiment opens, and /api/runs lists only folders inside it', async () => {
  const dir = experiment('fine', { arms: [{ name: 'a' }] }, ['a-s0'])
  const { runs, experiments } = openSources([dir])
  expect(experiments).toHaveLength(1)
  expect(runs.map((r) => r.dir)).toEqual([join(dir, 'runs', 'a-s0')])
  const { app, close } = createViewApp({ world: null, runs, experiments })
  try {
    const listed = (await (await app.request('/api/runs')).json()) as { name: string }[]
    expect(listed.map((r) => r.name)).toEqual(['a-s0'])
    for (const r of runs) expect(realpathSync(r.dir).startsWith(realpathSync(dir) + '/')).toBe(true)
  } finally {
    await close()
  }
})
