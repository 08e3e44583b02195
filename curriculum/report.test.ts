// curriculum/report.test: the train report of a real run folder says why a run trained nothing — a run at lr 0 is a
// control run (its optimizer steps move nothing) — and says nothing of the kind for a run that updated.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NO_UPDATE_LINE, ZERO_LR_LINE } from '../agent'
import { writeTrainReport } from './report'

test("the train report of a run at lr 0 says it is a control run; one that updated says nothing of the kind", () => {
  const dir = mkdtempSync(join(tmpdir(), 'sg-train-report-'))
  try {
    const metrics = [1, 2].map((step) => JSON.stringify({ step, stage: 'mixed', rewardMean: 0.5, f1: 0.5, optimizerSteps: 1 })).join('\n') + '\n'
    writeFileSync(join(dir, 'metrics.jsonl'), metrics)
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ train: { lr: 0 } }))
    expect(readFileSync(writeTrainReport(dir), 'utf8')).toContain(`**${ZERO_LR_LINE}.**`)
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ train: { lr: 1e-4 } }))
    const md = readFileSync(writeTrainReport(dir), 'utf8')
    expect(md).not.toContain(ZERO_LR_LINE)
    expect(md).not.toContain(NO_UPDATE_LINE)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
