// world/write/cli-options: the old `--llm-*` flags of `searchgym world build`, each now an alias of a config key under
// write (`--set write.model=M`); given, one prints its new spelling once. Thin: the keys only fill the config; the
// write stage reads nothing else.
import type { Argv } from 'yargs'
import { noteOldFlag } from '../../infra/field-args'

/** Old flag → the WorldConfig key it sets. */
export const LLM_FLAG_KEYS: Readonly<Record<string, string>> = {
  'llm-base-url': 'write.baseUrl',
  'llm-model': 'write.model',
  'llm-key-env': 'write.keyEnv',
  'llm-concurrency': 'write.concurrency',
  'llm-budget-tokens': 'write.budget.tokens',
  'llm-budget-usd': 'write.budget.dollars',
  'llm-price-in': 'write.price.inputPerMillion',
  'llm-price-out': 'write.price.outputPerMillion',
  'llm-max-tokens': 'write.maxTokensPerCall',
}

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
