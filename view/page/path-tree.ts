// view/page/path-tree: a question's path drawn as a tree (SVG) from the server's layout (view/path-tree): the answer
// on the right, each chain a branch reading left to right towards it, edges labelled with their order and relation
// (the arrow is the stored direction), dashed joins where chains meet by a comparison or a value. Clicking an entity
// opens it. Knows the API's PathTreeView shape and nothing else of the page.
import type { PathTreeView } from '../types'

const NS = 'http://www.w3.org/2000/svg'
function svg(tag: string, attrs: Record<string, string | number>, ...children: (Element | string)[]): SVGElement {
  const el = document.createElementNS(NS, tag)
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v))
  el.append(...children)
  return el
}

const short = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s)

export function pathTreeEl(t: PathTreeView, open: (entity: string) => void): HTMLElement {
  const COL = 190
  const ROW = 64
  const P = { l: 70, r: 110, t: 30, b: 30 }
  const maxDepth = Math.max(0, ...t.nodes.map((n) => n.depth))
  const maxRow = Math.max(0, ...t.nodes.map((n) => n.row))
  const W = P.l + P.r + maxDepth * COL
  const H = P.t + P.b + maxRow * ROW
  const at = new Map(t.nodes.map((n) => [n.key, { x: P.l + (maxDepth - n.depth) * COL, y: P.t + n.row * ROW }]))
  const parts: Element[] = [
    svg('defs', {}, svg('marker', { id: 'tree-arrow', viewBox: '0 0 10 10', refX: 18, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, svg('path', { d: 'M0,0L10,5L0,10z', fill: '#e15759' }))),
  ]
  for (const j of t.joins) {
    const a = at.get(j.child)!
    const b = at.get(j.parent)!
    parts.push(
      svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: '#888', 'stroke-width': 1.4, 'stroke-dasharray': '5 4', 'data-join': `${j.child}>${j.parent}` }),
      svg('text', { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 5, 'font-size': 10, 'text-anchor': 'middle', fill: '#666' }, short(j.label, 28)),
    )
  }
  for (const e of t.edges) {
    const a = at.get(e.source)!
    const b = at.get(e.target)!
    const mid = { x: (at.get(e.child)!.x + at.get(e.parent)!.x) / 2, y: (at.get(e.child)!.y + at.get(e.parent)!.y) / 2 }
    parts.push(
      svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: '#e15759', 'stroke-width': e.cross ? 1 : 1.8, 'stroke-dasharray': e.cross ? '2 3' : '', 'marker-end': 'url(#tree-arrow)', 'data-edge': e.key, 'data-child': e.child, 'data-parent': e.parent }, svg('title', {}, `${e.order + 1}. ${e.relation} (${e.key})`)),
      svg('text', { x: mid.x, y: mid.y - 6, 'font-size': 10, 'text-anchor': 'middle', fill: '#b03030' }, `${e.order + 1}. ${short(e.relation, 24)}`),
    )
  }
  for (const n of t.nodes) {
    const p = at.get(n.key)!
    const g = svg('g', { 'data-node': n.key, 'data-role': n.role, 'data-depth': n.depth, 'data-row': n.row, transform: `translate(${p.x},${p.y})`, class: n.role === 'answer' ? 'tree-answer' : 'tree-entity' })
    if (n.role === 'answer') {
      g.append(svg('rect', { x: -8, y: -11, width: 16, height: 22, rx: 3, fill: n.color }), svg('text', { x: 14, y: 4, 'font-size': 12, 'font-weight': 600 }, short(`answer: ${n.label}`, 30)))
    } else {
      g.append(
        svg('circle', { r: 9, fill: n.color, stroke: '#fff', 'stroke-width': 1.5 }),
        svg('text', { y: 24, 'font-size': 11, 'text-anchor': 'middle' }, short(n.label, 26)),
        svg('title', {}, `${n.label} (${n.entityType}) — click to open`),
      )
      g.addEventListener('click', () => open(n.key))
      g.setAttribute('style', 'cursor:pointer')
    }
    parts.push(g)
  }
  const box = document.createElement('div')
  box.className = 'path-tree'
  box.append(svg('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, 'data-testid': 'path-tree' }, ...parts))
  const note = document.createElement('div')
  note.className = 'graph-note'
  note.textContent = `${t.nodes.length - 1} entities, ${t.edges.length} edges — the answer on the right; each branch reads left to right towards it (dashed: where chains meet by a comparison or a value, not an edge)`
  const wrap = document.createElement('div')
  wrap.append(box, note)
  return wrap
}
