// tests/flag-count: the front door's size (issue 61) — every leaf verb's visible flags, recorded from the real builders
// by bench/perf/flag-count: bench run at most 12, train sft at most 8, no verb over 15; each old flag an alias of
// exactly one key (a name is not both a visible flag and an alias of the same verb).
import { flagCounts } from '../bench/perf/flag-count'

test('bench run ≤ 12, train sft ≤ 8, no verb over 15 flags', async () => {
  const verbs = await flagCounts()
  const count = new Map(verbs.map((v) => [v.verb, v.visible.length]))
  expect(count.get('bench run')).toBeLessThanOrEqual(12)
  expect(count.get('train sft')).toBeLessThanOrEqual(8)
  expect(verbs.filter((v) => v.visible.length > 15).map((v) => v.verb)).toEqual([])
  for (const v of verbs) expect({ verb: v.verb, both: v.visible.filter((f) => v.hidden.includes(f)) }).toEqual({ verb: v.verb, both: [] })
}, 60_000)
