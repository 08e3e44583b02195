// world/graph/year-window: for the date-coupled relations, the window of years a target's date attribute must fall in
// for a given source (a necessary condition of schema.datesCoherent, tested against it). The generator uses it to
// see in O(log n) that a source has no date-coherent target at all, instead of scanning every target: the same edges
// come out, without the scan that made graph generation quadratic in the entity count.
import { yearOf } from '../schema'
import type { Entity } from '../types'

export interface YearWindow {
  /** The target's attribute whose year is constrained. */
  attr: string
  lo: number
  hi: number
}

type Attrs = Entity['attrs']
const win = (attr: string, lo: number, hi: number): YearWindow => ({ attr, lo, hi })

/** Relation → the target-year window implied by datesCoherent(relation, s, t) (undefined: no window known). */
export const TARGET_YEAR_WINDOW: Record<string, (s: Attrs) => YearWindow> = {
  written_by: (s) => win('born', yearOf(s.published) - 90, yearOf(s.published) - 18),
  directed_by: (s) => win('born', yearOf(s.released) - 85, yearOf(s.released) - 20),
  stars: (s) => win('born', yearOf(s.released) - 90, yearOf(s.released) - 6),
  founded_by: (s) => win('born', yearOf(s.founded) - 80, yearOf(s.founded) - 18),
  museum_founder: (s) => win('born', yearOf(s.opened) - 85, yearOf(s.opened) - 20),
  child_of: (s) => win('born', yearOf(s.born) - 55, yearOf(s.born) - 16),
  member_of: (s) => win('formed', yearOf(s.born) - 13, yearOf(s.born) + 60),
}

/** Sorted years of one attribute over a list of target entities: counts targets inside a window by binary search. */
export class YearIndex {
  private readonly years: Float64Array
  constructor(targets: Entity[], attr: string) {
    this.years = Float64Array.from(targets.map((t) => yearOf(t.attrs[attr]))).sort()
  }
  /** Targets whose (integer) year is in [lo, hi]. */
  count(lo: number, hi: number): number {
    return this.lowerBound(hi + 0.5) - this.lowerBound(lo - 0.5)
  }
  /** Years strictly below x (missing years are NaN, sorted last, never counted). */
  private lowerBound(x: number): number {
    let a = 0, b = this.years.length
    while (a < b) {
      const m = (a + b) >> 1
      if (this.years[m] < x) a = m + 1
      else b = m
    }
    return a
  }
}
