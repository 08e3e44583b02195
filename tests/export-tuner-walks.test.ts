// tests/export-tuner-walks: the export tuner's traced oracle walks (one walk per observation setting, every turn and
// context rung read off it; worker threads from 4,000 questions up) give the verdicts of full profileCheck runs — the
// stock limits and the ladder chooseShippedLimits climbs with one run per rung — on the run's tiny world, for each
// engine. The tiny pool is repeated 11 times (4,048 questions) so the walks go through the worker threads.
import { chooseShippedLimits, exportTuner, profileCheck } from '../agent'
import { worldOracleKnowledge } from '../agent'
import { openGymWorld } from '../gym'
import { engineProfile, openWorld, readQa } from '../world'
import { sharedTinyWorld } from './helpers/shared-world'

describe('export tuner: traced walks against one full run per rung', () => {
  it.each(['search-r1', 'verl', 'asearcher'])('%s', async (name) => {
    const { dir } = await sharedTinyWorld()
    const w = openWorld(dir)
    const gw = await openGymWorld(dir)
    try {
      const qas = readQa(w.db)
      const p = engineProfile(name)
      const k = worldOracleKnowledge(w)
      const stock = await profileCheck(gw, k, qas, p, p.stock)
      const shipped = await chooseShippedLimits(gw, k, qas, p, {}, stock)
      const times = 11
      const pool = Array.from({ length: times }, () => qas).flat()
      expect(pool.length).toBeGreaterThanOrEqual(4000)
      // The walks go through the threads: a failed start would say so on stderr (and walk in this thread).
      const write = process.stderr.write.bind(process.stderr)
      let err = ''
      process.stderr.write = ((c: string | Uint8Array) => ((err += String(c)), true)) as typeof process.stderr.write
      let t
      try {
        t = await exportTuner(dir, name, pool)
      } finally {
        process.stderr.write = write
      }
      expect(err).not.toMatch(/walk threads did not start/)
      expect(t.stock).toEqual({ limits: stock.limits, solved: times * stock.solved, total: times * stock.total })
      expect(t.shipped).toEqual({ limits: shipped.limits, solved: times * shipped.solved, total: times * shipped.total })
      expect([...t.solvable].sort()).toEqual(shipped.runs.filter((r) => r.solved).map((r) => r.qaId).sort())
    } finally {
      w.close()
      await gw.close()
    }
  }, 300_000)
})
