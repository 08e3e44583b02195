// world/qa/engines/registry: the engine profiles by name (Gymnasium's `register` / `make`) — the built-in three are
// registered here, a new engine is one module and one line below (or one registerEngine call, e.g. from a test). Every
// list of engine names (help text, world export's and gym check's --format choices, errors naming the known ones) is read from here.
import type { EngineProfile } from './profile'
import { asearcher } from './asearcher'
import { searchR1 } from './search-r1'
import { verl } from './verl'

const registry = new Map<string, EngineProfile>()

/** Add an engine; its name must be new (and not one of the plain QA formats, jsonl / parquet). */
export function registerEngine(p: EngineProfile): void {
  if (!/^[a-z][a-z0-9-]*$/.test(p.name)) throw new Error(`engine profile name '${p.name}' must be lower-case letters, digits and dashes`)
  if (registry.has(p.name) || p.name === 'jsonl' || p.name === 'parquet') throw new Error(`engine profile '${p.name}' is already taken`)
  registry.set(p.name, p)
}

/** Remove an engine registered by registerEngine (tests clean up after themselves); built-ins stay. */
export function unregisterEngine(name: string): void {
  if (BUILT_IN.some((p) => p.name === name)) throw new Error(`engine profile '${name}' is built in`)
  registry.delete(name)
}

export function engineProfile(name: string): EngineProfile {
  const p = registry.get(name)
  if (!p) throw new Error(`unknown engine profile '${name}' (known: ${engineProfileNames().join(', ')})`)
  return p
}

export const isEngineProfile = (name: string): boolean => registry.has(name)

/** Registered names in registration order (the built-ins first). */
export const engineProfileNames = (): string[] => [...registry.keys()]

/** All registered profiles in registration order. */
export const engineProfiles = (): EngineProfile[] => [...registry.values()]

const BUILT_IN: EngineProfile[] = [searchR1, verl, asearcher]
for (const p of BUILT_IN) registerEngine(p)

/** "a, b or c" — how help text and errors name the engines. */
export function orList(xs: string[]): string {
  return xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs.at(-1)}`
}
