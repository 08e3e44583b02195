// world/config: WorldConfig (plain JSON, unknown keys rejected), its defaults and the presets tiny/small/paper and
// paper-x10/paper-x100 (the paper's entity mix ×10 / ×100 for scale studies).
// Each build stage reads its own section; the whole resolved config is stored in the world's manifest.
import { showValue } from '../infra/show-value'
import { mergeStrict, readJsonFile } from '../infra/config'
import { ConfigError } from '../infra/errors'
import { setLayer } from '../infra/field-args'
import { checkField, getPath } from '../infra/fields'
import { DEFAULT_BLUR, DEFAULT_CONFIG } from './config-defaults'
import { WORLD_FIELDS } from './config-fields'
import { validateWriteConfig, type WriteConfig } from './write/write-config'
import { isEngineName, needsEmbedder, type EngineName } from './search/engine-names'

export interface WorldConfig {
  /** Seed of every random draw of the build. */
  seed: number
  /** Entity counts per entity type name (an open map validated against the schema). */
  entities: Record<string, number>
  graph: {
    /** Exponent of the Zipf-like preference for hubs when attaching edges. */
    zipfExponent: number
    /** Average number of relation edges per entity (before constraints). */
    edgesPerEntity: number
    /** Fraction of entities that share a name with another entity of the same type. */
    homonymRate: number
  }
  docs: {
    /** Neutral filler sentences per section (0 = none). */
    fillerPerSection: number
    /** Seeds of faker locales used for names. */
    locales: string[]
  }
  search: {
    /**
     * 'embedded' (default: in-memory BM25F rebuilt from the world's docs, no server), 'sqlite' (FTS5 BM25) or
     * 'meilisearch' (the official client; a local server is started when meiliUrl is empty).
     */
    engine: 'embedded' | 'sqlite' | 'meilisearch' | 'dense' | 'hybrid'
    /** Dense/hybrid: the embedder model directory (model.onnx + tokenizer.json); absent for the lexical engines. */
    embedder?: string
    /** URL of an external Meilisearch; empty = the project starts its own local server. */
    meiliUrl: string
    /** Name of the environment variable holding the Meilisearch API key. */
    meiliKeyEnv: string
  }
  verification: {
    queriesPerEdge: number
    minHits: number
    topK: number
  }
  qa: {
    /** Target number of QA in the pool (train + bench). */
    target: number
    /** Mix by type (weights). */
    mix: { simple: number; parallel: number; combo: number }
    /** Hop range of Simple chains. */
    minHops: number
    maxHops: number
    /** Relative weight of each hop count 1..12 (index 0 = 1 hop): the hop histogram of the pool. */
    hopWeights: number[]
    /** Probability that a chain question asks for an attribute of its end instead of its name. */
    attrTerminalRate: number
    /** Parallel operators (weights). */
    parallelOps: { compare: number; sum: number; difference: number; same: number }
    /** Combo kinds (weights): a comparison's winner starts a chain / a chain's value selects an entity. */
    comboKinds: { compareChain: number; param: number }
    /** Extra fraction drawn so that train + bench still reach `target` after the split drops conflicts. */
    headroom: number
    /**
     * Blurred starts (world/qa/blur-pool): questions whose start entity is described by cues only it satisfies instead of
     * named. Off is the key's absence (undefined in the defaults, dropped by canonical JSON): worlds built without it keep
     * their manifest and content hash. Given keys are merged over DEFAULT_BLUR (unknown keys rejected).
     */
    blur?: BlurConfig
  }
  split: {
    bench: { simple: number; parallel: number; combo: number }
    /** Hop range the bench must cover. */
    minHops: number
    maxHops: number
    /** Bench/training disjointness criteria (strictness); a training item conflicting on any is dropped. */
    disjoint?: { question: boolean; path: boolean; startEntity: boolean }
    /**
     * Fact-disjoint training: every training question whose path shares an edge (a fact) with a bench question is
     * excluded too (the bench itself is unchanged). Off by default. Off is the key's absence (undefined in the
     * defaults: known to the strict merge, dropped by canonical JSON), so worlds built before the option keep their
     * manifest, config.json and content hash.
     */
    factDisjoint?: boolean
    /** The bench is drawn from questions with a blurred start only (config.qa.blur on): a hard split such as
     *  searchgymbench-hard-v1. Off is the key's absence, as factDisjoint. */
    blurredOnly?: boolean
  }
  /** The optional LLM writer (world/write): rewrites each template document through an OpenAI-compatible endpoint. */
  write: WriteConfig
}

export interface BlurConfig {
  /** Probability that a question's start is blurred (one draw per question from Rng.derive(seed, 'qa-blur')). */
  rate: number
  /** Cues per description besides the entity's type (the generator adds cues until exactly one entity fits). */
  minCues: number
  maxCues: number
  /** Which entity of a question is blurred: 'start' (a chain's named start). 'intermediate' is not built yet. */
  positions: ('start' | 'intermediate')[]
  /** Resolvability, the edge rule's shape: this many queries built from the cues alone; the description is kept iff at
   *  least minHits of them put the entity's page in the top-K (config.verification.topK) of the world's engine. */
  queries: number
  minHits: number
  /** 'direct': cues of any kind, resolved when the cue queries find the entity's page itself. 'two-step': one neighbour
   *  shared by 2–6 entities of the type plus values and year ranges; resolved when the cue queries find the entity's
   *  page or that neighbour's page and the neighbour's page names the entity (a reader lists the candidates there, then
   *  opens each: WebSailor's search-then-verify). */
  style: 'direct' | 'two-step'
}

export type WorldPresetName = 'tiny' | 'small' | 'paper' | 'paper-hard' | 'paper-x10' | 'paper-x100'
export const WORLD_PRESET_NAMES: readonly WorldPresetName[] = ['tiny', 'small', 'paper', 'paper-hard', 'paper-x10', 'paper-x100']

export { DEFAULT_BLUR, DEFAULT_CONFIG }

/** Config keys whose value is an open map (any key allowed, validated elsewhere). */
export const OPEN_PATHS = ['config.entities']

export function resolveConfig(input: unknown, base: WorldConfig = DEFAULT_CONFIG): WorldConfig {
  return validateWorldConfig(mergeStrict(base, input, 'config', OPEN_PATHS))
}

const PRESET_ENTITIES: Record<'tiny' | 'small' | 'paper', Record<string, number>> = {
  tiny: { Country: 3, City: 14, Person: 35, Company: 8, University: 4, Book: 8, Film: 7, Award: 3, SportsTeam: 4, Band: 3, Album: 5, Stadium: 4, Museum: 3 },
  small: { Country: 10, City: 80, Person: 210, Company: 55, University: 24, Book: 62, Film: 50, Award: 14, SportsTeam: 20, Band: 17, Album: 33, Stadium: 18, Museum: 17 },
  paper: { Country: 60, City: 470, Person: 1260, Company: 320, University: 140, Book: 370, Film: 290, Award: 80, SportsTeam: 115, Band: 100, Album: 195, Stadium: 105, Museum: 95 },
}

export const WORLD_PRESETS: Record<WorldPresetName, WorldConfig> = {
  tiny: {
    ...DEFAULT_CONFIG,
    entities: PRESET_ENTITIES.tiny,
    qa: { ...DEFAULT_CONFIG.qa, target: 400, maxHops: 6 },
    split: { ...DEFAULT_CONFIG.split, bench: { simple: 20, parallel: 6, combo: 3 }, minHops: 1, maxHops: 6 },
  },
  small: {
    ...DEFAULT_CONFIG,
    entities: PRESET_ENTITIES.small,
    qa: { ...DEFAULT_CONFIG.qa, target: 4000 },
    split: { ...DEFAULT_CONFIG.split, bench: { simple: 120, parallel: 35, combo: 12 }, minHops: 1, maxHops: 12 },
  },
  paper: { ...DEFAULT_CONFIG, entities: PRESET_ENTITIES.paper, graph: { ...DEFAULT_CONFIG.graph, edgesPerEntity: 4.3 } },
  // searchgymbench-hard-v1's world: the paper world with half the starts drawn for two-step blurring (qa.blur), and a bench of
  // SearchGymBench's sizes (462/134/46, hops 1–12) drawn from blurred questions only, held out fact-disjoint.
  'paper-hard': {
    ...DEFAULT_CONFIG,
    entities: PRESET_ENTITIES.paper,
    graph: { ...DEFAULT_CONFIG.graph, edgesPerEntity: 4.3 },
    qa: { ...DEFAULT_CONFIG.qa, blur: { ...DEFAULT_BLUR, rate: 0.5, style: 'two-step' } },
    split: { ...DEFAULT_CONFIG.split, factDisjoint: true, blurredOnly: true },
  },
  // Scale presets: the paper's entity mix and graph ×10 / ×100. The QA pool grows with the world but less than it
  // (100,000 and 250,000 questions: the oracle check of every question is the build's biggest per-question cost);
  // the bench stays SearchGymBench's 462/134/46 over hops 1–12, drawn from questions the check solved.
  'paper-x10': { ...DEFAULT_CONFIG, entities: scaled(PRESET_ENTITIES.paper, 10), graph: { ...DEFAULT_CONFIG.graph, edgesPerEntity: 4.3 }, qa: { ...DEFAULT_CONFIG.qa, target: 100_000 } },
  'paper-x100': { ...DEFAULT_CONFIG, entities: scaled(PRESET_ENTITIES.paper, 100), graph: { ...DEFAULT_CONFIG.graph, edgesPerEntity: 4.3 }, qa: { ...DEFAULT_CONFIG.qa, target: 250_000 } },
}

function scaled(entities: Record<string, number>, k: number): Record<string, number> {
  return Object.fromEntries(Object.entries(entities).map(([t, n]) => [t, n * k]))
}

export function isPresetName(s: string): s is WorldPresetName {
  return (WORLD_PRESET_NAMES as readonly string[]).includes(s)
}

export function presetConfig(name: string): WorldConfig {
  if (!isPresetName(name)) throw new ConfigError('config.preset', `unknown preset '${name}' (choose ${WORLD_PRESET_NAMES.join(', ')})`)
  return structuredClone(WORLD_PRESETS[name])
}

/**
 * The resolved config of a build: a preset (default paper), a JSON file merged over it (unknown keys rejected),
 * then an explicit seed. Throws ConfigError with a one-line message on any bad input.
 */
/** `set`: `--set KEY=VALUE` entries over the preset and the file (each typed by the key's value there). */
export function loadWorldConfig(opts: { preset?: string; configFile?: string; seed?: unknown; search?: string; meiliUrl?: string; embedder?: string; set?: readonly string[] }): WorldConfig {
  const base = presetConfig(opts.preset ?? 'paper')
  const input = opts.configFile !== undefined ? readJsonFile(opts.configFile) : undefined
  let cfg = mergeStrict(base, input, 'config', OPEN_PATHS)
  if (opts.set !== undefined && opts.set.length > 0) cfg = mergeStrict(cfg, setLayer(cfg, opts.set), 'config', OPEN_PATHS)
  if (opts.seed !== undefined) {
    if (typeof opts.seed !== 'number' || !Number.isSafeInteger(opts.seed) || opts.seed < 0)
      throw new ConfigError('config.seed', `--seed must be an integer in [0, ${Number.MAX_SAFE_INTEGER}], got ${showValue(opts.seed)}`)
    cfg.seed = opts.seed
  }
  if (opts.search !== undefined) cfg.search.engine = opts.search as WorldConfig['search']['engine'] // validated below
  if (opts.meiliUrl !== undefined) {
    if (cfg.search.engine !== 'meilisearch')
      throw new ConfigError('config.meili_url', `--meili-url needs the meilisearch engine (add --search meilisearch)`)
    cfg.search.meiliUrl = opts.meiliUrl
  }
  if (opts.embedder !== undefined) cfg.search.embedder = opts.embedder
  if (isEngineName(cfg.search.engine) && needsEmbedder(cfg.search.engine) !== (cfg.search.embedder !== undefined))
    throw new ConfigError(
      'config.embedder',
      needsEmbedder(cfg.search.engine as EngineName)
        ? `--search ${cfg.search.engine} needs --embedder DIR (a sentence-embedding model directory: model.onnx + tokenizer.json)`
        : `--embedder needs the dense or hybrid engine (add --search dense or --search hybrid)`,
    )
  return validateWorldConfig(cfg)
}

/** Each key checked against its field (world/config-fields: type, bounds, choices, its own check), then the checks
 *  between keys. Off is a key's absence (qa.blur, split.factDisjoint, split.blurredOnly false or absent): the stored
 *  config — and so a world built before the option, its manifest and hash — is unchanged. Returns the config. */
export function validateWorldConfig(cfg: WorldConfig): WorldConfig {
  validateBlur(cfg)
  for (const f of WORLD_FIELDS) checkField(f, getPath(cfg, f.key), `config.${f.key}`)
  const v = cfg.verification
  if (v.minHits > v.queriesPerEdge)
    throw new ConfigError('config.range', `config.verification.minHits (${v.minHits}) cannot exceed queriesPerEdge (${v.queriesPerEdge})`)
  validateWriteConfig(cfg.write)
  if (cfg.split.factDisjoint === false) cfg.split.factDisjoint = undefined
  if (cfg.split.blurredOnly === false) cfg.split.blurredOnly = undefined
  if (cfg.split.blurredOnly && cfg.qa.blur === undefined) throw new ConfigError('config.range', 'config.split.blurredOnly needs config.qa.blur (no question has a blurred start without it)')
  return cfg
}

/** qa.blur: false or absent is off (the key dropped, hashes unchanged); an object is merged over DEFAULT_BLUR. */
function validateBlur(cfg: WorldConfig): void {
  const raw: unknown = cfg.qa.blur
  if (raw === undefined || raw === false) {
    cfg.qa.blur = undefined
    return
  }
  const b = mergeStrict(DEFAULT_BLUR, raw === true ? {} : raw, 'config.qa.blur')
  if (!(b.rate >= 0 && b.rate <= 1)) throw new ConfigError('config.range', `config.qa.blur.rate must be between 0 and 1, got ${showValue(b.rate)}`)
  for (const k of ['minCues', 'maxCues', 'queries', 'minHits'] as const)
    if (!Number.isInteger(b[k]) || b[k] < 1) throw new ConfigError('config.range', `config.qa.blur.${k} must be a positive integer, got ${showValue(b[k])}`)
  if (b.maxCues < b.minCues) throw new ConfigError('config.range', `config.qa.blur.maxCues (${b.maxCues}) must be >= minCues (${b.minCues})`)
  if (b.minHits > b.queries) throw new ConfigError('config.range', `config.qa.blur.minHits (${b.minHits}) cannot exceed queries (${b.queries})`)
  if (b.positions.length === 0 || b.positions.some((p) => p !== 'start' && p !== 'intermediate'))
    throw new ConfigError('config.range', `config.qa.blur.positions must list 'start' (and 'intermediate'), got ${showValue(b.positions)}`)
  if (b.style !== 'direct' && b.style !== 'two-step') throw new ConfigError('config.range', `config.qa.blur.style must be 'direct' or 'two-step', got ${showValue(b.style)}`)
  if (b.positions.includes('intermediate'))
    throw new ConfigError('config.unsupported', `config.qa.blur.positions 'intermediate' is not built yet: blur the start only (positions: ["start"])`)
  cfg.qa.blur = b
}
