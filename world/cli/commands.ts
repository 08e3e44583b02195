// world/cli/commands: the `searchgym world ...` command group (thin: parse flags, call an exported function). The
// stage list is the caller's: the root CLI passes agent's CHECKED_WORLD_STAGES, a library user WORLD_STAGES or their own;
// likewise the export tuner (agent's oracle run through an outside engine's limits).
import type { Command } from '../../infra/cli-util'
import type { Stage } from '../stage'
import { WORLD_STAGES } from '../build/stages'
import { buildCommand } from './build'
import { statsCommand } from './stats'
import { showCommand } from './show'
import { exportCommandWith } from './export'
import type { ExportTuner } from '../qa/engines/profile'
import type { ExportStager } from '../qa/export-stages'
import { verifyCommand } from './verify'
import { qaCommand } from './qa'

/** `searchgym world build|stats|show|export|verify|qa`, building and re-hashing with `stages`. */
export function worldCommands(stages: readonly Stage[] = WORLD_STAGES, tuner?: ExportTuner, stager?: ExportStager): Command[] {
  return [
    {
      command: 'world',
      describe: 'build and inspect worlds (graph, documents, world file)',
      builder: (y) =>
        y
          .command([buildCommand(stages), statsCommand(stages), showCommand, exportCommandWith(tuner, stager, stages), verifyCommand(stages), qaCommand(stages)])
          .demandCommand(1, 'give a world sub-command; see searchgym world --help'),
      handler: () => undefined,
    },
  ]
}
