// infra/fields: a run kind's options as one field table — dotted key, type, default, help, choices, bounds, an
// optional flag and deprecated flag aliases — and what is derived from it: the defaults object, the strict resolution
// of a JSON object (a config file, an experiment block), the check of one value, the markdown option table.
// It knows no command and no yargs (infra/field-args maps a table onto a command line); a package's resolver adds its
// cross-field checks on top and names keys through the Namer it is handed, so a library error never names a flag.
import { ConfigError } from './errors'
import { showValue } from './show-value'

export type FieldType = 'int' | 'number' | 'string' | 'bool' | 'enum' | 'list' | 'json'

export interface Field {
  /** The dotted config key (`eval.every`): the one name of the knob in a config file, `--set` and run folders. */
  key: string
  type: FieldType
  /** The default; undefined (with `optional`) means unset. */
  default?: unknown
  help: string
  /** `enum`: the allowed values. */
  choices?: readonly string[]
  /** `int` / `number` (and a `list`'s items): inclusive bounds. */
  min?: number
  max?: number
  /** An exclusive lower bound (a learning rate > 0). */
  gt?: number
  /** `list`: the items' type (default string); a flag or `--set` gives them comma-separated. */
  of?: 'int' | 'number' | 'string'
  /** Unset unless given (no default). */
  optional?: boolean
  /** A visible command-line flag (without the dashes): only identity and everyday knobs have one. */
  flag?: string
  /** Old flags that still work for one release; each prints the new spelling once on stderr. */
  aliases?: readonly string[]
  /** Command-line text → value (`json` fields given as `KIND=W,…` and the like); default: by type. */
  parse?: (text: string, name: string) => unknown
  /** A check beyond type, choices and bounds; throws through `fail`. */
  check?: (value: unknown, fail: (why: string) => never, name: string) => void
  /** An older key whose knob now lives at this path inside a json field (`gym.budgets.maxTurns`): given (by its old
   *  flag, `--set` or a file), its value is written there with one note, and the key itself is never kept. */
  movedTo?: string
}

export type FieldTable = readonly Field[]

/** A field's check from a function that says what is wrong with a value (undefined when nothing is). */
export function problemCheck<T>(problem: (v: T) => string | undefined): NonNullable<Field['check']> {
  return (v, fail) => {
    const why = problem(v as T)
    if (why !== undefined) fail(why)
  }
}

/** How a resolver names a key in an error: a config file says `where.key`, a command line the flag it was given as. */
export type Namer = (key: string) => string

export const keyNamer =
  (where = ''): Namer =>
  (key) =>
    where ? `${where}.${key}` : key

type Plain = Record<string, unknown>
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v)
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype'])

export function fieldOf(table: FieldTable, key: string): Field | undefined {
  return table.find((f) => f.key === key)
}

export function getPath(o: unknown, key: string): unknown {
  let v = o
  for (const k of key.split('.')) v = isPlain(v) && Object.hasOwn(v, k) ? v[k] : undefined
  return v
}

export function setPath(o: Plain, key: string, value: unknown): void {
  const parts = key.split('.')
  let at = o
  for (const k of parts.slice(0, -1)) {
    if (!isPlain(at[k])) at[k] = {}
    at = at[k] as Plain
  }
  if (value === undefined) delete at[parts[parts.length - 1]]
  else at[parts[parts.length - 1]] = value
}

/** The table's defaults as the nested object its keys spell (optional fields left out). */
export function fieldDefaults<T>(table: FieldTable): T {
  const out: Plain = {}
  for (const f of table) if (f.default !== undefined) setPath(out, f.key, structuredClone(f.default))
  return out as T
}

/** What a field's values are, in words (help, errors, docs). */
export function typeLabel(f: Field): string {
  const lo = f.gt !== undefined ? `> ${f.gt}` : f.min !== undefined ? `≥ ${f.min}` : ''
  const range = f.min !== undefined && f.max !== undefined ? ` in [${f.min}, ${f.max}]` : f.gt !== undefined && f.max !== undefined ? ` in (${f.gt}, ${f.max}]` : lo ? ` ${lo}` : f.max !== undefined ? ` ≤ ${f.max}` : ''
  if (f.type === 'int') return `integer${range}`
  if (f.type === 'number') return `number${range}`
  if (f.type === 'bool') return 'true | false'
  if (f.type === 'enum') return (f.choices ?? []).join(' | ')
  if (f.type === 'list') return `list of ${f.of === 'int' ? `integers${range}` : f.of === 'number' ? `numbers${range}` : 'strings'}`
  if (f.type === 'json') return 'JSON object'
  return 'string'
}

/** A value's check against its field (type, choices, bounds, the field's own check); `name` is what the error calls it. */
export function checkField(f: Field, v: unknown, name: string): void {
  const fail = (why: string): never => {
    throw new ConfigError('config.field', `${name} ${why}`)
  }
  if (v === undefined) {
    if (f.optional) return
    fail('must be given')
  }
  const num = (x: unknown, int: boolean, what: string) => {
    if (typeof x !== 'number' || !Number.isFinite(x) || (int && !Number.isInteger(x))) fail(`must be ${what}, got ${showValue(x)}`)
    const n = x as number
    if ((f.min !== undefined && n < f.min) || (f.gt !== undefined && n <= f.gt) || (f.max !== undefined && n > f.max)) fail(`must be ${what}, got ${showValue(x)}`)
  }
  const label = (t: 'int' | 'number') => (t === 'int' ? 'an ' : 'a ') + typeLabel({ ...f, type: t })
  if (f.type === 'int' || f.type === 'number') num(v, f.type === 'int', label(f.type))
  else if (f.type === 'bool' && typeof v !== 'boolean') fail(`must be true or false, got ${showValue(v)}`)
  else if (f.type === 'string' && typeof v !== 'string') fail(`must be a string, got ${showValue(v)}`)
  else if (f.type === 'enum' && !(typeof v === 'string' && (f.choices ?? []).includes(v))) fail(`must be one of ${(f.choices ?? []).join(', ')}, got ${showValue(v)}`)
  else if (f.type === 'json' && !isPlain(v)) fail(`must be a JSON object, got ${showValue(v)}`)
  else if (f.type === 'list') {
    if (!Array.isArray(v)) fail(`must be a list, got ${showValue(v)}`)
    for (const x of v as unknown[])
      if (f.of === 'int' || f.of === 'number') num(x, f.of === 'int', `a list of ${typeLabel(f).replace(/^list of /, '')}`)
      else if (typeof x !== 'string') fail(`must be a list of strings, got ${showValue(v)}`)
  }
  f.check?.(v, fail, name)
}

const numberText = (t: string): number => (t.trim() === '' ? NaN : Number(t))

/** Command-line text (a flag's or `--set`'s) → a value of the field's type (checked afterwards by checkField). */
export function parseFieldText(f: Field, text: string, name: string): unknown {
  if (f.parse) return f.parse(text, name)
  if (f.type === 'int' || f.type === 'number') return numberText(text)
  if (f.type === 'bool') {
    if (['true', '1', ''].includes(text)) return true
    if (['false', '0'].includes(text)) return false
    throw new ConfigError('config.field', `${name} must be true or false, got '${text}'`)
  }
  if (f.type === 'list') {
    const items = text.split(',').map((x) => x.trim()).filter((x) => x !== '')
    return f.of === 'int' || f.of === 'number' ? items.map(numberText) : items
  }
  if (f.type === 'json') {
    try {
      return JSON.parse(text)
    } catch (e) {
      throw new ConfigError('config.field', `${name} is not valid JSON: ${(e as Error).message}`)
    }
  }
  return text
}

/** The keys an object sets, as dotted keys of the table; a key that is neither a field nor a prefix of one is refused
 *  with the known keys. */
export function givenKeys(table: FieldTable, input: unknown, where: string, name: Namer = keyNamer(where)): string[] {
  if (input === undefined) return []
  if (!isPlain(input)) throw new ConfigError('config.type', `${where || 'config'} must be a JSON object`)
  const out: string[] = []
  const walk = (o: Plain, prefix: string) => {
    for (const k of Object.keys(o)) {
      const key = prefix ? `${prefix}.${k}` : k
      if (!FORBIDDEN.has(k) && fieldOf(table, key)) out.push(key)
      else if (!FORBIDDEN.has(k) && isPlain(o[k]) && table.some((f) => f.key.startsWith(`${key}.`))) walk(o[k] as Plain, key)
      else throw new ConfigError('config.unknown_key', `unknown config key '${name(key)}' (known keys: ${table.map((f) => f.key).join(', ')})`)
    }
  }
  walk(input, '')
  return out
}

/** An object (config file, experiment block) over the table's defaults: unknown keys, types, choices and bounds refused
 *  by key, one line each. `base` replaces the defaults of the keys it sets (an experiment's own defaults). */
export function resolveFields<T>(table: FieldTable, input: unknown, where = '', base: Plain = {}, name: Namer = keyNamer(where)): T {
  const out = fieldDefaults<Plain>(table)
  for (const key of givenKeys(table, base, where, name)) setPath(out, key, structuredClone(getPath(base, key)))
  for (const key of givenKeys(table, input, where, name)) setPath(out, key, structuredClone(getPath(input, key)))
  for (const f of table) checkField(f, getPath(out, f.key), name(f.key))
  return out as T
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ')

/** The docs' option table: one row per field (key, flag and old flags, type, default, help). */
export function fieldsMarkdown(table: FieldTable): string {
  const rows = table.map((f) => {
    if (f.movedTo) return `| ~~\`${f.key}\`~~ | ${(f.aliases ?? []).map((x) => `~~--${x}~~`).join(' ')} | ${cell(typeLabel(f))} | — | the older spelling of \`${f.movedTo}\` |`
    const flags = [f.flag ? `\`--${f.flag}\`` : '', ...(f.aliases ?? []).map((a) => `~~--${a}~~`)].filter(Boolean).join(' ')
    const def = f.default === undefined ? '—' : `\`${JSON.stringify(f.default)}\``
    return `| \`${f.key}\` | ${flags} | ${cell(typeLabel(f))} | ${cell(def)} | ${cell(f.help)} |`
  })
  return ['| key | flag (~~old~~) | type | default | what it is |', '| --- | --- | --- | --- | --- |', ...rows].join('\n') + '\n'
}
