// bench/index: SearchGymBench's public surface — a resumable run over any BenchWorld (runBench), the real world
// adapter (openBenchWorld), the policies of a run config, its summary, report and paired comparison, and the bench
// commands. (The one-off measurements under bench/perf/ are scripts, not part of this surface.)
export type * from './types'
export { BENCH_PROTOCOLS, wireProtocol } from './types'
export { runBench, selectQuestions, writeSummary, RUN_FILES, type RunDeps, type RunResult } from './run'
export { openBenchWorld, gymBenchWorld } from './gym-world'
export { policyFactory, makeJudge, type ClientTuning } from './policies'
export { summarize, type RunSummary } from './metrics'
export { renderReport, writeReport } from './report'
export { loadRun, compareRuns, writeComparison, type Comparison } from './compare'
export { benchCommands } from './cli/commands'
