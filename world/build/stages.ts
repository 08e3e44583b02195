// world/build/stages: the ordered build stages of a world. One line per stage; later packages append theirs
// (index, verify, qa, split) here. Stages from higher layers (the oracle check, which needs agent/) are
// registered at start-up by the root CLI and run last. Knows nothing of how each stage works.
import type { Stage } from '../stage'
import { graphStage } from '../graph/graph-stage'
import { docsStage } from '../docs/docs-stage'
import { indexStage } from '../indexing/index-stage'
import { verifyStage } from '../verify/verify-stage'
import { qaStage, splitStage } from '../qa/stages'

export const STAGES: Stage[] = [
  graphStage,
  docsStage,
  indexStage,
  verifyStage,
  qaStage,
  splitStage,
]

const finalStages: Stage[] = []

/** Append a stage owned by a higher layer (agent's oracle check); the root cli.ts registers it before parsing. */
export function registerFinalStage(stage: Stage): void {
  if (!finalStages.some((s) => s.name === stage.name)) finalStages.push(stage)
}

/** The full pipeline: STAGES, then the registered final stages. */
export function pipelineStages(): Stage[] {
  return [...STAGES, ...finalStages]
}
