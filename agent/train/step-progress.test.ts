// agent/train/step-progress.test: the in-step progress line — throttled to one per PROGRESS_MS, with count, rate and ETA.
import { PROGRESS_MS, StepProgress } from './step-progress'

test('one line per PROGRESS_MS with rollouts done / total, rate and ETA; none at the end (the step line follows)', () => {
  let t = 0
  const lines: string[] = []
  const p = new StepProgress(3, 20, 8, (l) => lines.push(l), () => t)
  t = 500
  p.tick() // 1 done, too soon
  expect(lines).toEqual([])
  t = PROGRESS_MS
  p.tick() // 2 done in 2 s: 1/s, 6 left
  expect(lines).toEqual(['train: step 3/20: rollouts 2/8, 1.00/s, ETA 6s'])
  t = PROGRESS_MS + 100
  p.tick() // throttled
  expect(lines).toHaveLength(1)
  t = 4 * PROGRESS_MS
  for (let i = 0; i < 5; i++) p.tick() // the last one reaches the total: no line
  expect(lines).toEqual(['train: step 3/20: rollouts 2/8, 1.00/s, ETA 6s', 'train: step 3/20: rollouts 4/8, 0.50/s, ETA 8s'])
})
