// bench/canonical: the named, versioned benchmarks `bench run --bench NAME` scores — each a world preset and seed
// pinned by its content hash, and the env budgets every run of it plays under, pinned beside the hash: ones under which
// the oracle solves every question, so that results from different labs are comparable by construction and capped by
// nothing but the policy. Finds the world (a given folder, else worlds/NAME), builds it there with the pinned preset and
// seed when it is missing or unfinished, and refuses any world whose content hash is not the pinned one. Knows nothing
// of policies or scoring.
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { CHECKED_WORLD_STAGES } from '../agent'
import { BenchError } from '../infra/errors'
import { buildWorld, presetConfig, type WorldPresetName } from '../world'
import type { Budgets } from '../gym'

export interface CanonicalBench {
  name: string
  version: number
  preset: WorldPresetName
  seed: number
  /** The content hash of the world `world build --preset PRESET --seed SEED` makes (oracle check included). */
  hash: string
  /** The env budgets of every run of this benchmark (any policy): the oracle solves every question within them. */
  budgets: Budgets
  /** What the oracle needs on the pinned world, measured (`bench run --bench NAME --policy oracle` prints it in its
   *  ceiling line): its most turns, longest response and largest context over the bench split. `budgets` covers it. */
  oracleNeed: Budgets
  describe: string
}

/** SearchGymBench's budgets: 32 turns of one tool call each, the gym's 1,024 tokens a response and 32,768 of context.
 *  The oracle's walk needs two turns a page (search, then access of a URL the search returned) and one to answer:
 *  2·(hops + starting pages) + 1, plus a turn per missed query or further page of a long document — 5 turns at one hop,
 *  27–30 at twelve on the searchgymbench-v1 world. The paper's 16 turns fit that walk only up to 6 hops (2·6 + 3 = 15)
 *  and capped the oracle at 47 % of the bench (302 of 642). More turns, not more calls a turn: each step of the walk
 *  needs what the one before returned (a URL from a search, a name from a page), so several calls a turn cannot
 *  shorten a chain. 32 is the measured 30 with two turns to spare (one missed search and its retry), twice the paper's
 *  16. Context and response budgets stay the gym's: the oracle needs at most 14,617 and 46 tokens. */
export const SEARCHGYMBENCH_BUDGETS: Budgets = Object.freeze({ maxTurns: 32, maxResponseTokens: 1024, maxContextTokens: 32768 })

/** searchgymbench-hard-v1's budgets: SearchGymBench's, with the turns the blurred starts add — the oracle's walk needs up
 *  to 38 turns on its world (the neighbour's page, then a search and an access per candidate it lists), so 40: the
 *  measured 38 with two to spare, as v1. */
export const SEARCHGYMBENCH_HARD_BUDGETS: Budgets = Object.freeze({ maxTurns: 40, maxResponseTokens: 1024, maxContextTokens: 32768 })

export const CANONICAL_BENCHES: Record<string, CanonicalBench> = {
  'searchgymbench-v1': {
    name: 'searchgymbench-v1',
    version: 1,
    preset: 'paper',
    seed: 11,
    hash: '9572b13550559a11cfc8ba5e06f7ae4b808b0f8b190415894289374dd461d41d',
    budgets: SEARCHGYMBENCH_BUDGETS,
    oracleNeed: { maxTurns: 30, maxResponseTokens: 46, maxContextTokens: 14617 },
    describe: "SearchGymBench as in the paper: the paper preset's held-out bench split (seed 11)",
  },
  'searchgymbench-tiny-v1': {
    name: 'searchgymbench-tiny-v1',
    version: 1,
    preset: 'tiny',
    seed: 11,
    hash: 'e2aa67711510be347b67493a5a5022d3315471d2209400a22dd4f00ed3ab3c5a',
    budgets: SEARCHGYMBENCH_BUDGETS,
    oracleNeed: { maxTurns: 17, maxResponseTokens: 37, maxContextTokens: 6046 },
    describe: 'the same protocol on the tiny preset (seed 11): a smoke test in seconds, not a result',
  },
  'searchgymbench-hard-v1': {
    name: 'searchgymbench-hard-v1',
    version: 1,
    preset: 'paper-hard',
    seed: 11,
    hash: '7bd9c44e697468a7048f3d5d6d71f8e7740a403a9ee426e045768663c75b613a',
    budgets: SEARCHGYMBENCH_HARD_BUDGETS,
    oracleNeed: { maxTurns: 38, maxResponseTokens: 48, maxContextTokens: 17425 },
    describe:
      'the hard split: the paper world with blurred starts (qa.blur two-step, rate 0.5; each description unique on the graph and resolved by search), a bench of 642 blurred questions (462 simple, 134 parallel, 46 combo; hops 1–12) held out fact-disjoint (seed 11)',
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
