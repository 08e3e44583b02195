// bench/canonical: the named, versioned benchmarks `bench run --bench NAME` scores — each a world preset and seed
// pinned by its content hash, so that results from different labs are comparable by construction. Finds the world
// (a given folder, else worlds/NAME), builds it there with the pinned preset and seed when it is missing or
// unfinished, and refuses any world whose content hash is not the pinned one. Knows nothing of policies or scoring.
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { CHECKED_WORLD_STAGES } from '../agent'
import { BenchError } from '../infra/errors'
import { buildWorld, presetConfig, type PresetName } from '../world'

export interface CanonicalBench {
  name: string
  version: number
  preset: PresetName
  seed: number
  /** The content hash of the world `world build --preset PRESET --seed SEED` makes (oracle check included). */
  hash: string
  describe: string
}

export const CANONICAL_BENCHES: Record<string, CanonicalBench> = {
  'searchgymbench-v1': {
    name: 'searchgymbench-v1',
    version: 1,
    preset: 'paper',
    seed: 11,
    hash: '9572b13550559a11cfc8ba5e06f7ae4b808b0f8b190415894289374dd461d41d',
    describe: "SearchGymBench as in the paper: the paper preset's held-out bench split (seed 11)",
  },
  'searchgymbench-tiny-v1': {
    name: 'searchgymbench-tiny-v1',
    version: 1,
    preset: 'tiny',
    seed: 11,
    hash: 'e2aa67711510be347b67493a5a5022d3315471d2209400a22dd4f00ed3ab3c5a',
    describe: 'the same protocol on the tiny preset (seed 11): a smoke test in seconds, not a result',
  },
}

export function canonicalBench(name: string): CanonicalBench {
  const b = CANONICAL_BENCHES[name]
  if (!b) throw new BenchError('bench.args', `--bench ${name} is not a known benchmark; known: ${Object.keys(CANONICAL_BENCHES).join(', ')}`)
  return b
}

/** The command that builds a benchmark's world by hand. */
export const buildCommand = (b: CanonicalBench, dir: string) => `searchgym world build --preset ${b.preset} --seed ${b.seed} --out ${dir}`

/** The world folder of benchmark `b`: `dir` if given (used as it is: its hash is checked, never rebuilt), else
 *  worlds/NAME under `cwd`, built there with the pinned preset and seed — or finished, or found done (a finished
 *  world's stages are skipped in a second). The caller checks the opened world's hash (checkHash). */
export async function canonicalWorldDir(b: CanonicalBench, dir: string | undefined, opts: { cwd?: string; quiet?: boolean; log?: (line: string) => void } = {}): Promise<string> {
  if (dir !== undefined) {
    const given = resolve(opts.cwd ?? process.cwd(), dir)
    if (!existsSync(join(given, 'world.db'))) throw new BenchError('bench.canonical', `${given} holds no world; leave out the world argument to use worlds/${b.name}, or build it: ${buildCommand(b, given)}`)
    return given
  }
  const out = resolve(opts.cwd ?? process.cwd(), 'worlds', b.name)
  if (!existsSync(join(out, 'world.db'))) opts.log?.(`bench: building the ${b.name} world (preset ${b.preset}, seed ${b.seed}) into ${out}, once${b.preset === 'paper' ? ' (~30 s on an idle 2-core machine)' : ''}`)
  await buildWorld({ config: { ...presetConfig(b.preset), seed: b.seed }, dir: out, quiet: opts.quiet ?? true, stages: CHECKED_WORLD_STAGES })
  return out
}

/** Refuse a world that is not the benchmark's: its content hash must be the pinned one. */
export function checkHash(b: CanonicalBench, dir: string, hash: string): void {
  if (!/^[0-9a-f]{64}$/.test(b.hash)) throw new BenchError('bench.canonical', `${b.name}'s world hash is not pinned in this build (bench/canonical.ts); its world in ${dir} has ${hash}`)
  if (hash !== b.hash)
    throw new BenchError(
      'bench.canonical',
      `${dir} has content hash ${hash.slice(0, 12)}…, not ${b.name}'s pinned ${b.hash.slice(0, 12)}…: scores on it would not be ${b.name}; rebuild it (${buildCommand(b, '<new folder>')}) or leave out the world argument`,
    )
}
