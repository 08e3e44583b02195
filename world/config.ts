// world/config: WorldConfig (plain JSON, unknown keys rejected), its defaults and the presets tiny/small/paper.
// Each build stage reads its own section; the whole resolved config is stored in the world's manifest.
import { mergeStrict } from '../infra/config'

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
    engine: 'embedded' | 'sqlite' | 'meilisearch'
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
  }
  split: {
    bench: { simple: number; parallel: number; combo: number }
    /** Hop range the bench must cover. */
    minHops: number
    maxHops: number
  }
}

export type PresetName = 'tiny' | 'small' | 'paper'

export const DEFAULT_CONFIG: WorldConfig = {
  seed: 11,
  entities: {},
  graph: { zipfExponent: 1.0, edgesPerEntity: 4, homonymRate: 0 },
  docs: { fillerPerSection: 1, locales: ['en_US', 'en_GB', 'de', 'fr', 'es', 'it'] },
  search: { engine: 'embedded', meiliUrl: '', meiliKeyEnv: 'MEILI_MASTER_KEY' },
  verification: { queriesPerEdge: 15, minHits: 5, topK: 5 },
  qa: { target: 41000, mix: { simple: 0.6, parallel: 0.25, combo: 0.15 }, minHops: 1, maxHops: 12 },
  split: { bench: { simple: 462, parallel: 134, combo: 46 }, minHops: 1, maxHops: 12 },
}

/** Config keys whose value is an open map (any key allowed, validated elsewhere). */
export const OPEN_PATHS = ['config.entities']

export function resolveConfig(input: unknown, base: WorldConfig = DEFAULT_CONFIG): WorldConfig {
  return mergeStrict(base, input, 'config', OPEN_PATHS)
}
