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

const plan = (flags: string[], train = 8) => ({
  flags,
  limits: engineProfile('verl').stock,
  batches: { train, val: 4, miniBatch: train / 2, microBatch: 2 },
  unit: 'page' as const,
  trainRows: 40,
  worldHash: 'f00d',
  phaseRows: [20, 40],
})

test('verl: phase 2 trains on stage files 1..2 and resumes phase 1\'s last save, with steps its loop reads; a rerun resumes the phase it was in', () => {
  const v = curriculumLaunch(engineProfile('verl'), two, plan(['data.train_batch_size=8']))
  // phase 1: 30 steps, saved at its last; total_epochs = the last global step (the epochs never end the run first);
  // fresh unless a rerun finds a save of its own (resume_mode auto), skipped once its last step is saved.
  expect(v).toMatch(/if \[ "\$S" -ge 30 \]; then\n.*phase 1 already trained.*\nelse\n  if \[ "\$S" -gt 0 \]; then\n    RESUME=\(trainer\.resume_mode=auto\)\n  else\n    RESUME=\(trainer\.resume_mode=disable\)\n  fi\n/)
  expect(v).toMatch(/data\.train_files="\['\$DATA\/stage1-stage1\.parquet'\]" \\\n    "\$\{RESUME\[@\]\}" trainer\.total_training_steps=30 trainer\.total_epochs=30 trainer\.save_freq=30/)
  // phase 2: phase 1's dataloader state moved aside, resumed at global step 30; the last phase: 40 // 8 = 5 batches x 30 stock epochs.
  expect(v).toContain('if [ -f "$CKPT/global_step_30/data.pt" ]; then mv "$CKPT/global_step_30/data.pt" "$CKPT/global_step_30/data.pt.phase1"; fi')
  expect(v).toContain('RESUME=(trainer.resume_mode=resume_path "trainer.resume_from_path=$CKPT/global_step_30")')
  expect(v).toMatch(/stage2-stage2\.parquet'\]" \\\n    "\$\{RESUME\[@\]\}" trainer\.total_training_steps=180 trainer\.total_epochs=180 trainer\.save_freq=150/)
  expect(v).toContain('[ -d "$CKPT/global_step_180/actor" ] || { echo "launch-verl-two-stage.sh: phase 2 ended without its last save')
  // Any folder: ppo_trainer found through an absolute search path; the exported world's hash is the gym's to match.
  expect(v).toContain(`"hydra.searchpath=['file://$VERL_DIR/verl/trainer/config']"`)
  expect(v).toContain('EXPORT_WORLD_HASH=f00d')
})

test('Search-R1: each phase saves its last actor and the next starts from it; ASearcher: epochs, not steps, judged by the saver', () => {
  const s = curriculumLaunch(engineProfile('search-r1'), two, plan([]))
  expect(s).toMatch(/actor_rollout_ref\.model\.path="\$MODEL" trainer\.default_local_dir="\$CKPT\/phase1" trainer\.total_training_steps=31 trainer\.save_freq=30 trainer\.total_epochs=30/)
  expect(s).toMatch(/actor_rollout_ref\.model\.path="\$CKPT\/phase1\/actor\/global_step_30" trainer\.default_local_dir="\$CKPT\/phase2"/)
  expect(s).toContain('if [ "$RESUMABLE" = 1 ] && [ -d "$CKPT/phase1/actor/global_step_30" ]; then')
  const a = curriculumLaunch(engineProfile('asearcher'), two, plan([]))
  // 20 rows on 4 ranks: 5 per rank // (8 // 4) = 2 steps per epoch -> 15 epochs for 30 steps, the last saved as epoch 14, step 1.
  expect(a).toMatch(/trial_name=phase1 \\\n    actor\.path="\$FROM" train_dataset\.path="\$DATA\/phase1\.jsonl" total_train_epochs=15 "\$\{RESUME\[@\]\}"/)
  expect(a).toContain('LAST1=epoch14epochstep1globalstep29')
  expect(a).toMatch(/PREV_MODEL=\$DONE1\n/)
  expect(a).toMatch(/trial_name=phase2 \\\n    actor\.path="\$FROM" train_dataset\.path="\$DATA\/phase2\.jsonl" total_train_epochs=10 /)
  expect(a).toContain('RESUME=(+recover_start_step="$NEXT")')
  expect(a).not.toMatch(/total_train_steps=|group_reward_norm/)
  expect(() => curriculumLaunch(engineProfile('asearcher'), two, plan([], 2))).toThrow(/4 trainer ranks/)
})
