// infra/lookup: lookups by a name that came from outside (a request, a flag, a config file) — own properties only, so
// `toString`, `constructor`, `__proto__` or `hasOwnProperty` never reach Object.prototype.
export function ownLookup<V>(table: Readonly<Record<string, V>>, name: unknown): V | undefined {
  return typeof name === 'string' && Object.hasOwn(table, name) ? table[name] : undefined
}

/** The names every lookup by an outside name must survive (tests feed these to every name field). */
export const PROTOTYPE_KEYS = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'propertyIsEnumerable', 'toLocaleString'] as const
