// world/config-defaults: the values of WorldConfig before a preset, a file or --set (DEFAULT_CONFIG) and of a blurred
// start's section (DEFAULT_BLUR). Plain data: world/config-fields says what each key is and bounds it, world/config
// merges and resolves. Its own file so that both read it without importing each other.
import type { BlurConfig, WorldConfig } from './config'
import { DEFAULT_WRITE_CONFIG } from './write/write-config'

export const DEFAULT_BLUR: BlurConfig = { rate: 0.3, minCues: 2, maxCues: 3, positions: ['start'], queries: 6, minHits: 2, style: 'direct' }

export const DEFAULT_CONFIG: WorldConfig = {
  seed: 11,
  entities: {},
  graph: { zipfExponent: 1.0, edgesPerEntity: 4, homonymRate: 0 },
  docs: { fillerPerSection: 1, locales: ['en_US', 'en_GB', 'de', 'fr', 'es', 'it'] },
  search: { engine: 'embedded', meiliUrl: '', meiliKeyEnv: 'MEILI_MASTER_KEY' },
  verification: { queriesPerEdge: 15, minHits: 5, topK: 5 },
  qa: {
    target: 41000,
    mix: { simple: 0.6, parallel: 0.25, combo: 0.15 },
    minHops: 1,
    maxHops: 12,
    hopWeights: [10, 12, 12, 11, 10, 9, 7, 6, 5, 4, 4, 4],
    attrTerminalRate: 0.3,
    parallelOps: { compare: 0.35, sum: 0.15, difference: 0.2, same: 0.3 },
    comboKinds: { compareChain: 0.65, param: 0.35 },
    headroom: 0.22,
    blur: undefined,
  },
  split: { bench: { simple: 462, parallel: 134, combo: 46 }, minHops: 1, maxHops: 12, disjoint: { question: true, path: true, startEntity: true }, factDisjoint: undefined, blurredOnly: undefined },
  write: DEFAULT_WRITE_CONFIG,
}

