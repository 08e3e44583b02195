// world/build/build: buildWorld — prepares the world folder, writes the manifest, runs every unfinished stage of the
// pipeline, computes the content hash and marks the world complete only at the very end. Resumable: finished
// stages are skipped; a killed stage reruns. Knows the stage contract, not what each stage does.
import { LOCK_FILE, lockDir } from '../../infra/lock'
import { accessSync, constants, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { WorldError } from '../../infra/errors'
import { canonicalJson, ContentHasher } from '../../infra/hash'
import { openDb, tx, type Db } from '../../infra/store'
import type { WorldConfig } from '../config'
import { WORLD_STAGES } from './stages'
import { Prehash, SEALED_STAGES } from './prehash'
import type { Stage, StageContext, WarmHandle } from '../stage'
import { SearchHandle } from '../indexing/search-handle'
import { initManifestTables, readManifest, setManifest, setStageStatus, stageStatus, WORLD_FILE } from '../store/store'

/** Version of the generator; a world folder built by another version is not resumed. */
export const GENERATOR_VERSION = 'searchgym-world/1'

export interface BuildOptions {
  config: WorldConfig
  /** Output folder (created if missing; must be empty, new, or a world folder of the same config). */
  dir: string
  quiet?: boolean
  log?: (message: string) => void
  /** The stages to run, in order (default WORLD_STAGES; the CLI adds agent's oracle check: CHECKED_WORLD_STAGES). */
  stages?: readonly Stage[]
}

export interface StageReport {
  name: string
  /** 'skipped' = already finished in an earlier run. */
  outcome: 'ran' | 'skipped'
  seconds: number
}

export interface BuildResult {
  dir: string
  dbPath: string
  hash: string
  stages: StageReport[]
  seconds: number
  /** Stages whose hash sections went to the content-hash worker thread (world/build/prehash), the sealed ones while
   *  later stages ran, the others as each was done and final; [] if none. */
  prehashed: string[]
}

/** Create or check the output folder; throws WorldError with one line on anything unusable. */
export function prepareWorldDir(dir: string): string {
  const dbPath = join(dir, WORLD_FILE)
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new WorldError('world.out_not_dir', `output ${dir} exists and is not a folder; choose a new folder for --out`)
    if (!existsSync(dbPath) && readdirSync(dir).some((f) => f !== LOCK_FILE))
      throw new WorldError('world.out_not_world', `output folder ${dir} is not empty and holds no ${WORLD_FILE}: it is not a world folder; choose a new or empty folder for --out`)
  } else {
    try {
      makeDirs(dir)
    } catch (e) {
      throw new WorldError('world.out_unwritable', `cannot create output folder ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; choose a writable --out`, { cause: e })
    }
  }
  try {
    accessSync(dir, constants.W_OK)
    if (existsSync(dbPath)) accessSync(dbPath, constants.W_OK)
  } catch (e) {
    throw new WorldError('world.out_unwritable', `output folder ${dir} is not writable (${(e as NodeJS.ErrnoException).code}); choose a writable --out`, { cause: e })
  }
  return dbPath
}

/** mkdir -p, one level at a time: Node's recursive mkdir spins forever on some pseudo file systems (/proc). */
export function makeDirs(dir: string): void {
  const missing: string[] = []
  let d = resolve(dir)
  while (!existsSync(d)) {
    missing.push(d)
    const up = dirname(d)
    if (up === d) break
    d = up
  }
  for (const m of missing.reverse()) mkdirSync(m)
}

/** Build (or finish) the world in `dir`. */
export async function buildWorld(opts: BuildOptions): Promise<BuildResult> {
  const started = performance.now()
  const stages = opts.stages ?? WORLD_STAGES
  const quiet = opts.quiet ?? process.env.SEARCHGYM_QUIET === '1'
  const log = opts.log ?? ((m: string) => (quiet ? undefined : process.stderr.write(`${m}\n`)))
  const dbPath = prepareWorldDir(opts.dir)
  const lock = lockDir(opts.dir, 'world build') // one writer per world: a second build is a one-line error
  let db: Db
  try {
    db = openDb(dbPath)
    initManifestTables(db)
  } catch (e) {
    lock.release()
    throw new WorldError('world.open', `cannot open ${dbPath} as a world file: ${(e as Error).message.split('\n')[0]}; choose a new folder for --out`, { cause: e })
  }
  try {
    claimManifest(db, opts.config, opts.dir)
    writeFileSync(join(opts.dir, 'config.json'), JSON.stringify(opts.config, null, 2) + '\n')
    const reports: StageReport[] = []
    // A stage that runs invalidates every stage after it (a re-checked pool must be re-split): once one ran, the
    // rest run too, even if an earlier build finished them.
    let ranOne = false
    // The next stage's early work (Stage.warm), started just before the stage it overlaps; released in `finally`.
    const warmed = new Map<string, WarmHandle>()
    // The content hash of the sealed stages, in a worker thread from the first later stage that runs (world/build/prehash).
    let prehash: Prehash | undefined
    let hash: string | undefined
    // The run's search index, shared by the index and verify stages; verify closes it, `finally` too if the run stopped.
    const search = new SearchHandle()
    try {
      for (const [i, stage] of stages.entries()) {
        stage.init(db)
        if (!ranOne && stageStatus(db)[stage.name] === 'done') {
          reports.push({ name: stage.name, outcome: 'skipped', seconds: 0 })
          log(`stage ${stage.name}: already done, skipped`)
          continue
        }
        const t0 = performance.now()
        ranOne = true
        const ctx: StageContext = { db, config: opts.config, dir: opts.dir, search, quiet, log }
        if (!prehash && i > 0 && !SEALED_STAGES.includes(stage.name)) prehash = await Prehash.start(dbPath, stages, stageStatus(db))
        const next = stages[i + 1]
        let ahead: StageContext['ahead']
        if (next?.warm) {
          next.init(db)
          const h = await next.warm(ctx)
          if (h) warmed.set(next.name, h)
          if (h?.accept) ahead = (items) => h.accept!(items)
        }
        setStageStatus(db, stage.name, 'running')
        await stage.run({ ...ctx, warm: warmed.get(stage.name), ahead })
        warmed.get(stage.name)?.release()
        warmed.delete(stage.name)
        setStageStatus(db, stage.name, 'done')
        prehash?.extend(stages, stageStatus(db), opts.config, db)
        const seconds = (performance.now() - t0) / 1000
        reports.push({ name: stage.name, outcome: 'ran', seconds })
        log(`stage ${stage.name}: done in ${seconds.toFixed(2)} s`)
      }
      if (prehash)
        hash = await finishPrehash(prehash, db, stages).catch((e: unknown) => {
          log(`content hash: ${e instanceof Error ? e.message : String(e)}; hashing on this thread instead`)
          return undefined
        })
    } finally {
      for (const h of warmed.values()) h.release()
      prehash?.release()
      await search.release().catch((e: unknown) => log(`search index: close failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`))
    }
    const prehashed = hash !== undefined && prehash ? prehash.stages.map((s) => s.name) : []
    hash ??= contentHash(db, stages)
    tx(db, () => {
      setManifest(db, 'content_hash', hash)
      setManifest(db, 'complete', '1')
    })
    db.pragma('wal_checkpoint(TRUNCATE)')
    return { dir: opts.dir, dbPath, hash, stages: reports, seconds: (performance.now() - started) / 1000, prehashed }
  } finally {
    db.close()
    lock.release()
  }
}

/** New folder: write the manifest. Existing world: it must have the same config and generator version. */
function claimManifest(db: Db, config: WorldConfig, dir: string): void {
  const m = readManifest(db)
  const cfg = canonicalJson(config)
  if (m.config === undefined) {
    tx(db, () => {
      setManifest(db, 'config', cfg)
      setManifest(db, 'seed', String(config.seed))
      setManifest(db, 'generator_version', GENERATOR_VERSION)
      setManifest(db, 'complete', '0')
    })
    return
  }
  if (m.generator_version !== GENERATOR_VERSION)
    throw new WorldError('world.version', `world folder ${dir} was built by ${m.generator_version}, this is ${GENERATOR_VERSION}; build into a new folder`)
  if (m.config !== cfg) {
    const old = JSON.parse(m.config) as Record<string, unknown>
    const diff = Object.keys({ ...old, ...(config as unknown as Record<string, unknown>) })
      .filter((k) => canonicalJson(old[k]) !== canonicalJson((config as unknown as Record<string, unknown>)[k]))
      .sort()
    throw new WorldError('world.config_mismatch', `world folder ${dir} was built with a different config (differs in: ${diff.join(', ')}); use the same config to resume, or a new --out folder`)
  }
}

/** contentHash with the sealed stages' sections hashed by `p` (same digest). */
async function finishPrehash(p: Prehash, db: Db, stages: readonly Stage[]): Promise<string> {
  const ran = stageStatus(db)
  const rest = stages.slice(p.stages.length).filter((s) => ran[s.name] !== undefined)
  return p.finish(rest.map((s) => ({ name: s.name, rows: (emit: (line: string) => void) => s.hashRows(db, (row) => emit(canonicalJson(row))) })))
}

/**
 * SHA-256 over every stage's canonical rows, stage by stage in the given order. Only stages this world has run
 * count: a world built without a stage (no oracle check) hashes as if the stage did not exist.
 */
export function contentHash(db: Db, stages: readonly Stage[]): string {
  const ran = stageStatus(db)
  const h = new ContentHasher()
  for (const s of stages) {
    if (ran[s.name] === undefined) continue
    h.section(s.name)
    s.hashRows(db, (row) => h.row(row))
  }
  return h.digest()
}
