// world/cli/stats: `searchgym world stats DIR [--json] [--held-out N] [--held-out-seed S]` — counts, degree histogram,
// document lengths, hash, and the facts (edges) the bench and a held-out slice share with the training questions.
import { handler, type Command } from '../../infra/cli-util'
import { ConfigError, oneLine } from '../../infra/errors'
import type { Stage } from '../stage'
import { checkWorldContent } from '../build/content-check'
import { openWorld } from '../store/open'
import { computeStats, formatStats } from '../build/stats'

/** `world stats`; a finished world's content is checked against its hash (over `stages`) and a mismatch flagged: the
 *  stats are printed, then one warning line, exit 1. */
export const statsCommand = (stages: readonly Stage[]): Command => ({
  command: 'stats <dir>',
  describe: 'summary of a world folder (an unfinished world is reported with complete=false and hash=null)',
  builder: (y) =>
    y
      .positional('dir', { type: 'string', demandOption: true, describe: 'world folder (written by world build --out)' })
      .option('json', { type: 'boolean', default: false, describe: 'one JSON object' })
      .option('held-out', { type: 'number', default: 64, describe: 'size of the held-out slice whose fact overlap is reported (as train --held-out / train sft --held-out; 0 = none)' })
      .option('held-out-seed', { type: 'number', default: 0, describe: 'seed of that slice (the train run seed)' })
      .example('searchgym world stats worlds/paper', 'counts, verification, QA by type and hops')
      .example('searchgym world stats worlds/paper --json', '… "facts": {"bench": {"everyEdge", "askedDirectly", …}, "heldOut": {…}, "factDisjoint"}'),
  handler: handler(async (raw: object) => {
    const a = raw as { dir: string; json: boolean; 'held-out': number; 'held-out-seed': number }
    for (const k of ['held-out', 'held-out-seed'] as const)
      if (!Number.isInteger(a[k]) || a[k] < 0) throw new ConfigError('stats.held_out', `--${k} must be a non-negative integer, got ${a[k]}`)
    const w = openWorld(a.dir, { allowIncomplete: true, check: true })
    try {
      const s = computeStats(w.db, a.dir, w.manifest, w.stages, { heldOut: a['held-out'], heldOutSeed: a['held-out-seed'] })
      let mismatch: string | undefined
      if (w.complete)
        try {
          checkWorldContent(w, stages)
        } catch (e) {
          mismatch = oneLine(e)
        }
      // The hash is the manifest's claim; it is printed as the world's hash only when the rows were checked to match it.
      const hashChecked = w.complete && !mismatch
      const shown = { ...s, hashChecked, ...(mismatch ? { contentMismatch: mismatch } : {}) }
      const text = formatStats(s).replace(/^hash( +)(\S+)$/m, (_, sp: string, h: string) => (hashChecked ? `hash${sp}${h} (rows checked)` : mismatch ? `manifest hash ${h} (NOT the rows' hash: edited after the build, see the warning)` : `hash${sp}${h}`))
      process.stdout.write((a.json ? JSON.stringify(shown) : text) + '\n')
      if (mismatch) {
        process.stderr.write(`searchgym: warning: ${mismatch}\n`)
        process.exitCode = 1
      }
    } finally {
      w.close()
    }
  }),
})
