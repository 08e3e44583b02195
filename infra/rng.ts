// infra/rng: the one seeded random source (mulberry32 + FNV-1a stream derivation).
// Every random draw in the project comes from an Rng passed explicitly; never Math.random.

/** FNV-1a 32-bit hash of a string; stable across machines. */
export function hashString32(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

export class Rng {
  private state: number

  constructor(seed: number) {
    if (!Number.isFinite(seed)) throw new Error(`Rng seed must be a finite number, got ${seed}`)
    this.state = (Math.floor(seed) ^ 0x9e3779b9) >>> 0
    this.next()
  }

  /** An independent stream for a named purpose: Rng.derive(seed, 'graph') does not depend on draws made elsewhere. */
  static derive(seed: number, ...labels: (string | number)[]): Rng {
    let h = hashString32(String(seed))
    for (const l of labels) h = hashString32(`${h}:${l}`)
    return new Rng(h)
  }

  /** A child stream; advances this one by one draw. */
  fork(label: string | number = ''): Rng {
    return new Rng(hashString32(`${this.uint32()}:${label}`))
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296
  }

  uint32(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0)
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }

  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    if (hi < lo) throw new Error(`Rng.int: empty range [${lo}, ${hi}]`)
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }

  float(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo)
  }

  bool(p = 0.5): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: empty list')
    return items[Math.floor(this.next() * items.length)]
  }

  /** Index drawn with probability proportional to weights[i]. */
  weightedIndex(weights: readonly number[]): number {
    let total = 0
    for (const w of weights) total += w
    if (!(total > 0)) throw new Error('Rng.weightedIndex: weights must have a positive sum')
    let r = this.next() * total
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]
      if (r < 0) return i
    }
    return weights.length - 1
  }

  /** Fisher-Yates shuffle in place; returns the array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1))
      const t = items[i]
      items[i] = items[j]
      items[j] = t
    }
    return items
  }

  /** k distinct items (order random). */
  sample<T>(items: readonly T[], k: number): T[] {
    return this.shuffle(items.slice()).slice(0, Math.min(k, items.length))
  }

  /** Standard normal (Box-Muller). */
  normal(mean = 0, std = 1): number {
    const u = 1 - this.next()
    const v = this.next()
    return mean + std * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
  }
}
