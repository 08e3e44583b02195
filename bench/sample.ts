// bench/sample: which N questions `bench run --limit N` scores — a seeded stratified sample over type × hops (the
// default) or the first N of the split. Knows questions' type and hops only; not how they are run or scored.
import { Rng } from '../infra/rng'
import type { Qa } from '../world'

export type LimitMode = 'stratified' | 'first'
export const LIMIT_MODES: readonly LimitMode[] = ['stratified', 'first']

/**
 * The split's questions in sampling order, so that every prefix is a stratified sample and a larger --limit holds a
 * smaller one (a resumed run with a larger N only adds questions):
 * - first one question of every type (types in a seeded order), so any N ≥ the number of types covers every type;
 * - then every other question by systematic sampling within its type × hops stratum: the k-th (seeded order) of a
 *   stratum of n gets the key (k + u) / n, u a seeded offset per stratum; sorting by key gives each stratum about
 *   N · n / total of any prefix (proportional allocation), ties broken by the seeded stratum order.
 */
export function stratifiedOrder(questions: readonly Qa[], seed: number): Qa[] {
  const rng = Rng.derive(seed, 'bench-limit-sample')
  const strata = new Map<string, Qa[]>()
  for (const q of questions) {
    const key = `${q.type}\u0000${q.hops}`
    const s = strata.get(key)
    if (s) s.push(q)
    else strata.set(key, [q])
  }
  // Strata and their members in a fixed order first (so the draws do not depend on the split's order), then shuffled.
  const keys = rng.shuffle([...strata.keys()].sort())
  for (const k of keys) rng.shuffle(strata.get(k)!.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
  // One per type: the first question of the type's first stratum in the seeded order.
  const firsts: Qa[] = []
  const seenTypes = new Set<string>()
  for (const k of keys) {
    const q = strata.get(k)![0]
    if (!seenTypes.has(q.type)) {
      seenTypes.add(q.type)
      firsts.push(q)
    }
  }
  const taken = new Set(firsts.map((q) => q.id))
  const rest: { q: Qa; key: number; stratum: number }[] = []
  keys.forEach((k, stratum) => {
    const members = strata.get(k)!
    const u = rng.next()
    members.forEach((q, i) => {
      if (!taken.has(q.id)) rest.push({ q, key: (i + u) / members.length, stratum })
    })
  })
  rest.sort((a, b) => a.key - b.key || a.stratum - b.stratum)
  return [...firsts, ...rest.map((r) => r.q)]
}

/** The questions --limit N selects from `questions` (all when limit is null), in the split's order. */
export function limitQuestions(questions: readonly Qa[], limit: number | null, mode: LimitMode, seed: number): Qa[] {
  if (limit === null) return questions.slice()
  if (mode === 'first') return questions.slice(0, limit)
  // The chosen ones in the split's order (trajectories and reports read like the split).
  const chosen = new Set(stratifiedOrder(questions, seed).slice(0, limit).map((q) => q.id))
  return questions.filter((q) => chosen.has(q.id))
}
