// world/cli/export: `searchgym world export DIR --format F --out DIR2` — jsonl: entities, edges, docs (with facts), the
// manifest and the QA as JSON Lines; parquet: the QA; a registered engine's name (search-r1 | verl | asearcher, …:
// world/qa/engines/registry): the QA as that trainer reads it.
import { existsSync, writeFileSync, createWriteStream } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { once } from 'node:events'
import { ConfigError, WorldError } from '../../infra/errors'
import { handler, renamedFlags, type Command } from '../../infra/cli-util'
import { makeDirs } from '../build/build'
import { checkWorldDir } from '../build/content-check'
import type { Stage } from '../stage'
import { openWorld } from '../store/open'
import { iterateDocs } from '../store/store'
import { exportQa, qaExportFormats } from '../qa/export'
import { hasQaTable } from '../qa/store'
import { RETRIEVE_UNITS, type RetrieveUnit } from '../search/retrieve-units'
import type { ExportTuner } from '../qa/engines/profile'
import { engineProfileNames, engineProfiles, isEngineProfile, orList } from '../qa/engines/registry'
import type { ExportStager } from '../qa/export-stages'
import type { Qa } from '../types'
import { exportOpenEnv } from './export-openenv'

async function writeLines(path: string, rows: Iterable<unknown>): Promise<number> {
  const s = createWriteStream(path)
  let n = 0
  for (const r of rows) {
    if (!s.write(JSON.stringify(r) + '\n')) await once(s, 'drain')
    n++
  }
  s.end()
  await once(s, 'finish')
  return n
}

export async function exportWorldJsonl(dir: string, outDir: string): Promise<Record<string, number>> {
  const w = openWorld(dir)
  try {
    try {
      makeDirs(outDir)
    } catch (e) {
      throw new WorldError('world.export_out', `cannot create export folder ${outDir}: ${(e as NodeJS.ErrnoException).code}`, { cause: e })
    }
    writeFileSync(join(outDir, 'manifest.json'), JSON.stringify({ ...w.manifest, config: w.config }, null, 2) + '\n')
    return {
      entities: await writeLines(join(outDir, 'entities.jsonl'), w.entities()),
      edges: await writeLines(join(outDir, 'edges.jsonl'), w.edges()),
      docs: await writeLines(join(outDir, 'docs.jsonl'), iterateDocs(w.db)),
    }
  } finally {
    w.close()
  }
}

/** `world export`; `tuner` (the root CLI passes agent's) runs the oracle through the engine's limits for the
 * engine formats, so the launch settings written make the exported questions solvable. */
/** Most steps a curriculum phase may be given (a typo such as 1e15 is refused, never written into a launch script). */
export const MAX_STAGE1_STEPS = 10_000_000

/** What an export folder must not be: a world's folder, an experiment's or a run's (or a folder inside one). */
export function refuseForeignExportOut(out: string): void {
  const marks: [string, string][] = [['world.db', 'a world'], ['experiment.json', 'an experiment'], ['.searchgym.lock', 'a folder another command is writing']]
  for (let d = resolve(out); ; d = dirname(d)) {
    for (const [f, what] of marks)
      if (existsSync(join(d, f))) throw new ConfigError('export.out', `--out ${out} is ${d === resolve(out) ? '' : `inside ${d}, `}${what}'s folder (it holds ${f}); export into a folder of its own`)
    if (existsSync(join(d, 'config.json')) && (existsSync(join(d, 'trajectories.jsonl')) || existsSync(join(d, 'metrics.jsonl'))))
      throw new ConfigError('export.out', `--out ${out} is ${d === resolve(out) ? '' : `inside ${d}, `}a run folder; export into a folder of its own`)
    if (dirname(d) === d) return
  }
}

export const exportCommandWith = (tuner?: ExportTuner, stager?: ExportStager, stages?: readonly Stage[]): Command => ({
  command: 'export <dir>',
  describe: `export a finished world: JSON Lines (entities, edges, docs with facts, QA), Parquet (QA), or QA as ${orList(engineProfiles().map((p) => p.title))} read it`,
  builder: (y) => {
    const engines = engineProfileNames().join(' | ')
    return renamedFlags(y, { unit: 'retrieve-unit' })
      .positional('dir', { type: 'string', demandOption: true, describe: 'world folder (written by world build --out)' })
      .option('format', {
        type: 'string',
        default: 'jsonl',
        describe: `jsonl (world + QA), parquet (QA), ${engines} (QA as that trainer reads it, with its tool config / launch snippet), openenv (the world as an OpenEnv environment folder)`,
      })
      .option('out', { type: 'string', demandOption: true, describe: 'output folder' })
      .option('curriculum', {
        type: 'string',
        describe: `${engines}: also write one data file per stage of this curriculum preset (e.g. two-stage) and launch-<format>-<preset>.sh chaining the phases`,
      })
      .option('stage1-steps', { type: 'number', describe: `with --curriculum: training steps of each phase but the last (the preset's switch; default 100, at most ${MAX_STAGE1_STEPS})` })
      .option('retrieve-unit', {
        choices: [...RETRIEVE_UNITS],
        default: 'page',
        describe: `${engines}: what /retrieve serves the trainer (as gym serve --retrieve-unit); the oracle check runs through that unit`,
      })
      .example('searchgym world export worlds/paper --out exports/paper', 'entities, edges, docs and QA as JSON Lines')
      .example('searchgym world export worlds/paper --format verl --out exports/verl', 'QA as verl reads it, with its tool config and launch script')
      .example('searchgym world export worlds/paper --format openenv --out exports/search_gym', 'an OpenEnv environment folder: openenv.yaml, pyproject.toml, server/app.py (gym serve), the client, a copy of the world')
  },
  handler: handler(async (raw: object) => {
    const a = raw as { dir: string; format: string; out: string; retrieveUnit: RetrieveUnit; curriculum?: string; stage1Steps?: number }
    // Every flag and the --out folder are checked before anything is written.
    if (a.format !== 'openenv' && !qaExportFormats().includes(a.format))
      throw new ConfigError('export.format', `unknown export format '${a.format}' (supported: ${[...qaExportFormats(), 'openenv'].join(', ')})`)
    let curriculum
    if (a.stage1Steps !== undefined && a.curriculum === undefined) throw new ConfigError('export.curriculum', '--stage1-steps sets the phases of --curriculum: give --curriculum too, or drop it')
    if (a.curriculum !== undefined) {
      if (!isEngineProfile(a.format)) throw new ConfigError('export.curriculum', `--curriculum writes stage files for an outside engine (--format ${engineProfileNames().join(' | ')}), not for --format ${a.format}`)
      if (!stager) throw new ConfigError('export.curriculum', '--curriculum needs the curriculum presets (run through the searchgym CLI)')
      const steps = a.stage1Steps ?? 100
      if (!Number.isInteger(steps) || steps < 1 || steps > MAX_STAGE1_STEPS) throw new ConfigError('export.curriculum', `--stage1-steps must be an integer in [1, ${MAX_STAGE1_STEPS}], got ${String(steps)}`)
      curriculum = stager(a.curriculum, steps)
    }
    refuseForeignExportOut(a.out)
    // The world's rows against its hash: an export is what a trainer elsewhere learns from.
    if (stages) checkWorldDir(a.dir, stages)
    if (a.format === 'openenv') {
      const files = await exportOpenEnv(a.dir, a.out)
      process.stdout.write(`exported to ${a.out}: an OpenEnv environment (${Object.keys(files).join(', ')}, world/world.db); serve it with: SEARCHGYM=searchgym python3 ${join(a.out, 'server', 'app.py')} --port 8000\n`)
      return
    }
    const n = a.format === 'jsonl' ? await exportWorldJsonl(a.dir, a.out) : {}
    const w = openWorld(a.dir)
    try {
      const tune = isEngineProfile(a.format) && tuner ? (qas: Qa[]) => tuner(a.dir, a.format, qas, a.retrieveUnit) : undefined
      if (a.format !== 'jsonl' || hasQaTable(w.db))
        Object.assign(n, await exportQa(w.db, a.out, a.format, { world: basename(resolve(a.dir)), hash: w.manifest.content_hash ?? '' }, tune, curriculum))
    } finally {
      w.close()
    }
    // Data files with their row counts; a config file or launch script by its name alone (it has no rows).
    const dataExts = new Set(['jsonl', 'parquet', ...engineProfiles().map((p) => p.dataExt)])
    const isConfig = (f: string) => /\.\w+$/.test(f) && !dataExts.has(f.slice(f.lastIndexOf('.') + 1))
    process.stdout.write(`exported to ${a.out}: ${Object.entries(n).map(([k, v]) => (isConfig(k) ? k : `${v} ${k}`)).join(', ')}\n`)
  }),
})

export const exportCommand = exportCommandWith()
