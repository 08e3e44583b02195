// view/index: the viewer package's public surface — the `view` command for the root CLI, and the server and data
// readers for tests and bench/perf. It sits at the top beside bench: it reads worlds, bench runs and training runs.
export { viewCommands } from './cli/commands'
export { createViewApp, startViewer, type RunningViewer, type ViewSources } from './server'
export { WorldData, docSpans, paging } from './world-data'
export { RunFolder, openRuns, outcomeOf } from './runs'
export { ensurePageBundle } from './bundle'
export { ExperimentFolder, openSources, seedBand, isExperimentDir } from './experiments'
export type * from './types'
