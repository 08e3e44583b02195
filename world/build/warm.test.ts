// world/build warm hook: buildWorld starts a stage's early work (Stage.warm) just before the stage it overlaps, hands
// it to that stage's run() as ctx.warm, and releases it after the run — or when the build stops before it ran.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildWorld } from './build'
import { presetConfig } from '../config'
import type { Stage, WarmHandle } from '../stage'

const root = mkdtempSync(join(tmpdir(), 'sg-warm-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function stages(events: string[], failIn?: string): Stage[] {
  const stage = (name: string, warm?: boolean): Stage => ({
    name,
    init: () => undefined,
    async run(ctx) {
      events.push(`run ${name}${ctx.warm ? ' (warm)' : ''}`)
      if (name === failIn) throw new Error(`${name} failed`)
    },
    hashRows: () => undefined,
    warm: warm
      ? async () => {
          events.push(`warm ${name}`)
          const h: WarmHandle = { release: () => events.push(`release ${name}`) }
          return h
        }
      : undefined,
  })
  return [stage('a'), stage('b'), stage('c', true), stage('d')]
}

test('a warm stage is started just before the stage it follows, used by its run, then released', async () => {
  const events: string[] = []
  await buildWorld({ config: presetConfig('tiny'), dir: join(root, 'ok'), quiet: true, stages: stages(events) })
  expect(events).toEqual(['run a', 'warm c', 'run b', 'run c (warm)', 'release c', 'run d'])
})

test('a build that stops before the warm stage ran still releases it', async () => {
  const events: string[] = []
  await expect(buildWorld({ config: presetConfig('tiny'), dir: join(root, 'fail'), quiet: true, stages: stages(events, 'b') })).rejects.toThrow('b failed')
  expect(events).toEqual(['run a', 'warm c', 'run b', 'release c'])
})

test('a resumed build whose earlier stages are done runs the warm stage cold', async () => {
  const events: string[] = []
  const dir = join(root, 'resume')
  await expect(buildWorld({ config: presetConfig('tiny'), dir, quiet: true, stages: stages(events, 'c') })).rejects.toThrow('c failed')
  events.length = 0
  await buildWorld({ config: presetConfig('tiny'), dir, quiet: true, stages: stages(events) })
  expect(events).toEqual(['run c', 'run d'])
})
