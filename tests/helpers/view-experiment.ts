// tests/helpers/view-experiment: a real experiment folder for the viewer's tests — the shipped tiny experiment
// (curriculum/experiments/tiny.json: two arms × two seeds × two GRPO steps on tiny worlds, two evaluation sets) run
// with the real CLI into PARENT/tiny, a fresh temporary PARENT per test file (the viewer finds it under PARENT).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli } from './cli-process'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface ViewExperiment {
  /** The folder holding the experiment (and its world cache). */
  parent: string
  /** The experiment folder (--out of experiment run). */
  dir: string
}

export async function makeViewExperiment(): Promise<ViewExperiment> {
  const parent = mkdtempSync(join(tmpdir(), 'sg-view-exp-'))
  const tiny = JSON.parse(readFileSync(join(ROOT, 'curriculum/experiments/tiny.json'), 'utf8')) as Record<string, Record<string, unknown>>
  const spec = join(parent, 'tiny.json')
  writeFileSync(spec, JSON.stringify({ ...tiny, worlds: { ...tiny.worlds, cache: join(parent, 'worlds') } }))
  const dir = join(parent, 'tiny')
  const r = await runCli(['experiment', 'run', spec, '--out', dir], 540_000)
  if (r.code !== 0) throw new Error(`searchgym experiment run failed (exit ${r.code}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`)
  return { parent, dir }
}
