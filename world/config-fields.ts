// world/config-fields: WorldConfig's field table — every key a preset, a --config file or --set gives `world build`,
// with its type, default (DEFAULT_CONFIG's; a preset replaces some), help and bounds or choices — read by the command's
// --help, docs/options.md and the config's resolution (world/config checks each key against it). The checks between
// keys (minHits ≤ queriesPerEdge, a writer's URL, qa.blur's own keys) stay with the resolver.
import { requireNonNegativeInt } from '../infra/config'
import { ConfigError } from '../infra/errors'
import { getPath, type Field, type FieldTable } from '../infra/fields'
import { DEFAULT_CONFIG } from './config-defaults'
import { knownLocale } from './names'
import { ENTITY_TYPES } from './schema'
import { ENGINE_NAMES } from './search/engine-names'

/** A field of the table with DEFAULT_CONFIG's value as its default (never restated here). */
const key = (k: string, type: Field['type'], help: string, more: Partial<Field> = {}): Field => {
  const d = getPath(DEFAULT_CONFIG, k)
  return { key: k, type, help, ...(d === undefined ? { optional: true } : { default: d }), ...more }
}

/** Entity counts: known types, non-negative integers, at least one entity. */
const checkEntities: Field['check'] = (v, _fail, name) => {
  const known = ENTITY_TYPES.map((t) => t.name)
  let total = 0
  for (const [type, n] of Object.entries(v as Record<string, unknown>)) {
    if (!known.includes(type)) throw new ConfigError('config.entity_type', `unknown entity type '${name}.${type}' (known types: ${known.join(', ')})`)
    total += requireNonNegativeInt(`${name}.${type}`, n)
  }
  if (total === 0) throw new ConfigError('config.empty', `${name} gives no entities: set a positive count for at least one type (or use --preset)`)
}

const checkLocales: Field['check'] = (v, _fail, name) => {
  const ls = v as string[]
  if (ls.length === 0) throw new ConfigError('config.locales', `${name} must name at least one faker locale, e.g. ["en_US"]`)
  for (const l of ls) if (!knownLocale(l)) throw new ConfigError('config.locales', `unknown faker locale ${JSON.stringify(l)} in ${name} (e.g. en_US, de, fr)`)
}

const checkEnvName: Field['check'] = (v, _fail, name) => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v as string)) throw new ConfigError('config.write', `${name} must name an environment variable, got ${JSON.stringify(v)}`)
}

const weight = (k: string, help: string) => key(k, 'number', help, { min: 0 })
const HOPS = { min: 1, max: 12 }

export const WORLD_FIELDS: FieldTable = [
  key('seed', 'int', 'seed of every random draw of the build', { min: 0, max: Number.MAX_SAFE_INTEGER, flag: 'seed' }),
  key('entities', 'json', 'entity counts per type, e.g. {"Person":35,"City":14} (each preset sets its own); a file\'s counts merge over the preset\'s', { check: checkEntities }),
  key('graph.zipfExponent', 'number', 'exponent of the Zipf-like preference for hubs when attaching edges', { min: 0 }),
  key('graph.edgesPerEntity', 'number', 'average relation edges per entity, before constraints (paper presets: 4.3)', { min: 0 }),
  key('graph.homonymRate', 'number', 'fraction of entities that share a name with another of the same type', { min: 0, max: 1 }),
  key('docs.fillerPerSection', 'int', 'neutral filler sentences per document section (0: none)', { min: 0 }),
  key('docs.locales', 'list', 'faker locales the names are drawn from', { check: checkLocales }),
  key('search.engine', 'enum', 'search engine the world is verified with and served by', { choices: ENGINE_NAMES, flag: 'search' }),
  key('search.embedder', 'string', 'dense/hybrid: sentence-embedding model directory (model.onnx + tokenizer.json)', { flag: 'embedder' }),
  key('search.meiliUrl', 'string', "URL of an external Meilisearch ('': start a local one)", { flag: 'meili-url' }),
  key('search.meiliKeyEnv', 'string', 'environment variable holding the Meilisearch API key'),
  key('verification.queriesPerEdge', 'int', 'natural-language queries built per edge', { min: 1 }),
  key('verification.minHits', 'int', "an edge is kept iff at least this many of its queries find the target's page (≤ queriesPerEdge)", { min: 1 }),
  key('verification.topK', 'int', 'results per verification query (the gym serves the same top-K)', { min: 1 }),
  key('qa.target', 'int', 'questions in the pool (training + bench)', { min: 0 }),
  weight('qa.mix.simple', 'weight of Simple (chain) questions'),
  weight('qa.mix.parallel', 'weight of Parallel questions (two paths, then compare / sum / difference / same)'),
  weight('qa.mix.combo', "weight of Combo questions (part 1's answer is part 2's subject)"),
  key('qa.minHops', 'int', 'fewest hops of a Simple chain', HOPS),
  key('qa.maxHops', 'int', 'most hops of a Simple chain', HOPS),
  key('qa.hopWeights', 'list', 'relative weight of each hop count 1..12 (the first is 1 hop): the pool\'s hop histogram', { of: 'number', min: 0 }),
  key('qa.attrTerminalRate', 'number', "probability that a chain asks for an attribute of its end instead of its name", { min: 0, max: 1 }),
  weight('qa.parallelOps.compare', 'weight of the compare operator of Parallel questions'),
  weight('qa.parallelOps.sum', 'weight of the sum operator'),
  weight('qa.parallelOps.difference', 'weight of the difference operator'),
  weight('qa.parallelOps.same', 'weight of the same-value operator'),
  weight('qa.comboKinds.compareChain', "weight of Combo questions where a comparison's winner starts a chain"),
  weight('qa.comboKinds.param', "weight of Combo questions where a chain's value selects an entity"),
  key('qa.headroom', 'number', 'extra fraction drawn so that training + bench still reach target after the split drops conflicts', { min: 0 }),
  key('qa.blur', 'json', 'blurred starts (off unless given): true, or an object over {"rate":0.3,"minCues":2,"maxCues":3,"positions":["start"],"queries":6,"minHits":2,"style":"direct"} (style direct | two-step)'),
  key('split.bench.simple', 'int', 'Simple questions held out for the bench', { min: 0 }),
  key('split.bench.parallel', 'int', 'Parallel questions held out for the bench', { min: 0 }),
  key('split.bench.combo', 'int', 'Combo questions held out for the bench', { min: 0 }),
  key('split.minHops', 'int', 'fewest hops the bench must cover', HOPS),
  key('split.maxHops', 'int', 'most hops the bench must cover', HOPS),
  key('split.disjoint.question', 'bool', 'drop a training question that repeats a bench question'),
  key('split.disjoint.path', 'bool', 'drop a training question on a bench question\'s path'),
  key('split.disjoint.startEntity', 'bool', 'drop a training question that starts where a bench question starts'),
  key('split.factDisjoint', 'bool', 'also drop every training question that shares an edge (a fact) with a bench question (off unless given)'),
  key('split.blurredOnly', 'bool', 'draw the bench from questions with a blurred start only (needs qa.blur; off unless given)'),
  key('write.model', 'string', "LLM writer: model name at the endpoint ('': no writer, the template documents stand)", { aliases: ['llm-model'] }),
  key('write.baseUrl', 'string', 'LLM writer: OpenAI-compatible base URL (needed with a model)', { aliases: ['llm-base-url'] }),
  key('write.keyEnv', 'string', 'LLM writer: environment variable holding the API key (unset: no key sent)', { aliases: ['llm-key-env'], check: checkEnvName }),
  key('write.questions', 'bool', 'LLM writer: also reword every served question'),
  key('write.concurrency', 'int', 'LLM writer: calls in flight at once', { min: 1, aliases: ['llm-concurrency'] }),
  key('write.maxRetries', 'int', 'LLM writer: retries of one call on 429, 5xx or a dropped connection', { min: 0 }),
  key('write.backoffMs', 'number', 'LLM writer: first backoff in ms (doubled each retry, capped at 30 s)', { min: 0 }),
  key('write.maxTokensPerCall', 'int', 'LLM writer: max_tokens of one call', { min: 1, aliases: ['llm-max-tokens'] }),
  key('write.temperature', 'number', 'LLM writer: sampling temperature', { min: 0 }),
  key('write.budget.tokens', 'number', 'LLM writer: token budget over every call of this world (0: no limit)', { min: 0, aliases: ['llm-budget-tokens'] }),
  key('write.budget.dollars', 'number', 'LLM writer: dollar budget over every call of this world (0: no limit)', { min: 0, aliases: ['llm-budget-usd'] }),
  key('write.price.inputPerMillion', 'number', 'LLM writer: US dollars per million input tokens', { min: 0, aliases: ['llm-price-in'] }),
  key('write.price.outputPerMillion', 'number', 'LLM writer: US dollars per million output tokens', { min: 0, aliases: ['llm-price-out'] }),
]
