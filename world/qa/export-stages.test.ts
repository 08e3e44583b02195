// world/qa/export-stages tests: first-match partition of a pool by stage filters, and the phases' launch scripts for
// verl (resume_path from the previous phase's global step) and Search-R1 (the previous phase's saved actor).
import { curriculumLaunch, partitionByStages, type ExportCurriculum } from './export-stages'
import { engineProfile } from './engines/registry'
import type { Qa } from '../types'

const qa = (id: string, type: Qa['type'], hops: number) => ({ id, type, hops }) as Qa
const pool = [qa('a', 'simple', 1), qa('b', 'simple', 7), qa('c', 'combo', 3), qa('d', 'simple', 6), qa('e', 'parallel', 13)]
const two: ExportCurriculum = {
  name: 'two-stage',
  stages: [
    { name: 'stage1', test: (q) => q.type === 'simple' && q.hops <= 6, steps: 30 },
    { name: 'stage2', test: (q) => q.hops <= 12 },
  ],
}

test('each question goes to the first stage that takes it; the rest are returned apart', () => {
  const { byStage, unmatched } = partitionByStages(pool, two.stages)
  expect(byStage.map((s) => s.map((q) => q.id))).toEqual([['a', 'd'], ['b', 'c']])
  expect(unmatched.map((q) => q.id)).toEqual(['e'])
})

test('phase 2 trains on stage files 1..2 and resumes from phase 1 with the engine\'s own setting', () => {
  const v = curriculumLaunch(engineProfile('verl'), two, '/x', ['data.train_batch_size=8'])
  expect(v).toMatch(/data\.train_files="\['\$DATA\/stage1-stage1\.parquet'\]".*trainer\.resume_mode=disable trainer\.total_training_steps=30 data\.train_batch_size=8/)
  expect(v).toMatch(/data\.train_files="\['\$DATA\/stage1-stage1\.parquet','\$DATA\/stage2-stage2\.parquet'\]".*trainer\.resume_mode=resume_path trainer\.resume_from_path="\$CKPT\/global_step_30"/)
  const s = curriculumLaunch(engineProfile('search-r1'), two, '/x', [])
  expect(s).toMatch(/actor_rollout_ref\.model\.path="\$CKPT\/actor\/global_step_30"/)
})
