// infra/field-args: a field table (infra/fields) on a command line — the visible flags of the fields that have one,
// their deprecated aliases (hidden; each prints its new spelling once on stderr), `--config FILE` and `--set KEY=VALUE`,
// the keys' help as the command's epilogue, and the run's identity flags (model, world, out: folders, not config); and a parsed argv resolved into the run's config, defaults < file < flags
// < --set, every error one line naming the key and how it was given (the flag, --set or the file). Knows yargs' argv
// shape, nothing of any run.
import type { Argv, Options } from 'yargs'
import { readJsonFile } from './config'
import { nearest } from './did-you-mean'
import { ConfigError } from './errors'
import { note } from './held-notes'
import { checkField, fieldDefaults, fieldOf, getPath, givenKeys, parseFieldText, setPath, typeLabel, type Field, type FieldTable, type Namer } from './fields'

/** The flags (visible and old) a table puts on a command, besides --config and --set. */
export function tableFlags(table: FieldTable): { visible: string[]; aliases: string[] } {
  return { visible: table.flatMap((f) => (f.flag ? [f.flag] : [])), aliases: table.flatMap((f) => [...(f.aliases ?? [])]) }
}

const showDefault = (f: Field) => (f.default === undefined ? '' : ` [default: ${typeof f.default === 'string' ? f.default : JSON.stringify(f.default)}]`)

/** The command's epilogue: every key of the table with its type, default and help (what --config and --set take). */
export function keysHelp(table: FieldTable): string {
  const keys = table.filter((f) => !f.movedTo)
  const w = Math.max(...keys.map((f) => f.key.length))
  const lines = keys.map((f) => `  ${f.key.padEnd(w)}  ${f.help} (${typeLabel(f)})${showDefault(f)}${f.flag ? ` — also --${f.flag}` : ''}`)
  return `Config keys (--config FILE with these keys nested by their dots; --set KEY=VALUE, repeatable):\n${lines.join('\n')}`
}

/** The table's options on a command: visible flags, hidden aliases, --config and --set, the keys' epilogue. Flags carry
 *  no yargs default (an unset flag must not hide the file's value); the default is shown in their help. */
export function fieldOptions<T>(y: Argv<T>, table: FieldTable): Argv<T> {
  let out = y as Argv<unknown>
  for (const f of table) {
    const type = f.type === 'bool' ? 'boolean' : 'string'
    if (f.flag) out = out.option(f.flag, { type, describe: `${f.help} (key ${f.key}; ${typeLabel(f)})${showDefault(f)}` })
    for (const a of f.aliases ?? []) out = out.option(a, { type, hidden: true })
  }
  out = out
    .option('config', { type: 'string', describe: 'a JSON file of config keys (see below); flags and --set override it' })
    .option('set', { type: 'string', describe: 'KEY=VALUE: one config key (see below); repeatable' })
    .epilogue(keysHelp(table))
  return out as Argv<T>
}

/** A run's identity on the command line — what it reads and where it writes, never config keys (a config file names no
 *  folder) — each flag typed and described once here; a command lists the ones it has, in the order its help shows
 *  them, and may say what a folder is to it. */
const IDENTITY = {
  model: { type: 'string', demandOption: true, describe: 'model folder (config.json, model.safetensors, tokenizer files)' },
  adapter: { type: 'string', describe: 'LoRA adapter folder on the model (PEFT format)' },
  world: { type: 'string', array: true, demandOption: true, describe: 'world folder; repeat for several' },
  'eval-world': { type: 'string', describe: 'world folder of the held-out figures (an unseen seed of the same config)' },
  out: { type: 'string', demandOption: true, describe: 'output folder' },
} as const satisfies Record<string, Options>

export type IdentityFlag = keyof typeof IDENTITY

/** The identity flags a command has (`['model', 'world']`), with what a folder is to it where that says more than the
 *  shared description (`{ world: 'world folder whose pages are trained on; repeat for a pool' }`). */
export function identityOptions<T>(y: Argv<T>, flags: readonly IdentityFlag[], describe: Partial<Record<IdentityFlag, string>> = {}): Argv<T> {
  let out = y as Argv<unknown>
  for (const flag of flags) out = out.option(flag, { ...IDENTITY[flag], describe: describe[flag] ?? IDENTITY[flag].describe })
  return out as Argv<T>
}

/** One stderr line per old flag per process: the spelling that replaces it (held until the command goes on to work). */
function noteAlias(old: string, f: Field, text: string): void {
  const now = f.flag ? `--${f.flag}` : `--set ${f.movedTo ?? f.key}=${text}`
  note(old, `searchgym: note: --${old} is deprecated; write ${now}\n`)
}

const asList = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v])

export interface FieldArgs<T> {
  /** The resolved config: defaults, then the file, the flags, --set; every field checked. */
  config: T
  /** How each key was given, for a resolver's cross-field errors: `turn (--turn)`, `turn (--set)`, `FILE: turn`. */
  name: Namer
  /** The keys given on the command line or in the file (the rest are defaults). */
  given: Set<string>
}

/** A parsed argv resolved through the table (see the header). */
export function fieldArgs<T>(table: FieldTable, argv: Record<string, unknown>, o: { readFile?: (raw: unknown, file: string) => unknown } = {}): FieldArgs<T> {
  const out = fieldDefaults<Record<string, unknown>>(table)
  const how = new Map<string, string>()
  const name: Namer = (key) => {
    const h = how.get(key)
    return h === undefined ? key : h.startsWith('--') ? `${key} (${h})` : `${h}: ${key}`
  }
  const files = asList(argv.config)
  if (files.length > 1) throw new ConfigError('config.flag', `--config was given ${files.length} times; give one file (and --set for single keys)`)
  if (files.length === 1) {
    const file = String(files[0])
    // readFile: the run kind's reader of a file of an older spelling (keys moved where they live now), if it has one.
    const raw = o.readFile ? o.readFile(readJsonFile(file), file) : readJsonFile(file)
    for (const key of givenKeys(table, raw, file, (k) => `${file}: ${k}`)) {
      setPath(out, key, structuredClone(getPath(raw, key)))
      how.set(key, file)
    }
  }
  for (const f of table) {
    const used = [f.flag, ...(f.aliases ?? [])].filter((x): x is string => x !== undefined && argv[x] !== undefined)
    if (used.length === 0) continue
    const named = (x: string) => `${f.key} (--${x})`
    if (used.length > 1) throw new ConfigError('config.flag', `${f.key} was given twice: --${used.join(' and --')}; give one`)
    const flag = used[0]
    const raw = argv[flag]
    const texts = asList(raw)
    if (f.type !== 'list' && texts.length > 1) throw new ConfigError('config.flag', `${named(flag)}: --${flag} was given ${texts.length} times; give it once`)
    const value = f.type === 'bool' ? raw : f.type === 'list' ? texts.flatMap((t) => parseFieldText(f, String(t), named(flag)) as unknown[]) : parseFieldText(f, String(raw), named(flag))
    if (flag !== f.flag) noteAlias(flag, f, texts.map(String).join(','))
    setPath(out, f.key, value)
    how.set(f.key, `--${flag}`)
  }
  const bySet = new Set<string>()
  for (const s of asList(argv.set).map(String)) {
    const eq = s.indexOf('=')
    const key = eq < 0 ? s : s.slice(0, eq)
    const f = fieldOf(table, key)
    // A key inside a json field (`gym.budgets.maxTurns=8`): the value as JSON, else as text; the field's own check
    // judges the whole object at the end.
    const inside = f || eq < 0 ? undefined : table.find((x) => x.type === 'json' && key.startsWith(`${x.key}.`))
    if (inside) {
      if (bySet.has(key)) throw new ConfigError('config.flag', `${key} was set twice with --set; give it once`)
      const text = s.slice(eq + 1)
      let v: unknown = text
      try {
        v = JSON.parse(text)
      } catch {
        // text it is
      }
      if (typeof getPath(out, inside.key) === 'string') setPath(out, inside.key, (inside.parse ?? ((t: string) => JSON.parse(t)))(getPath(out, inside.key) as string, name(inside.key)))
      setPath(out, key, v)
      how.set(key, '--set')
      bySet.add(key)
      continue
    }
    if (eq < 0 || !f) {
      const near = nearest(key, table.map((x) => x.key))
      throw new ConfigError('config.unknown_key', eq < 0 ? `--set ${s}: write KEY=VALUE` : `--set ${s}: unknown config key '${key}'${near ? ` (did you mean ${near}?)` : ''}; known keys: ${table.map((x) => x.key).join(', ')}`)
    }
    const before = how.get(key)
    if (bySet.has(key)) throw new ConfigError('config.flag', `${key} was set twice with --set; give it once`)
    if (before?.startsWith('--')) throw new ConfigError('config.flag', `${key} was given twice: ${before} and --set ${key}=…; give one`)
    setPath(out, key, parseFieldText(f, s.slice(eq + 1), `${key} (--set)`))
    how.set(key, '--set')
    bySet.add(key)
  }
  for (const f of table) if (f.movedTo) moveKey(out, f, how)
  for (const f of table) if (!f.movedTo) checkField(f, getPath(out, f.key), name(f.key))
  return { config: out as T, name, given: new Set(how.keys()) }
}

/** An older key's value (checked by its own field) written where its knob lives now; given there too, with another
 *  value, is one knob given twice. */
function moveKey(out: Record<string, unknown>, f: Field, how: Map<string, string>): void {
  const v = getPath(out, f.key)
  if (v === undefined) return
  const was = how.get(f.key) ?? ''
  const label = was.startsWith('--') ? was : was ? `${was}: ${f.key}` : f.key
  checkField(f, v, `${f.movedTo} (${label})`)
  const there = getPath(out, f.movedTo!)
  if (there !== undefined && there !== v) throw new ConfigError('config.flag', `${f.movedTo} was given twice: ${label} ${JSON.stringify(v)} and ${f.movedTo} ${JSON.stringify(there)}; give one`)
  if (!was.startsWith('--')) noteMovedKey(label, f.movedTo!)
  setPath(out, f.key, undefined)
  setPath(out, f.movedTo!, v)
  how.delete(f.key)
  how.set(f.movedTo!, was)
}

/** An old flag that became a key: one stderr line per process with the spelling that replaces it. */
export function noteOldFlag(old: string, now: string): void {
  note(old, `searchgym: note: --${old} is deprecated; write ${now}\n`)
}

/** A config key of an older spelling read from a file or block: one stderr line per process with its new place. */
export function noteMovedKey(old: string, now: string): void {
  note(old, `searchgym: note: ${old} is deprecated; write ${now}\n`)
}

/** `--set KEY=VALUE` over a config resolved by a strict merge (a WorldConfig over its preset, an experiment file): each value parsed
 *  by the type of the key's value in `base` (number, true/false, text, JSON for lists and objects — an object's keys
 *  merge into it); a key `base` does not have is refused naming the nearest. Returns the nested layer to merge over `base`. */
export function setLayer(base: object, sets: readonly string[]): Record<string, unknown> {
  const layer: Record<string, unknown> = {}
  // Leaves, and objects too (a JSON object given for one merges into it, as a config file's block does); a typo is
  // told the nearest leaf.
  const paths: string[] = []
  const leaves: string[] = []
  const walk = (o: unknown, prefix: string) => {
    if (prefix) paths.push(prefix)
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return void leaves.push(prefix)
    for (const [k, v] of Object.entries(o)) walk(v, prefix ? `${prefix}.${k}` : k)
  }
  walk(base, '')
  for (const s of sets) {
    const eq = s.indexOf('=')
    const key = eq < 0 ? s : s.slice(0, eq)
    if (eq < 0) throw new ConfigError('config.flag', `--set ${s}: write KEY=VALUE`)
    if (!paths.includes(key)) {
      const near = nearest(key, leaves)
      throw new ConfigError('config.unknown_key', `--set ${s}: unknown config key '${key}'${near ? ` (did you mean ${near}?)` : ''}`)
    }
    const was = getPath(base, key)
    const text = s.slice(eq + 1)
    const name = `${key} (--set)`
    const field: Field =
      typeof was === 'number' ? { key, type: 'number', help: '' } : typeof was === 'boolean' ? { key, type: 'bool', help: '' } : typeof was === 'string' ? { key, type: 'string', help: '' } : { key, type: 'json', help: '' }
    const v = parseFieldText(field, text, name)
    if (field.type !== 'json') checkField(field, v, name)
    if (getPath(layer, key) !== undefined) throw new ConfigError('config.flag', `${key} was set twice with --set; give it once`)
    setPath(layer, key, v)
  }
  return layer
}
