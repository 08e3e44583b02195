// world/build/stages: the build stages of a world, in order — the whole pipeline the world package owns, in one place.
// Stages from higher packages (agent's oracle check) are not registered here: a caller that wants them passes
// `[...WORLD_STAGES, theirStage]` to buildWorld / the world commands (agent exports CHECKED_WORLD_STAGES).
import type { Stage } from '../stage'
import { graphStage } from '../graph/graph-stage'
import { docsStage } from '../docs/docs-stage'
import { writeStage } from '../write/write-stage'
import { rephraseStage } from '../write/rephrase-stage'
import { indexStage } from '../indexing/index-stage'
import { verifyStage } from '../verify/verify-stage'
import { qaStage } from '../qa/qa-stage'
import { splitStage } from '../split/split-stage'

export const WORLD_STAGES: readonly Stage[] = Object.freeze([graphStage, docsStage, writeStage, indexStage, verifyStage, qaStage, splitStage, rephraseStage])

/** The stages of `stages` from `name` on (empty when it is not in the list). */
export function stagesFrom(stages: readonly Stage[], name: string): Stage[] {
  const i = stages.findIndex((s) => s.name === name)
  return i < 0 ? [] : stages.slice(i)
}
