// curriculum/world-pool: several built worlds served as one question pool — a world recipe (one WorldConfig, a list
// of seeds) built on demand into a cache folder with the world build API (a complete world of the same config is
// reused), and a WorldPool whose questions carry their world's name in their id ("NAME/ID") so that every question's
// env searches its own world only. With one world the ids are left as they are (single-world runs stay bit for bit).
// Knows worlds and questions; not which questions a curriculum draws nor how a policy is scored.
import { existsSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { openGymWorld, type GymWorld } from '../gym'
import { mergeStrict, readJsonFile } from '../infra/config'
import { ConfigError } from '../infra/errors'
import { canonicalJson, sha256 } from '../infra/hash'
import { CHECKED_WORLD_STAGES } from '../agent'
import { buildWorld, checkWorldDir, openWorld, presetConfig, validateWorldConfig, type Qa, type Split, type WorldConfig } from '../world'

/** One WorldConfig (a preset with overrides merged over it, unknown keys rejected) built once per seed. */
export interface WorldRecipe {
  /** World size preset (tiny, small, paper, …). */
  preset: string
  /** WorldConfig keys merged over the preset (not `seed`: the seeds are listed). */
  config?: Record<string, unknown>
  seeds: number[]
}

/** The recipe's config with `seed` set; throws a one-line ConfigError on an unknown key or a bad value. */
export function recipeConfig(r: WorldRecipe, seed: number): WorldConfig {
  if (r.config && Object.prototype.hasOwnProperty.call(r.config, 'seed')) throw new ConfigError('pool.seed', 'a world recipe lists its seeds: remove config.seed')
  const cfg = mergeStrict(presetConfig(r.preset), r.config ?? {}, 'world config', ['world config.entities'])
  if (!Number.isInteger(seed) || seed < 0) throw new ConfigError('pool.seed', `world seeds must be non-negative integers, got ${JSON.stringify(seed)}`)
  return validateWorldConfig({ ...cfg, seed })
}

/** The cache folder of one seed: preset, a short hash of the overrides, the seed (another config never collides). */
export function recipeWorldDir(cache: string, r: WorldRecipe, seed: number): string {
  const tag = sha256(canonicalJson(r.config ?? {})).slice(0, 8)
  return join(resolve(cache), `${r.preset}-${tag}-s${seed}`)
}

/** Builds every seed of the recipe that is not a complete world yet (a half-built one resumes); returns the folders. */
export async function buildRecipeWorlds(r: WorldRecipe, cache: string, log?: (line: string) => void): Promise<string[]> {
  const dirs: string[] = []
  for (const seed of r.seeds) {
    const config = recipeConfig(r, seed)
    const dir = recipeWorldDir(cache, r, seed)
    if (!worldComplete(dir)) {
      const t = performance.now()
      log?.(`world ${basename(dir)}: building (preset ${r.preset}, seed ${seed})`)
      await buildWorld({ config, dir, quiet: true, stages: CHECKED_WORLD_STAGES })
      log?.(`world ${basename(dir)}: built in ${((performance.now() - t) / 1000).toFixed(1)} s`)
    }
    dirs.push(dir)
  }
  return dirs
}

export function worldComplete(dir: string): boolean {
  if (!existsSync(join(dir, 'world.db'))) return false
  try {
    const w = openWorld(dir)
    try {
      return w.complete
    } finally {
      w.close()
    }
  } catch {
    return false
  }
}

/** A world's identity for the disjointness check: its seed and content hash. */
export function worldIdentity(dir: string): { dir: string; seed: number; hash: string } {
  const w = openWorld(dir)
  try {
    return { dir, seed: w.config.seed, hash: w.hash }
  } finally {
    w.close()
  }
}

/** Evaluation worlds must be worlds never trained on: no shared seed, no shared content hash. */
export function checkHeldOutWorlds(train: readonly string[], heldOut: readonly string[]): void {
  const t = train.map(worldIdentity)
  for (const h of heldOut.map(worldIdentity)) {
    const same = t.find((x) => x.seed === h.seed || x.hash === h.hash)
    if (same)
      throw new ConfigError('pool.seed_overlap', `held-out world ${h.dir} shares ${same.seed === h.seed ? `seed ${h.seed}` : 'its content'} with training world ${same.dir}: evaluation worlds must be built from seeds never trained on`)
  }
}

/** Pool-wide id of a question: "WORLD/ID" (the world's folder name). */
export function pooledId(world: string, id: string): string {
  return `${world}/${id}`
}

export interface PoolMember {
  name: string
  dir: string
  gym: GymWorld
}

/** Several opened worlds; questions keyed by pooled id, each routed back to its own world. */
export class WorldPool {
  private readonly byQa = new Map<string, PoolMember>()
  private readonly lists = new Map<string, Qa[]>()

  private constructor(readonly members: PoolMember[]) {}

  static async open(dirs: readonly string[]): Promise<WorldPool> {
    if (dirs.length === 0) throw new ConfigError('pool.empty', 'give at least one world folder')
    const names = dirs.map((d) => basename(resolve(d)))
    const dup = names.find((n, i) => names.indexOf(n) !== i)
    if (dup) throw new ConfigError('pool.names', `two worlds of the pool are named '${dup}': a pool names each world by its folder name, so give folders with distinct names`)
    // Every world's rows against its hash before any is used (train, train sft, bench funnel, experiments; once per
    // process and file state): a row edited in place is a one-line refusal, not a run on edited questions.
    for (const d of dirs) checkWorldDir(d, CHECKED_WORLD_STAGES)
    const members: PoolMember[] = []
    try {
      for (let i = 0; i < dirs.length; i++) members.push({ name: names[i], dir: resolve(dirs[i]), gym: await openGymWorld(dirs[i]) })
    } catch (e) {
      for (const m of members) await m.gym.close()
      throw e
    }
    return new WorldPool(members)
  }

  get single(): boolean {
    return this.members.length === 1
  }

  /** The split's questions of every world in pool order; ids pooled unless the pool holds one world. */
  listQa(split: Split): Qa[] {
    const hit = this.lists.get(split)
    if (hit) return hit
    const out: Qa[] = []
    for (const m of this.members)
      for (const q of m.gym.listQa(split)) {
        const qa = this.single ? q : { ...q, id: pooledId(m.name, q.id) }
        this.byQa.set(qa.id, m)
        out.push(qa)
      }
    this.lists.set(split, out)
    return out
  }

  /** The member world a (pool) question belongs to. */
  memberOf(qa: Qa | string): PoolMember {
    const id = typeof qa === 'string' ? qa : qa.id
    if (this.single) return this.members[0]
    const m = this.byQa.get(id) ?? this.members.find((x) => id.startsWith(x.name + '/'))
    if (!m) throw new ConfigError('pool.unknown_qa', `question '${id}' belongs to no world of the pool (${this.members.map((x) => x.name).join(', ')})`)
    return m
  }

  /** The question's id inside its own world. */
  localId(qa: Qa | string): string {
    const id = typeof qa === 'string' ? qa : qa.id
    return this.single ? id : id.slice(this.memberOf(id).name.length + 1)
  }

  worldFor = (qa: Qa): GymWorld => this.memberOf(qa).gym

  async close(): Promise<void> {
    for (const m of this.members) await m.gym.close()
  }
}

/** A `--worlds FILE` value: a JSON list of world folders, or a recipe {preset, config?, seeds, cache} whose missing
 *  worlds are built into `cache` (relative paths are relative to the file's folder). */
export async function worldsFromFile(file: string, log?: (line: string) => void): Promise<string[]> {
  const raw = readJsonFile(file, '--worlds file')
  const base = dirname(resolve(file))
  if (Array.isArray(raw)) {
    if (raw.length === 0 || !raw.every((x) => typeof x === 'string')) throw new ConfigError('pool.file', `--worlds ${file} must list world folders (a JSON array of strings) or be a recipe {preset, seeds, cache}`)
    return raw.map((d) => resolve(base, d as string))
  }
  const r = mergeStrict({ preset: '', config: {}, seeds: [] as number[], cache: '' }, raw, `--worlds ${file}`, [`--worlds ${file}.config`])
  if (!r.preset || r.seeds.length === 0 || !r.cache) throw new ConfigError('pool.file', `--worlds ${file}: a recipe needs preset, seeds (a non-empty list) and cache (a folder)`)
  return buildRecipeWorlds({ preset: r.preset, config: r.config, seeds: r.seeds }, resolve(base, r.cache), log)
}

/** The worlds of a command: repeated --world folders and/or a --worlds file, in that order. */
export async function worldArgs(world: unknown, worldsFile: unknown, log?: (line: string) => void): Promise<string[]> {
  const dirs = world === undefined ? [] : (Array.isArray(world) ? world : [world]).map(String)
  if (worldsFile !== undefined) {
    if (Array.isArray(worldsFile)) throw new ConfigError('pool.file', 'give --worlds once')
    dirs.push(...(await worldsFromFile(String(worldsFile), log)))
  }
  if (dirs.length === 0) throw new ConfigError('pool.empty', 'give --world DIR (repeat it for several worlds) or --worlds FILE')
  return dirs
}
