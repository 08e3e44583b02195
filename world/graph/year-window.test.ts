// world/graph/year-window.test: every target-year window is a necessary condition of datesCoherent (no coherent pair
// falls outside it) — so the early exit it allows skips only scans that would have found nothing (the pinned hashes hold).
import { presetConfig } from '../config'
import { datesCoherent, RELATIONS, yearOf } from '../schema'
import { generateWorld } from './graph'
import { TARGET_YEAR_WINDOW, YearIndex } from './year-window'

test('a date-coherent (source, target) pair always has the target year inside the window', async () => {
  const w = await generateWorld(presetConfig('small'))
  let coherent = 0
  for (const [name, window] of Object.entries(TARGET_YEAR_WINDOW)) {
    const rel = RELATIONS.find((r) => r.name === name)!
    const sources = w.entities.filter((e) => e.type === rel.domain)
    const targets = w.entities.filter((e) => e.type === rel.range)
    for (const s of sources.slice(0, 60))
      for (const t of targets) {
        if (!datesCoherent(name, s.attrs, t.attrs)) continue
        coherent++
        const win = window(s.attrs)
        const y = yearOf(t.attrs[win.attr])
        expect([name, y >= win.lo && y <= win.hi]).toEqual([name, true])
      }
  }
  expect(coherent).toBeGreaterThan(1000)
})

test('YearIndex counts integer years inside a closed window', () => {
  const ents = [1900, 1950, 1950, 2000].map((y, i) => ({ id: `p${i}`, type: 'Person', name: `P${i}`, url: '', attrs: { born: y } }))
  const idx = new YearIndex(ents, 'born')
  expect(idx.count(1950, 1950)).toBe(2)
  expect(idx.count(1901, 1949)).toBe(0)
  expect(idx.count(1800, 2100)).toBe(4)
  expect(idx.count(2001, 2100)).toBe(0)
})
