// bench/svg: tiny deterministic SVG charts rendered in Node without a browser — grouped bars with CI whiskers,
// lines, and a forest (estimate ± interval) plot. Knows nothing about runs; numbers in, SVG text out.

const PALETTE = ['#4C78A8', '#F58518', '#54A24B', '#E45756', '#72B7B2', '#B279A2', '#FF9DA6', '#9D755D']

export interface Series {
  name: string
  values: number[]
  /** Optional interval per value (e.g. bootstrap 95% CI). */
  lo?: number[]
  hi?: number[]
}

export interface ChartOptions {
  title: string
  categories: string[]
  series: Series[]
  yLabel?: string
  xLabel?: string
  /** Fixed y range; default [0, nice max of the data]. */
  yMin?: number
  yMax?: number
  width?: number
  height?: number
  /** Written across the plot when no series has a finite value (say why, e.g. every question lost to the endpoint). */
  emptyNote?: string
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

function f(x: number): string {
  return Number.isFinite(x) ? (Math.round(x * 10) / 10).toString() : '0'
}

/** A "nice" upper bound (1, 2, 2.5, 5 × 10^k) at or above x. */
export function niceMax(x: number): number {
  if (!(x > 0)) return 1
  const p = 10 ** Math.floor(Math.log10(x))
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= x - 1e-12) return m * p
  return 10 * p
}

function fmtTick(v: number): string {
  return Math.abs(v) >= 10 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : v.toFixed(2)
}

/** Most category labels drawn under an x axis: past it, every k-th (k 1, 2, 5 × 10^j) and the last, so 80 steps read
 *  1, 10, 20, … 80 instead of one unreadable strip. */
export const MAX_X_LABELS = 12

/** Which category indices get a label (all when there are at most max). */
export function xLabelIndices(n: number, max = MAX_X_LABELS): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i)
  let k = 1
  for (const m of [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000]) {
    k = m
    if (Math.ceil(n / m) + 1 <= max) break
  }
  // Labels at 1, k, 2k, … in 1-based positions (a step axis reads 1, 10, 20, …), and the last.
  const out = new Set<number>([0])
  for (let i = k - 1; i < n; i += k) out.add(i)
  if (n - 1 - Math.max(...out) >= k / 2) out.add(n - 1)
  return [...out].sort((a, b) => a - b)
}

/** Tick labels of one axis in one format: as many decimals as the step between ticks needs (0, 20, 40 — not 0.00, 20). */
export function axisTicks(values: number[]): string[] {
  const step = values.length > 1 ? Math.abs(values[1] - values[0]) : Math.abs(values[0] ?? 1)
  let d = 0
  while (d < 4 && step > 0 && Math.abs(Math.round(step * 10 ** d) - step * 10 ** d) > 1e-9) d++
  return values.map((v) => (Math.abs(v) < 1e-12 ? 0 : v).toFixed(d))
}

function hasData(series: Series[]): boolean {
  return series.some((s) => s.values.some((v) => v !== undefined && Number.isFinite(v)))
}

interface Frame {
  w: number
  h: number
  left: number
  right: number
  top: number
  bottom: number
  y0: number
  y1: number
  parts: string[]
  sy: (v: number) => number
}

function frame(o: ChartOptions, yMinData: number, yMaxData: number): Frame {
  const w = o.width ?? 640
  const h = o.height ?? 320
  const left = 56
  const right = w - 16
  const top = 40
  const bottom = h - 56
  const y0 = o.yMin ?? (yMinData >= 0 ? 0 : -niceMax(-yMinData))
  const y1 = o.yMax ?? niceMax(yMaxData)
  const sy = (v: number) => bottom - ((Math.min(Math.max(v, y0), y1) - y0) / (y1 - y0 || 1)) * (bottom - top)
  const parts: string[] = []
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif" font-size="11">`)
  parts.push(`<rect width="${w}" height="${h}" fill="#ffffff"/>`)
  parts.push(`<text x="${f(w / 2)}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(o.title)}</text>`)
  const ticks = Array.from({ length: 6 }, (_, i) => y0 + ((y1 - y0) * i) / 5)
  const labels = axisTicks(ticks)
  ticks.forEach((v, i) => {
    const y = sy(v)
    parts.push(`<line x1="${left}" y1="${f(y)}" x2="${right}" y2="${f(y)}" stroke="#e5e5e5"/>`)
    parts.push(`<text x="${left - 6}" y="${f(y + 4)}" text-anchor="end" fill="#555">${labels[i]}</text>`)
  })
  if (!hasData(o.series))
    parts.push(`<text x="${f((left + right) / 2)}" y="${f((top + bottom) / 2)}" text-anchor="middle" font-size="13" fill="#a00">${escapeXml(o.emptyNote ?? 'no data')}</text>`)
  if (y0 < 0) parts.push(`<line x1="${left}" y1="${f(sy(0))}" x2="${right}" y2="${f(sy(0))}" stroke="#333"/>`)
  parts.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" stroke="#333"/>`)
  parts.push(`<line x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="#333"/>`)
  if (o.yLabel) parts.push(`<text x="14" y="${f((top + bottom) / 2)}" text-anchor="middle" transform="rotate(-90 14 ${f((top + bottom) / 2)})">${escapeXml(o.yLabel)}</text>`)
  if (o.xLabel) parts.push(`<text x="${f((left + right) / 2)}" y="${h - 8}" text-anchor="middle">${escapeXml(o.xLabel)}</text>`)
  return { w, h, left, right, top, bottom, y0, y1, parts, sy }
}

function legend(fr: Frame, series: Series[]): void {
  if (series.length < 2) return
  let x = fr.left + 8
  for (let i = 0; i < series.length; i++) {
    const c = PALETTE[i % PALETTE.length]
    fr.parts.push(`<rect x="${f(x)}" y="28" width="10" height="10" fill="${c}"/>`)
    fr.parts.push(`<text x="${f(x + 14)}" y="37">${escapeXml(series[i].name)}</text>`)
    x += 24 + 7 * series[i].name.length
  }
}

function extent(series: Series[]): [number, number] {
  let lo = 0
  let hi = 0
  for (const s of series)
    for (let i = 0; i < s.values.length; i++) {
      for (const v of [s.values[i], s.lo?.[i], s.hi?.[i]]) {
        if (v === undefined || !Number.isFinite(v)) continue
        lo = Math.min(lo, v)
        hi = Math.max(hi, v)
      }
    }
  return [lo, hi]
}

/** Grouped bar chart; whiskers where a series has lo/hi. */
export function barChart(o: ChartOptions): string {
  const [lo, hi] = extent(o.series)
  const fr = frame(o, lo, hi)
  const nCat = Math.max(1, o.categories.length)
  const slot = (fr.right - fr.left) / nCat
  const shown = new Set(xLabelIndices(o.categories.length))
  const nSer = Math.max(1, o.series.length)
  const barW = (slot * 0.8) / nSer
  for (let c = 0; c < o.categories.length; c++) {
    const x0 = fr.left + c * slot + slot * 0.1
    for (let s = 0; s < o.series.length; s++) {
      const ser = o.series[s]
      const v = ser.values[c]
      if (v === undefined || !Number.isFinite(v)) continue
      const x = x0 + s * barW
      const yv = fr.sy(v)
      const yz = fr.sy(Math.max(fr.y0, 0))
      const color = PALETTE[s % PALETTE.length]
      fr.parts.push(`<rect x="${f(x)}" y="${f(Math.min(yv, yz))}" width="${f(barW * 0.92)}" height="${f(Math.abs(yz - yv))}" fill="${color}"><title>${escapeXml(`${ser.name} ${o.categories[c]}: ${fmtTick(v)}`)}</title></rect>`)
      const l = ser.lo?.[c]
      const u = ser.hi?.[c]
      if (l !== undefined && u !== undefined && Number.isFinite(l) && Number.isFinite(u)) {
        const cx = x + (barW * 0.92) / 2
        fr.parts.push(`<line x1="${f(cx)}" y1="${f(fr.sy(l))}" x2="${f(cx)}" y2="${f(fr.sy(u))}" stroke="#222"/>`)
        fr.parts.push(`<line x1="${f(cx - 3)}" y1="${f(fr.sy(l))}" x2="${f(cx + 3)}" y2="${f(fr.sy(l))}" stroke="#222"/>`)
        fr.parts.push(`<line x1="${f(cx - 3)}" y1="${f(fr.sy(u))}" x2="${f(cx + 3)}" y2="${f(fr.sy(u))}" stroke="#222"/>`)
      }
    }
    if (shown.has(c)) fr.parts.push(`<text x="${f(fr.left + c * slot + slot / 2)}" y="${fr.bottom + 16}" text-anchor="middle">${escapeXml(o.categories[c])}</text>`)
  }
  legend(fr, o.series)
  fr.parts.push('</svg>')
  return fr.parts.join('\n') + '\n'
}

/** Line chart over categorical x positions; missing values break the line. */
export function lineChart(o: ChartOptions): string {
  const [lo, hi] = extent(o.series)
  const fr = frame(o, lo, hi)
  const n = Math.max(1, o.categories.length)
  const sx = (i: number) => fr.left + ((i + 0.5) * (fr.right - fr.left)) / n
  for (let s = 0; s < o.series.length; s++) {
    const ser = o.series[s]
    const color = PALETTE[s % PALETTE.length]
    let d = ''
    let pen = false
    for (let i = 0; i < ser.values.length; i++) {
      const v = ser.values[i]
      if (!Number.isFinite(v)) {
        pen = false
        continue
      }
      d += `${pen ? 'L' : 'M'}${f(sx(i))} ${f(fr.sy(v))} `
      pen = true
      fr.parts.push(`<circle cx="${f(sx(i))}" cy="${f(fr.sy(v))}" r="3" fill="${color}"/>`)
    }
    if (d) fr.parts.push(`<path d="${d.trim()}" fill="none" stroke="${color}" stroke-width="2"/>`)
  }
  for (const i of xLabelIndices(o.categories.length)) fr.parts.push(`<text x="${f(sx(i))}" y="${fr.bottom + 16}" text-anchor="middle">${escapeXml(o.categories[i])}</text>`)
  legend(fr, o.series)
  fr.parts.push('</svg>')
  return fr.parts.join('\n') + '\n'
}

export interface ForestRow {
  label: string
  estimate: number
  lo: number
  hi: number
}

/** Horizontal estimate ± interval rows around a zero line (paired differences). */
export function forestChart(o: { title: string; rows: ForestRow[]; xLabel?: string; width?: number }): string {
  const w = o.width ?? 640
  const rowH = 26
  const top = 40
  const h = top + rowH * Math.max(1, o.rows.length) + 44
  const left = 200
  const right = w - 24
  let m = 0
  for (const r of o.rows) for (const v of [r.lo, r.hi, r.estimate]) if (Number.isFinite(v)) m = Math.max(m, Math.abs(v))
  const xm = niceMax(m)
  const sx = (v: number) => left + ((Math.max(-xm, Math.min(xm, v)) + xm) / (2 * xm)) * (right - left)
  const parts: string[] = []
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif" font-size="11">`)
  parts.push(`<rect width="${w}" height="${h}" fill="#ffffff"/>`)
  parts.push(`<text x="${f(w / 2)}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(o.title)}</text>`)
  const yb = top + rowH * Math.max(1, o.rows.length)
  const xticks = Array.from({ length: 5 }, (_, i) => -xm + (2 * xm * i) / 4)
  const xlabels = axisTicks(xticks)
  xticks.forEach((v, i) => {
    parts.push(`<line x1="${f(sx(v))}" y1="${top}" x2="${f(sx(v))}" y2="${yb}" stroke="${v === 0 ? '#333' : '#e5e5e5'}"/>`)
    parts.push(`<text x="${f(sx(v))}" y="${yb + 14}" text-anchor="middle" fill="#555">${xlabels[i]}</text>`)
  })
  o.rows.forEach((r, i) => {
    const y = top + rowH * i + rowH / 2
    const color = r.lo > 0 ? PALETTE[2] : r.hi < 0 ? PALETTE[3] : PALETTE[0]
    parts.push(`<text x="${left - 8}" y="${f(y + 4)}" text-anchor="end">${escapeXml(r.label)}</text>`)
    parts.push(`<line x1="${f(sx(r.lo))}" y1="${f(y)}" x2="${f(sx(r.hi))}" y2="${f(y)}" stroke="${color}" stroke-width="2"/>`)
    parts.push(`<circle cx="${f(sx(r.estimate))}" cy="${f(y)}" r="4" fill="${color}"/>`)
  })
  if (o.xLabel) parts.push(`<text x="${f((left + right) / 2)}" y="${h - 8}" text-anchor="middle">${escapeXml(o.xLabel)}</text>`)
  parts.push('</svg>')
  return parts.join('\n') + '\n'
}
