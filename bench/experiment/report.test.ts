// bench/experiment/report.test: the informative share of GRPO groups per curriculum stage, read from a run's metric lines
// (issue 58: a stage where nearly every group is constant trains almost nothing, whatever its step count).
import { informativeByStage, informativeText } from './report'

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
