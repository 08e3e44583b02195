// world/cli/qa: `searchgym world qa DIR` (run the qa and split stages on a built world). Thin.
import { handler, type Command } from '../../infra/cli-util'
import { openWorld } from '../store/open'
import { runQaStages } from '../build/run-qa'
import { formatSplitLine } from '../split/split-stage'
import type { Stage } from '../stage'
import { readSplitStats } from '../qa/store'
import type { SplitStats } from '../split/split'

/** `world qa` over the stage list the world was built with (a forced redraw reruns every stage after the qa). */
export function qaCommand(stages: readonly Stage[]): Command {
  return {
    command: 'qa <dir>',
    describe: 'sample the QA pool on the verified graph and hold out SearchGymBench (the qa and split stages; resumable)',
    builder: (y) =>
      y
        .positional('dir', { type: 'string', demandOption: true, describe: 'a built world folder' })
        .option('force', { type: 'boolean', default: false, describe: 'redraw the QA and the split even if they are done' })
        .option('quiet', { type: 'boolean', default: false, describe: 'no progress output' })
        .example('searchgym world qa worlds/paper', 'draw the QA and the split of a built world')
        .example('searchgym world qa worlds/paper --force', 'redraw them'),
    handler: handler(async (raw: object) => {
      const a = raw as { dir: string; force: boolean; quiet: boolean }
      const res = await runQaStages(a.dir, { stages, force: a.force, quiet: a.quiet })
      const w = openWorld(a.dir)
      try {
        const stats = readSplitStats(w.db) as unknown as SplitStats | undefined
        if (stats) process.stdout.write(formatSplitLine(stats) + '\n')
        process.stdout.write(`hash ${res.hash}  (${res.stages.filter((s) => s.name === 'qa' || s.name === 'split').map((s) => `${s.name} ${s.outcome === 'ran' ? s.seconds.toFixed(1) + ' s' : 'skipped'}`).join(', ')})\n`)
      } finally {
        w.close()
      }
    }),
  }
}
