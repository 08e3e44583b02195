// curriculum/index: the curriculum package's public surface — stage specs and presets, the batch source the trainer
// draws from, the training and SFT runs behind `searchgym train`, their report, and the package's commands.
export { type StageSpec, type SwitchRule, type CurriculumSpec, PRESETS, presetNames, curriculumPreset, inStage, bucketOf, exportStager } from './stages'
export { CurriculumSource, type SourceOptions } from './source'
export { runTraining, openLearner, type TrainRunOptions, type RunConfig, type RolloutSamplerFactory } from './run'
export { onlyLastTurn, runSft, type SftRunOptions } from './sft-run'
export { writeTrainReport } from './report'
export { budgetCoverage, type StageBudgetReport } from './budgets'
export { curriculumCommands } from './cli/commands'
export type { TrainCommandDeps } from './cli/train'
export { WorldPool, buildRecipeWorlds, checkHeldOutWorlds, pooledId, recipeConfig, recipeWorldDir, worldArgs, worldComplete, worldIdentity, type PoolMember, type WorldRecipe } from './world-pool'
export { funnelLine, funnelQuestions, runFunnel, answerNll, type Funnel, type FunnelOptions } from './funnel'
