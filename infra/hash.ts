// infra/hash: canonical JSON and SHA-256 content hashes (key order and machine independent).
import { createHash, type Hash } from 'node:crypto'

/** JSON with object keys sorted recursively; numbers as JSON prints them; undefined fields dropped. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`canonicalJson: non-finite number ${value}`)
    return JSON.stringify(value) ?? 'null'
  }
  if (Array.isArray(value)) return '[' + value.map((v) => canonicalJson(v === undefined ? null : v)).join(',') + ']'
  const obj = value as Record<string, unknown>
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort()
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(obj[k])).join(',') + '}'
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

/** Incremental hasher over canonical lines: feed rows in a deterministic order. */
export class ContentHasher {
  private readonly h: Hash = createHash('sha256')
  section(name: string): void {
    this.h.update(`\u0000section:${name}\n`)
  }
  row(value: unknown): void {
    this.h.update(canonicalJson(value))
    this.h.update('\n')
  }
  digest(): string {
    return this.h.digest('hex')
  }
}
