// view/page/curves: the training-curve charts — one SVG per metric, one path per run (the server already cut each
// series to ≤ 600 min/max/mean buckets), a min/max band where buckets merged points, EMA smoothing, log scale, step
// or wall-clock x, stage switches as dashed lines, and a hover crosshair that reads every run's value at the cursor.
// Knows the API's RunCurves shape and nothing else of the page.
import type { CurveSeries, RunCurves } from '../types'

export const COLORS = ['#4e79a7', '#e15759', '#59a14f', '#f28e2b', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#ff9da7', '#bab0ac']

export interface ChartOptions {
  /** EMA weight in [0, 1): 0 draws the raw bucket means. */
  smooth: number
  log: boolean
  x: 'step' | 'time'
  /** Always draw each series' lo–hi band (a band across seeds), not only where buckets merged points. */
  bands?: boolean
}

const NS = 'http://www.w3.org/2000/svg'
function svg(tag: string, attrs: Record<string, string | number>, ...children: (Element | string)[]): SVGElement {
  const el = document.createElementNS(NS, tag)
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v))
  el.append(...children)
  return el
}

/** TensorBoard's debiased exponential moving average. */
export function ema(ys: number[], w: number): number[] {
  if (w <= 0) return ys
  let s = 0
  return ys.map((y, i) => {
    s = w * s + (1 - w) * y
    return s / (1 - Math.pow(w, i + 1))
  })
}

const fmt = (v: number) => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(2) : Number(v.toPrecision(4)).toString())
const fmtX = (v: number, x: 'step' | 'time') => (x === 'step' ? String(Math.round(v)) : v >= 3600 ? `${(v / 3600).toFixed(2)} h` : v >= 60 ? `${(v / 60).toFixed(1)} min` : `${v.toFixed(1)} s`)

/** Index of the point whose x is nearest `x` (xs ascending). */
function nearest(xs: number[], x: number): number {
  let lo = 0
  let hi = xs.length - 1
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1
    if (xs[mid] < x) lo = mid
    else hi = mid
  }
  return Math.abs(xs[lo] - x) <= Math.abs(xs[hi] - x) ? lo : hi
}

export function chart(title: string, key: string, curves: RunCurves[], o: ChartOptions): SVGElement {
  const W = 440
  const H = 230
  const P = { l: 52, r: 10, t: 22, b: 26 }
  const tr = (v: number) => (o.log ? (v > 0 ? Math.log10(v) : NaN) : v)
  const drawn = curves.map((c) => {
    const s: CurveSeries = c.series[key] ?? { x: [], y: [], lo: [], hi: [], n: 0 }
    return { run: c.run, s, y: ema(s.y, o.smooth) }
  })
  const xsAll = drawn.flatMap((d) => d.s.x)
  const ysAll = drawn.flatMap((d) => [...d.s.lo, ...d.s.hi, ...d.y]).map(tr).filter(Number.isFinite)
  const x0 = xsAll.length ? Math.min(...xsAll) : 0
  const x1 = xsAll.length ? Math.max(...xsAll, x0 + 1) : 1
  let y0 = ysAll.length ? Math.min(...ysAll) : 0
  let y1 = ysAll.length ? Math.max(...ysAll) : 1
  if (y0 === y1) [y0, y1] = [y0 - 0.5, y1 + 0.5]
  const X = (v: number) => P.l + ((v - x0) / (x1 - x0)) * (W - P.l - P.r)
  const Y = (v: number) => H - P.b - ((tr(v) - y0) / (y1 - y0)) * (H - P.t - P.b)
  const yLabel = (t: number) => (o.log ? fmt(Math.pow(10, t)) : fmt(t))
  const parts: Element[] = [
    svg('text', { x: P.l, y: 14, 'font-size': 12, 'font-weight': 600 }, `${title}${o.log ? ' (log)' : ''}`),
    svg('line', { x1: P.l, y1: H - P.b, x2: W - P.r, y2: H - P.b, stroke: '#999' }),
    svg('line', { x1: P.l, y1: P.t, x2: P.l, y2: H - P.b, stroke: '#999' }),
    svg('text', { x: P.l - 4, y: P.t + 4, 'font-size': 10, 'text-anchor': 'end' }, yLabel(y1)),
    svg('text', { x: P.l - 4, y: H - P.b + 4, 'font-size': 10, 'text-anchor': 'end' }, yLabel(y0)),
    svg('text', { x: P.l, y: H - 8, 'font-size': 10 }, `${o.x === 'step' ? 'step' : 'wall clock'} ${fmtX(x0, o.x)}`),
    svg('text', { x: W - P.r, y: H - 8, 'font-size': 10, 'text-anchor': 'end' }, fmtX(x1, o.x)),
  ]
  const pathOf = (xs: number[], ys: number[]) => {
    let d = ''
    let pen = false
    for (let i = 0; i < xs.length; i++) {
      const yy = Y(ys[i])
      if (!Number.isFinite(yy)) {
        pen = false
        continue
      }
      d += `${pen ? 'L' : 'M'}${X(xs[i]).toFixed(1)},${yy.toFixed(1)}`
      pen = true
    }
    return d
  }
  drawn.forEach((d, i) => {
    const color = COLORS[i % COLORS.length]
    for (const sw of curves[i].stageSwitches.slice(1))
      if (Number.isFinite(sw.x)) parts.push(svg('line', { x1: X(sw.x), x2: X(sw.x), y1: P.t, y2: H - P.b, stroke: color, 'stroke-dasharray': '3 3', opacity: 0.6 }, svg('title', {}, `${d.run}: ${sw.stage} from step ${sw.step}`)))
    if (!d.s.x.length) return
    if (o.bands || d.s.n > d.s.x.length) {
      // Merged buckets (or a band across seeds): the band from each bucket's min to its max.
      const top = d.s.x.map((x, j) => `${X(x).toFixed(1)},${Y(d.s.hi[j]).toFixed(1)}`)
      const bottom = d.s.x.map((x, j) => `${X(x).toFixed(1)},${Y(d.s.lo[j]).toFixed(1)}`).reverse()
      if ([...top, ...bottom].every((p) => !p.includes('NaN'))) parts.push(svg('path', { d: `M${top.join('L')}L${bottom.join('L')}Z`, fill: color, opacity: 0.15, stroke: 'none', 'data-band': d.run }))
    }
    parts.push(svg('path', { d: pathOf(d.s.x, d.y), fill: 'none', stroke: color, 'stroke-width': 1.6, 'data-run': d.run, 'data-points': d.s.x.length }))
  })
  // Hover: a crosshair and every run's value at the nearest x.
  const cross = svg('line', { y1: P.t, y2: H - P.b, stroke: '#555', 'stroke-width': 0.8, visibility: 'hidden' })
  const tip = svg('text', { x: P.l + 6, y: P.t + 12, 'font-size': 11, visibility: 'hidden', 'data-testid': 'hover' })
  const area = svg('rect', { x: P.l, y: P.t, width: W - P.l - P.r, height: H - P.t - P.b, fill: 'transparent' })
  area.addEventListener('mousemove', (ev) => {
    const box = (area as SVGGraphicsElement).getBoundingClientRect()
    const px = P.l + ((ev as MouseEvent).clientX - box.left) * ((W - P.l - P.r) / box.width)
    const xv = x0 + ((px - P.l) / (W - P.l - P.r)) * (x1 - x0)
    cross.setAttribute('x1', String(px))
    cross.setAttribute('x2', String(px))
    cross.setAttribute('visibility', 'visible')
    const lines = drawn.filter((d) => d.s.x.length).map((d) => {
      const j = nearest(d.s.x, xv)
      const band = o.bands || d.s.n > d.s.x.length ? ` [${fmt(d.s.lo[j])}, ${fmt(d.s.hi[j])}]` : ''
      return { color: COLORS[drawn.indexOf(d) % COLORS.length], text: `${d.run} @ ${fmtX(d.s.x[j], o.x)}: ${fmt(d.y[j])}${band}` }
    })
    tip.replaceChildren(...lines.map((l, k) => svg('tspan', { x: P.l + 6, dy: k ? 13 : 0, fill: l.color }, l.text)))
    tip.setAttribute('visibility', 'visible')
  })
  area.addEventListener('mouseleave', () => {
    cross.setAttribute('visibility', 'hidden')
    tip.setAttribute('visibility', 'hidden')
  })
  parts.push(cross, tip, area)
  return svg('svg', { class: 'chart', width: W, height: H, viewBox: `0 0 ${W} ${H}`, 'data-curve': key }, ...parts)
}
