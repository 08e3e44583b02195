// world/write/cli-options: the old `--llm-*` flags of `searchgym world build`, each now an alias of a config key under
// write (`--set write.model=M`; the aliases of world/config-fields); given, one prints its new spelling once. Thin: the
// keys only fill the config; the write stage reads nothing else.
import type { Argv } from 'yargs'
import { noteOldFlag } from '../../infra/field-args'
import { WORLD_FIELDS } from '../config-fields'

/** Old flag → the WorldConfig key it sets (the aliases of world/config-fields). */
export const LLM_FLAG_KEYS: Readonly<Record<string, string>> = Object.fromEntries(WORLD_FIELDS.flatMap((f) => (f.aliases ?? []).map((a) => [a, f.key])))

/** The old flags as hidden options (still taken for one release). */
export function llmOptions<T>(y: Argv<T>): Argv<T> {
  let out = y
  for (const flag of Object.keys(LLM_FLAG_KEYS)) out = out.option(flag, { type: 'string', hidden: true })
  return out
}

/** The old flags given, as `--set` entries (each noted once on stderr with its new spelling). */
export function llmSets(argv: Record<string, unknown>): string[] {
  const out: string[] = []
  for (const [flag, key] of Object.entries(LLM_FLAG_KEYS)) {
    const v = argv[flag]
    if (v === undefined) continue
    const entry = `${key}=${Array.isArray(v) ? v[v.length - 1] : String(v)}`
    noteOldFlag(flag, `--set ${entry}`)
    out.push(entry)
  }
  return out
}
