// gym/wrappers/faults: seeded fault injection on a GymWorld's tools — search timeouts, 429s, empty results, access
// failures, added latency — the unstable-search failures that poison rewards. Decisions come from one Rng per env.
import { Rng } from '../../infra/rng'
import { ToolFaultError } from '../tool-errors'
import type { GymWorld } from '../world-view'

export interface FaultRates {
  seed: number
  /** Probability a search times out. */
  searchTimeout: number
  /** Probability a search is rate-limited (HTTP 429). */
  searchRateLimit: number
  /** Probability a search returns no results. */
  searchEmpty: number
  /** Probability an access fails (page unavailable). */
  accessFailure: number
  /** Probability a tool call is delayed by latencyMs. */
  latencyRate: number
  latencyMs: number
  /** How long a timing-out call waits before failing (0: fail at once, for fast training). */
  timeoutMs: number
}

export const NO_FAULTS: FaultRates = {
  seed: 0,
  searchTimeout: 0,
  searchRateLimit: 0,
  searchEmpty: 0,
  accessFailure: 0,
  latencyRate: 0,
  latencyMs: 0,
  timeoutMs: 0,
}

export function hasFaults(f: FaultRates): boolean {
  return f.searchTimeout > 0 || f.searchRateLimit > 0 || f.searchEmpty > 0 || f.accessFailure > 0 || (f.latencyRate > 0 && f.latencyMs > 0)
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** Wrap a world so its tools fail at the given rates; `rng` should be derived per env (seed, qa id, episode). */
export function withFaults(world: GymWorld, rates: Partial<FaultRates>, rng: Rng): GymWorld {
  const f = { ...NO_FAULTS, ...rates }
  const delay = async () => {
    // Draw every time so the decision stream does not depend on which branch ran.
    const slow = rng.next() < f.latencyRate
    if (slow && f.latencyMs > 0) await sleep(f.latencyMs)
  }
  return {
    name: world.name,
    qa: (id) => world.qa(id),
    listQa: (split) => world.listQa(split),
    close: () => world.close(),
    async search(query, k) {
      await delay()
      const u = rng.next()
      if (u < f.searchTimeout) {
        if (f.timeoutMs > 0) await sleep(f.timeoutMs)
        throw new ToolFaultError('timeout', 'the search service timed out')
      }
      if (u < f.searchTimeout + f.searchRateLimit) throw new ToolFaultError('rate_limited', 'the search service is rate-limited (429)')
      if (u < f.searchTimeout + f.searchRateLimit + f.searchEmpty) return []
      return world.search(query, k)
    },
    async access(url) {
      await delay()
      if (rng.next() < f.accessFailure) throw new ToolFaultError('unavailable', 'the page could not be loaded')
      return world.access(url)
    },
  }
}
