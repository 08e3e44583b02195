// infra/engine/prefix-cache: KV caches kept between sampling calls, keyed by their exact token sequence, so a prompt
// that extends an earlier sequence (the rollout's next turn: previous prompt + sampled tokens + an observation) is
// prefilled from where that sequence ended instead of from token 0. Entries are valid only for the weights they were
// computed with: each carries a stamp (the model, whether the adapter was applied, and a fingerprint of the adapter's
// values — Σx² of every LoRA tensor), and a lookup under another stamp drops them. Bounded by bytes, oldest out first.
import { type CausalLM, type KvCache, forkKvCache } from './model'

interface Entry {
  tokens: readonly number[]
  cache: KvCache
  bytes: number
}

/** What the cached keys/values were computed with. */
export interface PrefixStamp {
  model: CausalLM
  key: string
}

/** The stamp of sampling `model` now (with its adapter when useLora). */
export function prefixStamp(model: CausalLM, useLora: boolean): PrefixStamp {
  const ad = useLora ? model.adapter : undefined
  // Base weights changed in place (full-weight training) make a new key too; version 0 keeps the keys they always were.
  const v = model.weightsVersion ? `w${model.weightsVersion}:` : ''
  if (!ad) return { model, key: `${v}base` }
  const be = model.backend
  return { model, key: v + ad.params().map((p) => be.sumSquares(p.tensor).toString(36)).join(',') }
}

export class KvPrefixCache {
  private entries: Entry[] = []
  private stamp?: PrefixStamp
  private bytes = 0
  /** Prompt tokens not prefilled thanks to the cache, and prompt tokens prefilled (for reports and tests). */
  reused = 0
  prefilled = 0

  /** maxBytes: the most bytes of KV cache kept between calls (default 256 MiB). */
  constructor(readonly maxBytes = 256 * 2 ** 20) {}

  get size(): number {
    return this.entries.length
  }

  private release(c: KvCache): void {
    const be = this.stamp?.model.backend
    if (be) for (const t of [...c.k, ...c.v]) be.release(t)
  }

  /** Drop (and release) every entry. */
  clear(): void {
    for (const e of this.entries) this.release(e.cache)
    this.entries = []
    this.bytes = 0
  }

  private check(stamp: PrefixStamp): void {
    if (this.stamp && (this.stamp.model !== stamp.model || this.stamp.key !== stamp.key)) this.clear()
    this.stamp = stamp
  }

  /**
   * The longest kept sequence that is a proper prefix of prompt, as a cache of at least `capacity` rows holding it
   * (removed from the store: the caller extends it), or undefined.
   */
  take(model: CausalLM, prompt: readonly number[], capacity: number, stamp: PrefixStamp): KvCache | undefined {
    this.check(stamp)
    let best = -1
    for (let i = 0; i < this.entries.length; i++) {
      const e = this.entries[i]
      if (e.tokens.length >= prompt.length || (best >= 0 && e.tokens.length <= this.entries[best].tokens.length)) continue
      let ok = true
      for (let j = 0; j < e.tokens.length && ok; j++) ok = e.tokens[j] === prompt[j]
      if (ok) best = i
    }
    if (best < 0) return undefined
    const [e] = this.entries.splice(best, 1)
    this.bytes -= e.bytes
    if (e.cache.capacity >= capacity) return e.cache
    const grown = forkKvCache(model, e.cache, capacity)
    this.release(e.cache)
    return grown
  }

  /** Keep cache (its first cache.length rows are the keys/values of tokens) for later calls under stamp. */
  put(tokens: readonly number[], cache: KvCache, stamp: PrefixStamp): void {
    this.check(stamp)
    if (cache.length !== tokens.length || cache.length === 0) {
      this.release(cache)
      return
    }
    const bytes = cacheBytes(cache)
    if (bytes > this.maxBytes) {
      this.release(cache)
      return
    }
    this.entries.push({ tokens: tokens.slice(), cache, bytes })
    this.bytes += bytes
    while (this.bytes > this.maxBytes) {
      const old = this.entries.shift()!
      this.bytes -= old.bytes
      this.release(old.cache)
    }
  }
}

function cacheBytes(c: KvCache): number {
  let n = 0
  for (const t of [...c.k, ...c.v]) n += 4 * t.shape[0] * t.shape[1]
  return n
}

