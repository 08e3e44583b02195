// agent/train/step-record.test: a run that trained nothing says why — no optimizer step (every group constant), or a
// learning rate of 0 (a control run). curriculum/report.test: the train report carries that sentence.
import { NO_UPDATE_LINE, noUpdateLine, ZERO_LR_LINE } from './step-record'

test('0 optimizer steps, or lr 0, is a run that trained nothing; otherwise null', () => {
  expect(noUpdateLine(0, 1e-4)).toBe(NO_UPDATE_LINE)
  expect(noUpdateLine(0, 0)).toBe(NO_UPDATE_LINE)
  expect(noUpdateLine(15, 0)).toBe(ZERO_LR_LINE)
  expect(noUpdateLine(15, 1e-4)).toBeNull()
})
