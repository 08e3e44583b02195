// bench/experiment/presets: `searchgym train --preset NAME --out DIR` — the toy runs are experiment files bundled in
// curriculum/experiments/ (quick.json, quick-scratch.json, quick-smoke.json) run by the one experiment driver; this
// reads the file with the flags' overrides (--steps, --backend), runs it and returns the report's result line. The
// composition root (cli.ts) hands it to `train` (curriculum sits below bench). Knows the preset names and their files.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readJsonFile } from '../../infra/config'
import { ConfigError } from '../../infra/errors'
import type { ExperimentReport } from './report'
import { runExperiment } from './run'
import { resolveExperiment } from './spec'

/** The bundled experiment files of `train --preset`, by name (help, validation and the files all read this). */
export const TRAIN_PRESETS: ReadonlyMap<string, string> = new Map([
  ['quick', 'GRPO from the shipped reader start on a world it never trained on'],
  ['quick-scratch', 'a tiny world, a random tiny model, oracle SFT, GRPO'],
  ['quick-smoke', 'quick-scratch at its smallest size (the tests)'],
])

/** curriculum/experiments/NAME.json (the folder of the repository this file is in; also from the CLI bundle). */
export const trainPresetFile = (name: string) => join(fileURLToPath(new URL('../../curriculum/experiments/', import.meta.url)), `${name}.json`)

export interface TrainPresetOptions {
  preset: string
  out: string
  /** The runs' GRPO steps instead of the file's (a larger value lengthens a finished run). */
  steps?: number
  /** The engine backend instead of the file's. */
  backend?: string
  log?: (line: string) => void
  /** Lines shown even when quiet (a GRPO run resuming). */
  notice?: (line: string) => void
}

/** Runs the preset's experiment under OUT; returns its result line (the report's first summary line). */
export async function runTrainPreset(o: TrainPresetOptions): Promise<string> {
  if (!TRAIN_PRESETS.has(o.preset)) throw new ConfigError('train.preset', `unknown train preset '${o.preset}'; use one of: ${[...TRAIN_PRESETS.keys()].join(', ')}`)
  const file = trainPresetFile(o.preset)
  const raw = readJsonFile(file, 'train preset file') as { train?: Record<string, unknown> }
  // The flags are one more layer of the file, resolved with it (ranges and all) once.
  const spec = resolveExperiment({ ...raw, ...(o.backend !== undefined ? { backend: o.backend } : {}), train: { ...raw.train, ...(o.steps !== undefined ? { steps: o.steps } : {}) } }, dirname(file))
  const r = await runExperiment(spec, o.out, { log: o.log, notice: o.notice })
  const line = (JSON.parse(readFileSync(join(dirname(r.report), 'report.json'), 'utf8')) as ExperimentReport).summary[0]
  if (line === undefined) throw new ConfigError('train.preset', `${o.out}/report.json has no result line (no run was benched)`)
  return line
}
