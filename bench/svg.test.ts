// bench/svg.test: the tiny SVG charts — well-formed, deterministic, escaped, bars and whiskers where the data says.
import { barChart, forestChart, lineChart, MAX_X_LABELS, niceMax, xLabelIndices } from './svg'

it('nice axis maxima', () => {
  expect([niceMax(0.83), niceMax(1), niceMax(3.2), niceMax(0), niceMax(12)]).toEqual([1, 1, 5, 1, 20])
})

it('a grouped bar chart has one rect per finite value, whiskers for intervals, escaped text, and is deterministic', () => {
  const o = { title: 'A & B <test>', categories: ['1', '2', '3'], series: [{ name: 'F1', values: [0.5, NaN, 1], lo: [0.4, 0, 0.9], hi: [0.6, 0, 1] }, { name: 'EM', values: [0.2, 0.3, 0.4] }] }
  const svg = barChart(o)
  expect(svg).toBe(barChart(o))
  expect(svg).toContain('A &amp; B &lt;test&gt;')
  expect(svg.match(/<rect x=/g)!.length).toBe(5 + 2) // 5 bars + 2 legend swatches
  expect(svg.match(/stroke="#222"/g)!.length).toBe(2 * 3) // 2 whiskers × (stem + 2 caps)
  expect(svg).not.toContain('NaN')
})

it('line and forest charts render', () => {
  const line = lineChart({ title: 't', categories: ['a', 'b'], series: [{ name: 's', values: [1, 2] }] })
  expect(line).toContain('<path d="M')
  const forest = forestChart({ title: 'f', rows: [{ label: 'x', estimate: 0.1, lo: 0.05, hi: 0.15 }, { label: 'y', estimate: -0.1, lo: -0.2, hi: 0.01 }] })
  expect(forest.match(/<circle/g)).toHaveLength(2)
})

test('a chart of positive values starts its axis at 0', async () => {
  const { barChart } = await import('./svg')
  const svg = barChart({ title: 't', categories: ['a', 'b'], series: [{ name: 's', values: [2.4, 13.7] }] })
  // one format per axis: the step (4) needs no decimals, so 0 is "0", not "0.00"
  expect(svg).toMatch(/>0<\/text>/)
  expect(svg).toMatch(/>20<\/text>/)
  expect(svg).not.toMatch(/>-[0-9.]+<\/text>/)
})

// Issue 59, item 8b: a long x axis is labelled every k-th category, not every one (80 steps were one unreadable strip).
test('xLabelIndices: at most MAX_X_LABELS labels, on round positions, the first and the last among them', () => {
  expect(xLabelIndices(5)).toEqual([0, 1, 2, 3, 4])
  expect(xLabelIndices(80).map((i) => i + 1)).toEqual([1, 10, 20, 30, 40, 50, 60, 70, 80])
  for (const n of [13, 37, 80, 101, 600, 20_000]) {
    const ix = xLabelIndices(n)
    expect(ix.length).toBeLessThanOrEqual(MAX_X_LABELS)
    expect(ix[0]).toBe(0)
    expect(n - 1 - ix.at(-1)!).toBeLessThan(n / 10)
  }
  const svg = lineChart({ title: 't', categories: Array.from({ length: 80 }, (_, i) => String(i + 1)), series: [{ name: 'r', values: Array.from({ length: 80 }, (_, i) => i / 80) }] })
  expect((svg.match(/text-anchor="middle">\d+<\/text>/g) ?? []).length).toBeLessThanOrEqual(MAX_X_LABELS)
})
