// infra/config: typed option objects with defaults spread in and unknown keys rejected (a typo is an error, not ignored).
import { showValue } from './show-value'
import { readFileSync, existsSync } from 'node:fs'
import { ConfigError } from './errors'

type Plain = Record<string, unknown>

/** Keys that name the prototype chain, refused wherever they appear. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

function isPlain(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * Merge `input` over `defaults`, recursively for nested objects. A key in `input` that `defaults` does not
 * have is an error, except inside objects listed in `openPaths` (maps such as counts per entity type).
 * Types are checked against the default's type (number, string, boolean, array, object).
 */
export function mergeStrict<T>(defaults: T, input: unknown, where = 'config', openPaths: string[] = []): T {
  if (input === undefined) return structuredClone(defaults)
  if (!isPlain(input)) throw new ConfigError('config.type', `${where} must be a JSON object`)
  const out: Plain = structuredClone(defaults as Plain)
  for (const [key, value] of Object.entries(input)) {
    const path = `${where}.${key}`
    const open = openPaths.includes(where)
    // __proto__ and friends are never a key, not even of an open map: reading out[key] there would reach
    // Object.prototype (whose own keys are none, so the error under it listed "known keys: " empty).
    if ((!Object.hasOwn(out, key) && !open) || FORBIDDEN_KEYS.has(key)) {
      const known = Object.keys(out).join(', ')
      throw new ConfigError('config.unknown_key', `unknown config key '${path}' (known keys: ${known || (open ? `any name of ${where} but ${[...FORBIDDEN_KEYS].join(', ')}` : 'none')})`)
    }
    const def = Object.hasOwn(out, key) ? out[key] : undefined
    if (isPlain(def) && !openPaths.includes(path)) {
      out[key] = mergeStrict(def, value, path, openPaths)
    } else if (isPlain(def)) {
      if (!isPlain(value)) throw new ConfigError('config.type', `${path} must be an object`)
      out[key] = mergeStrict(def, value, path, openPaths)
    } else {
      checkType(path, def, value)
      out[key] = value
    }
  }
  return out as T
}

function checkType(path: string, def: unknown, value: unknown): void {
  if (def === undefined || def === null) return
  if (Array.isArray(def)) {
    if (!Array.isArray(value)) throw new ConfigError('config.type', `${path} must be an array`)
    return
  }
  if (typeof def === 'number') {
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new ConfigError('config.type', `${path} must be a number, got ${showValue(value)}`)
    return
  }
  if (typeof value !== typeof def)
    throw new ConfigError('config.type', `${path} must be a ${typeof def}, got ${showValue(value)}`)
}

export function requireNonNegativeInt(path: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw new ConfigError('config.count', `${path} must be a non-negative integer, got ${JSON.stringify(v)}`)
  return v
}

export function readJsonFile(path: string, what = 'config file'): unknown {
  if (!existsSync(path)) throw new ConfigError('config.missing', `${what} not found: ${path}`)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (e) {
    throw new ConfigError('config.unreadable', `cannot read ${what} ${path}: ${(e as Error).message}`, { cause: e })
  }
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new ConfigError('config.json', `${what} ${path} is not valid JSON: ${(e as Error).message}`, { cause: e })
  }
}
