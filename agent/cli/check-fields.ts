// agent/cli/check-fields: `gym check`'s knobs as one field table — which questions, the engine profile the oracle runs
// through (`format`: the name world export --format takes) and its limit overrides (world ENGINE_LIMIT_FIELDS), the
// /retrieve unit, the edge re-verification, the report file and the oracle's own settings — and the refusals between
// them, named as given. The world folder is the command's positional. Knows no check's workings.
import { GymError } from '../../infra/errors'
import type { FieldTable, Namer } from '../../infra/fields'
import { ENGINE_LIMIT_FIELDS, engineProfileNames, RETRIEVE_UNITS, type EngineLimits, type RetrieveUnit } from '../../world'

export interface GymCheckConfig extends Partial<EngineLimits> {
  split: 'train' | 'bench' | 'all'
  limit?: number
  /** An engine profile's name (world/qa/engines/registry). */
  format?: string
  retrieveUnit: RetrieveUnit
  verifyEdges: boolean
  json?: string
  edges?: number
  quiet: boolean
  concurrency: number
  threads?: number
  pages: 'all' | 'needed'
}

export const GYM_CHECK_FIELDS: FieldTable = [
  { key: 'split', type: 'enum', choices: ['train', 'bench', 'all'], default: 'all', flag: 'split', help: 'which questions to check' },
  { key: 'limit', type: 'int', optional: true, min: 1, flag: 'limit', help: 'check only the first N questions' },
  {
    key: 'format',
    type: 'enum',
    // Read from the registry when asked: an engine registered after this table is built is a choice too.
    get choices() {
      return engineProfileNames()
    },
    optional: true,
    flag: 'format',
    aliases: ['profile'],
    help: "an outside engine (its name as world export --format takes it): run the oracle through its stock limits (turns, observation cut, context, topk; world/qa/engines) and report the fraction solvable by type and hops",
  },
  ...ENGINE_LIMIT_FIELDS.map((f) => ({ ...f, help: `with format: ${f.help} (unset: the engine's stock limit)` })),
  { key: 'retrieveUnit', type: 'enum', choices: RETRIEVE_UNITS, default: 'page', flag: 'retrieve-unit', help: 'with format or verifyEdges: what /retrieve serves (as gym serve --retrieve-unit): whole pages or ~100-word passages' },
  {
    key: 'verifyEdges',
    type: 'bool',
    default: false,
    flag: 'verify-edges',
    help: "re-run the world's edge verification (the build's 15 queries per edge, its top-K and keep rule) through the engine's pages, and with retrieveUnit passage through passages too; reports edges kept per unit and per-query latency (informational: which questions are served through passages is decided by the oracle check, --format NAME --retrieve-unit passage)",
  },
  { key: 'json', type: 'string', optional: true, flag: 'json', help: 'write the full report (every failure) to this JSON file' },
  { key: 'edges', type: 'int', optional: true, min: 1, aliases: ['edges'], help: 'with verifyEdges: only the first N edges by id' },
  { key: 'quiet', type: 'bool', default: false, aliases: ['quiet'], help: 'with verifyEdges: no progress lines' },
  { key: 'concurrency', type: 'int', default: 8, min: 1, max: 4096, aliases: ['concurrency'], help: 'questions checked at once (in-process, threads 1)' },
  { key: 'threads', type: 'int', optional: true, min: 1, max: 256, aliases: ['threads'], help: 'worker threads over question shards (unset: SEARCHGYM_THREADS, else the cores up to 8; 1 = in-process with concurrency)' },
  { key: 'pages', type: 'enum', choices: ['all', 'needed'], default: 'needed', aliases: ['pages'], help: 'how the oracle reads a paged document: only the pages a hop needs (page 1, then on until the fact is read) or all of them when it opens one' },
]

/** The knobs that belong to another check than the one asked for, refused in one line naming them as given. */
export function refuseCheckConflicts(c: GymCheckConfig, name: Namer): void {
  const no = (why: string): never => {
    throw new GymError('check.conflict', why)
  }
  if (c.verifyEdges && c.format !== undefined) no(`${name('verifyEdges')} and ${name('format')} are separate checks: give one`)
  if (c.retrieveUnit === 'passage' && c.format === undefined && !c.verifyEdges) no(`${name('retrieveUnit')} passage needs an engine (--format NAME) or the edge verification (--verify-edges)`)
  if (c.edges !== undefined && !c.verifyEdges) no(`${name('edges')} needs the edge verification (--verify-edges)`)
  for (const f of ENGINE_LIMIT_FIELDS) if (c[f.key as keyof EngineLimits] !== undefined && c.format === undefined) no(`${name(f.key)} overrides a limit of an engine: give the engine too (--format NAME)`)
}
