// bench/index: SearchGymBench's public surface — a resumable run over any BenchWorld (runBench), the real world
// adapter (openBenchWorld), the policies of a run config, its summary, report and paired comparison, and the bench
// commands. (The one-off measurements under bench/perf/ are scripts, not part of this surface.)
export type * from './types'
export { runBench, RUN_FILES, type RunDeps, type RunResult } from './run'
export { openBenchWorld, gymBenchWorld } from './gym-world'
export { policyFactory, type ClientTuning } from './policies'
export type { RunSummary } from './metrics'
export { loadRun, compareRuns } from './compare'
export { benchCommands } from './cli/commands'
export { experimentCommands } from './cli/experiment'
export { runExperiment } from './experiment/run'
export { runTrainPreset, TRAIN_PRESETS } from './experiment/presets'
export { readExperiment, resolveExperiment, type ExperimentSpec } from './experiment/spec'
export { buildExperimentReport, writeExperimentReport, type ExperimentReport } from './experiment/report'
export { benchModes, benchName, runName, startModes } from './experiment/layout'
