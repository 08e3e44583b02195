// bench/cli/report: `searchgym bench report runs/NAME` — recompute summary.json and report.md from a run's
// trajectories (e.g. with more bootstrap resamples) without re-running anything (thin).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { handler, type Argv, type Command } from '../../infra/cli-util'
import { BenchError } from '../../infra/errors'
import { ci } from '../report'
import { RUN_FILES, writeSummary } from '../run'
import { latestById, loadTrajectories } from '../trajectory-log'
import type { BenchRunConfig } from '../types'

export function reportFromArgs(a: { run: string; bootstrap?: number }): void {
  const cp = join(a.run, RUN_FILES.config)
  if (!existsSync(cp)) throw new BenchError('bench.no_run', `${a.run} is not a bench run (no ${RUN_FILES.config})`)
  const config = JSON.parse(readFileSync(cp, 'utf8')) as BenchRunConfig
  if (a.bootstrap !== undefined) config.bootstrap = a.bootstrap
  const records = [...latestById(loadTrajectories(join(a.run, RUN_FILES.trajectories)).records).values()]
  const s = writeSummary(a.run, config, records)
  process.stdout.write(`${a.run}: ${s.questions} questions, F1 ${ci(s.overall.f1)}, EM ${ci(s.overall.em)} → report.md\n`)
}

export const reportCommand: Command = {
  command: 'report <run>',
  describe: "recompute a run's summary.json, report.md and charts from its trajectories",
  builder: (y: Argv) => y.positional('run', { type: 'string', describe: 'run directory' }).option('bootstrap', { type: 'number' }),
  handler: handler((a: unknown) => reportFromArgs(a as { run: string; bootstrap?: number })),
}
