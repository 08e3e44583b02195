// bench/svg.test: the tiny SVG charts — well-formed, deterministic, escaped, bars and whiskers where the data says.
import { barChart, forestChart, lineChart, niceMax } from './svg'

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
