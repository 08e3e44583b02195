// world/pipeline: the ordered build stages of a world. One line per stage; later packages append theirs
// (index, verify, qa, split) here. Knows nothing of how each stage works.
import type { Stage } from './stage'
import { graphStage } from './stages/graph-stage'
import { docsStage } from './stages/docs-stage'
import { indexStage } from './stages/index-stage'
import { verifyStage } from './stages/verify-stage'
import { qaStage, splitStage } from './qa/stages'

export const STAGES: Stage[] = [
  graphStage,
  docsStage,
  indexStage,
  verifyStage,
  qaStage,
  splitStage,
]
