// bench/experiment/report.test: the informative share of GRPO groups per curriculum stage, read from a run's metric lines
// (issue 58: a stage where nearly every group is constant trains almost nothing, whatever its step count).
import { informativeByStage, informativeText, scoredRuns } from './report'

test('groups drawn and informative ones (not all 0, not all 1, not another shared value) are summed per stage, in the order the stages were met', () => {
  const lines = [
    // The trainer's three kinds of constant group: every reward 0, every reward 1, one other value shared by the group.
    { stage: 'stage1', questions: 16, all0: 6, all1: 3, constant: 1 },
    { stage: 'stage1', questions: 20, all0: 4, all1: 0, constant: 0 }, // a refill round drew 4 more
    { stage: 'stage2', questions: 16, all0: 16, all1: 0, constant: 0 },
    { stage: 'stage2', questions: 16, all0: 10, all1: 1, constant: 1 },
  ]
  const xs = informativeByStage(lines)
  expect(xs).toEqual([
    { stage: 'stage1', groups: 36, informative: 22 },
    { stage: 'stage2', groups: 32, informative: 4 },
  ])
  expect(informativeText(xs)).toBe('stage1 61.1% of 36, stage2 12.5% of 32')
})

test('lines without the counts (older runs) or a stage count nothing and say so', () => {
  expect(informativeByStage([{ stage: 'mixed' }, {}])).toEqual([
    { stage: 'mixed', groups: 0, informative: 0 },
    { stage: '–', groups: 0, informative: 0 },
  ])
  expect(informativeText(informativeByStage([{ stage: 'mixed' }]))).toBe('mixed – of 0')
  expect(informativeText([])).toBe('–')
})

test("a result line counts only the runs its scores come from: a seed still training (no bench yet) is left out", () => {
  const runs = [{ run: 'two-stage-s0', optimizerSteps: 100 }, { run: 'two-stage-s1', optimizerSteps: 5 }, { run: 'mixed-s0', optimizerSteps: 100 }]
  expect(scoredRuns({ arm: 'two-stage', seedF1: { s0: 0.45 } }, [0, 1, 2], runs)).toEqual([runs[0]])
  expect(scoredRuns({ arm: 'two-stage', seedF1: { s0: 0.45, s1: 0.4 } }, [0, 1, 2], runs)).toEqual([runs[0], runs[1]])
  expect(scoredRuns({ arm: 'mixed', seedF1: {} }, [0, 1, 2], runs)).toEqual([])
})
