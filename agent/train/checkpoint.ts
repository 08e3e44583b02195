// agent/train/checkpoint: a training run's checkpoints — the folder layout (checkpoints/step-NNNNNN: adapter, optimizer,
// state.json with the curriculum state and the metrics cursor), the atomic write that keeps the newest two, and the
// resume set-up (state loaded, metrics.jsonl and timing.jsonl cut back to the step). It knows no rollout or update.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Learner } from '../../infra/engine'
import type { QuestionSource } from './source'
import type { StepTiming } from './step-record'

/** A run folder's two line files: metrics.jsonl (deterministic numbers) and timing.jsonl (wall clock). */
export interface RunFiles {
  metrics: string
  timing: string
}

export function runFiles(out: string): RunFiles {
  return { metrics: join(out, 'metrics.jsonl'), timing: join(out, 'timing.jsonl') }
}

function checkpointDirs(out: string): { step: number; dir: string }[] {
  const root = join(out, 'checkpoints')
  if (!existsSync(root)) return []
  return readdirSync(root)
    .filter((n) => /^step-\d{6}$/.test(n) && existsSync(join(root, n, 'state.json')))
    .map((n) => ({ step: Number(n.slice(5)), dir: join(root, n) }))
    .sort((a, b) => a.step - b.step)
}

/** Resume from the last complete checkpoint (adapter + optimizer, curriculum state, metrics cut back to its step), or
 *  start both line files empty. Returns the step the run goes on after (0: a fresh start). */
export function resumeRun(
  r: { out: string; learner: Learner; source: QuestionSource; existingRun?: boolean },
  files: RunFiles,
  notice: (line: string) => void,
): number {
  const last = checkpointDirs(r.out).at(-1)
  if (!last) {
    if (r.existingRun || (existsSync(files.metrics) && statSync(files.metrics).size > 0)) notice(`no checkpoint yet: starting over (${r.out})`)
    writeFileSync(files.metrics, '')
    writeFileSync(files.timing, '')
    return 0
  }
  const st = JSON.parse(readFileSync(join(last.dir, 'state.json'), 'utf8')) as { step: number; source: unknown; metricsBytes: number }
  r.learner.loadState(last.dir)
  r.source.load(st.source)
  if (existsSync(files.metrics)) truncateSync(files.metrics, st.metricsBytes)
  // timing.jsonl is written after the checkpoint (it includes the checkpoint's time): keep the lines up to the step.
  if (existsSync(files.timing))
    writeFileSync(files.timing, readFileSync(files.timing, 'utf8').split('\n').filter((l) => l.trim() && (JSON.parse(l) as StepTiming).step <= st.step).map((l) => l + '\n').join(''))
  notice(`resuming from step ${st.step} (${last.dir})`)
  return st.step
}

/** Write a checkpoint atomically (a temp folder renamed into place); keep only the newest two. */
export function saveCheckpoint(out: string, step: number, learner: Learner, source: QuestionSource, metricsFile: string): void {
  const root = join(out, 'checkpoints')
  mkdirSync(root, { recursive: true })
  const name = `step-${String(step).padStart(6, '0')}`
  const tmp = join(root, `.${name}.tmp`)
  rmSync(tmp, { recursive: true, force: true })
  learner.saveState(tmp)
  const state = { step, source: source.state(), metricsBytes: readFileSync(metricsFile).length }
  writeFileSync(join(tmp, 'state.json'), JSON.stringify(state, null, 1))
  const dest = join(root, name)
  rmSync(dest, { recursive: true, force: true })
  renameSync(tmp, dest)
  for (const old of checkpointDirs(out).slice(0, -2)) rmSync(old.dir, { recursive: true, force: true })
}
