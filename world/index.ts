// world/index: the world package's public surface — what gym, agent, bench and the root CLI may use. Building a world
// (config, stages, buildWorld), reading a finished one (openWorld, its QA, its search index) and the world commands.
export type * from './types'
export { type WorldConfig, type WorldPresetName, WORLD_PRESETS, presetConfig, validateWorldConfig } from './config'
export { WORLD_FIELDS } from './config-fields'
export { ENTITY_TYPES, RELATIONS, entityType, relation, attributeSpec } from './schema'
export { formatAttr } from './docs/docs'
export type { Stage, StageContext, WarmHandle } from './stage'
export { WORLD_STAGES } from './build/stages'
export { buildWorld, contentHash, type BuildOptions, type BuildResult, type StageReport } from './build/build'
export { checkWorldContent, checkWorldContentOnce, checkWorldDir, type ContentCheck } from './build/content-check'
export { openWorld, worldReader, type World, type WorldReader } from './store/open'
export { worldTexts, worldReadingTexts, countWorldDocs, worldEntityNames, worldNameLocales } from './store/texts'
export { namerLexicon } from './names'
export { pickHeldOut, heldOutSlice, factDisjointPartition, factOverlap, factsOf, type FactItem, type FactOverlap, type FactPartition } from './split/facts'
export { readQa, readQaIds, readQaById, readQaByIds, hasQaTable, type StoredSplit } from './qa/store'
export { openSearchIndex, worldEngine, type OpenSearchOptions } from './indexing/open'
export { SearchPool, POOLABLE_ENGINES } from './indexing/search-pool'
export type { SearchDoc, SearchHit, SearchIndex, SearchOptions } from './search/types'
export { worldCommands } from './cli/commands'
export { ENGINE_NAMES, type EngineName } from './search/engine-names'
export { RETRIEVE_UNITS, type RetrieveUnit } from './search/retrieve-units'
export {
  limitsWith,
  ENGINE_LIMIT_FIELDS,
  batchSizes,
  validationBatch,
  observationText,
  type EngineLimits,
  type EngineProfile,
  type LimitLadder,
  type RetrievedDoc,
  type RenderedObservation,
  type ObservationCut,
  type ExportIo,
  type ExportUnit,
  type WorldIdentity,
  type BatchSizes,
  type ExportTuning,
  type ExportTuner,
} from './qa/engines/profile'
export { registerEngine, unregisterEngine, engineProfile, engineProfileNames, engineProfiles, isEngineProfile } from './qa/engines/registry'
export { partitionByStages, curriculumLaunch, stageFile, type ExportStage, type ExportCurriculum, type ExportStager } from './qa/export-stages'
export { verificationQuerySets, type EdgeQuerySet, type VerifySettings } from './verify/verify'
export type { EdgeQuery, QueryStyle } from './verify/verify-queries'
export { isBlurred } from './qa/blur-pool'
