// bench/cli/report: `searchgym bench report runs/NAME` — recompute summary.json and report.md from a run's
// trajectories (e.g. with more bootstrap resamples) without re-running anything (thin).
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { handler, type Argv, type Command } from '../../infra/cli-util'
import { BenchError } from '../../infra/errors'
import { ci } from '../report'
import { checkRunNumbers, RUN_FILES, writeSummary } from '../run'
import { latestById, loadTrajectories } from '../trajectory-log'
import type { BenchRunConfig } from '../types'

/** The run's config.json, or a one-line error when `dir` is not a bench run folder (nothing is written then). */
export function readRunConfig(dir: string): BenchRunConfig {
  const notRun = (why: string) => new BenchError('bench.no_run', `${dir} is not a bench run folder (${why}); pass a folder written by 'searchgym bench run --out DIR'`)
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw notRun('no such folder')
  const cp = join(dir, RUN_FILES.config)
  if (!existsSync(cp)) throw notRun(`no ${RUN_FILES.config}`)
  let config: unknown
  try {
    config = JSON.parse(readFileSync(cp, 'utf8'))
  } catch {
    throw notRun(`${RUN_FILES.config} is not JSON`)
  }
  // A world folder also holds a config.json: a run's names its policy, split and world id.
  const c = config as Partial<BenchRunConfig> | null
  if (typeof c !== 'object' || c === null || typeof c.policy !== 'string' || typeof c.split !== 'string' || typeof c.worldId !== 'string')
    throw notRun(`its ${RUN_FILES.config} is not a bench run's: no policy, split and worldId`)
  if (!existsSync(join(dir, RUN_FILES.trajectories))) throw notRun(`no ${RUN_FILES.trajectories}`)
  return c as BenchRunConfig
}

export function reportFromArgs(a: { run: string; bootstrap?: number }): void {
  const config = readRunConfig(a.run)
  if (a.bootstrap !== undefined) {
    checkRunNumbers({ bootstrap: a.bootstrap })
    config.bootstrap = a.bootstrap
  }
  // A config saved before the bounds existed (e.g. --bootstrap -1) is refused in one line, not as a crash.
  else checkRunNumbers({ bootstrap: config.bootstrap })
  const records = [...latestById(loadTrajectories(join(a.run, RUN_FILES.trajectories)).records).values()]
  const s = writeSummary(a.run, config, records)
  process.stdout.write(`${a.run}: ${s.questions} questions, F1 ${ci(s.overall.f1)}, EM ${ci(s.overall.em)} → report.md\n`)
}

export const reportCommand: Command = {
  command: 'report <run>',
  describe: "recompute a run's summary.json, report.md and charts from its trajectories",
  builder: (y: Argv) =>
    y
      .positional('run', { type: 'string', describe: "run folder written by 'bench run --out' (holds config.json and trajectories.jsonl)" })
      .option('bootstrap', { type: 'number', describe: 'bootstrap resamples for the 95% CIs (default: the run\'s own, 1000)' })
      .example('searchgym bench report runs/tiny --bootstrap 5000', 'recompute summary.json, report.md and the charts'),
  handler: handler((a: unknown) => reportFromArgs(a as { run: string; bootstrap?: number })),
}
