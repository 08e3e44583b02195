// world/cli/stats: `searchgym world stats DIR [--json]` — counts, degree histogram, document lengths, hash.
import { handler, type Command } from '../../infra/cli-util'
import { openWorld } from '../store/open'
import { computeStats, formatStats } from '../build/stats'

export const statsCommand: Command = {
  command: 'stats <dir>',
  describe: 'summary of a world folder (an unfinished world is reported with complete=false and hash=null)',
  builder: (y) => y.positional('dir', { type: 'string', demandOption: true, describe: 'world folder (written by world build --out)' }).option('json', { type: 'boolean', default: false, describe: 'one JSON object' }),
  handler: handler(async (raw: object) => {
    const a = raw as { dir: string; json: boolean }
    const w = openWorld(a.dir, { allowIncomplete: true, check: true })
    try {
      const s = computeStats(w.db, a.dir, w.manifest, w.stages)
      process.stdout.write((a.json ? JSON.stringify(s) : formatStats(s)) + '\n')
    } finally {
      w.close()
    }
  }),
}
