// view/path-tree: a question's path as a tree rooted at its answer — each chain of the question's meta (Simple: one;
// Parallel: two, joined at the answer; Combo: part 1's chains feed part 2 through a comparison or a value, then part
// 2's chain reaches the answer) becomes a branch, walked from its end back to its start. Path edges are tree edges;
// the links that are not edges (a comparison, a value match, an answer read off an entity) are `joins`. Laid out
// with the root on the right, depth as the column and leaves on their own rows (parents centred on their children).
// Pure: knows the meta's chain shapes and an edge lookup, nothing of the database or the page.

export interface TreeEdgeRef {
  source: string
  target: string
  relation: string
}

export interface PathTreeLayout {
  /** Entity nodes (and the answer root, key ROOT) with their column (0 = the root's) and row. */
  nodes: { key: string; depth: number; row: number; role: 'answer' | 'end' | 'start' | 'inner' }[]
  /** Path edges: from the node farther from the root (child) to the nearer one (parent); order is the path index. */
  edges: { key: string; child: string; parent: string; order: number; /** Not a tree edge (it closes a cycle): drawn between its ends. */ cross?: boolean }[]
  /** Links that are not world edges: why the child leads to the parent. */
  joins: { child: string; parent: string; label: string }[]
}

export const ROOT = '__answer__'

interface ChainLike {
  start?: string
  edges?: string[]
  steps?: { dir?: string }[]
}

/** The entities a chain visits, start first (each next one is the other end of the next edge). */
function walk(start: string, edges: string[], edge: (id: string) => TreeEdgeRef | undefined): string[] | null {
  const nodes = [start]
  for (const id of edges) {
    const e = edge(id)
    const cur = nodes[nodes.length - 1]
    if (!e || (e.source !== cur && e.target !== cur)) return null
    nodes.push(e.source === cur ? e.target : e.source)
  }
  return nodes
}

/** Where a continuation starts: the first edge's source (fwd) or target (inv). */
function contStart(c: ChainLike, edge: (id: string) => TreeEdgeRef | undefined): string | null {
  const e = c.edges?.length ? edge(c.edges[0]) : undefined
  if (!e) return null
  return c.steps?.[0]?.dir === 'inv' ? e.target : e.source
}

export function pathTree(path: string[], meta: Record<string, unknown>, edge: (id: string) => TreeEdgeRef | undefined): PathTreeLayout {
  const parent = new Map<string, { parent: string; edge?: string; join?: string }>()
  const order = new Map(path.map((id, i) => [id, i]))
  /** Hang a chain (start … end) under `top`: end → top by `join`, then each node under the next. */
  const hang = (nodes: string[], edges: string[], top: string, join: string) => {
    const end = nodes[nodes.length - 1]
    if (!parent.has(end) && end !== top) parent.set(end, { parent: top, join })
    for (let i = nodes.length - 2; i >= 0; i--) if (!parent.has(nodes[i]) && nodes[i] !== top) parent.set(nodes[i], { parent: nodes[i + 1], edge: edges[i] })
  }
  const chainOf = (c: unknown): { nodes: string[]; edges: string[] } | null => {
    const x = c as ChainLike | undefined
    if (!x || typeof x.start !== 'string' || !Array.isArray(x.edges)) return null
    const nodes = walk(x.start, x.edges, edge)
    return nodes ? { nodes, edges: x.edges } : null
  }
  const m = meta as Record<string, unknown>
  const p1 = m.part1 as Record<string, unknown> | undefined
  let ok = false
  if (m.chain) {
    // Simple: one chain to the answer.
    const c = chainOf(m.chain)
    if (c) (hang(c.nodes, c.edges, ROOT, 'answer'), (ok = true))
  } else if (m.a && m.b && !p1) {
    // Parallel: two chains, the answer from both ends.
    const a = chainOf(m.a)
    const b = chainOf(m.b)
    if (a && b) (hang(a.nodes, a.edges, ROOT, String(m.op ?? 'answer')), hang(b.nodes, b.edges, ROOT, String(m.op ?? 'answer')), (ok = true))
  } else if (p1 && m.part2) {
    // Combo: part 2's chain to the answer, part 1 hung under part 2's start.
    const p2 = m.part2 as ChainLike
    const s2 = contStart(p2, edge)
    const c2 = s2 ? walk(s2, p2.edges ?? [], edge) : null
    const part1Chains = m.kind === 'compare-chain' ? [chainOf(p1.a), chainOf(p1.b)] : [chainOf(p1.chain)]
    if (c2 && part1Chains.every(Boolean)) {
      hang(c2, p2.edges ?? [], ROOT, 'answer')
      const top = c2[0]
      const label = m.kind === 'compare-chain' ? `${String(p1.order)} ${String(p1.attr)}` : `${String(p1.attr)} = ${(m.pick as { attr?: string } | undefined)?.attr ?? 'value'}`
      for (const c of part1Chains) hang(c!.nodes, c!.edges, top, label)
      ok = true
    }
  }
  if (!ok) {
    // No readable meta: a breadth-first tree from the last edge's far end.
    parent.clear()
    const adj = new Map<string, { to: string; id: string }[]>()
    for (const id of path) {
      const e = edge(id)
      if (!e) continue
      adj.set(e.source, [...(adj.get(e.source) ?? []), { to: e.target, id }])
      adj.set(e.target, [...(adj.get(e.target) ?? []), { to: e.source, id }])
    }
    for (let i = path.length - 1; i >= 0; i--) {
      const e = edge(path[i])
      if (!e) continue
      for (const r of [e.target, e.source]) {
        if (parent.has(r)) continue
        parent.set(r, { parent: ROOT, join: 'answer' })
        const queue = [r]
        while (queue.length) {
          const n = queue.shift()!
          for (const x of adj.get(n) ?? []) if (!parent.has(x.to)) (parent.set(x.to, { parent: n, edge: x.id }), queue.push(x.to))
        }
      }
    }
  }
  // Layout: depth from the root, rows by a depth-first walk (children in path order), parents centred.
  const children = new Map<string, string[]>()
  for (const [c, p] of parent) children.set(p.parent, [...(children.get(p.parent) ?? []), c])
  const rank = (c: string) => {
    const p = parent.get(c)!
    return p.edge !== undefined ? (order.get(p.edge) ?? 0) : -1
  }
  for (const cs of children.values()) cs.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1))
  const nodes: PathTreeLayout['nodes'] = []
  let next = 0
  const place = (n: string, depth: number): number => {
    const cs = children.get(n) ?? []
    const rows = cs.map((c) => place(c, depth + 1))
    const row = rows.length ? (rows[0] + rows[rows.length - 1]) / 2 : next++
    const role = n === ROOT ? 'answer' : parent.get(n)?.parent === ROOT ? 'end' : cs.length === 0 ? 'start' : 'inner'
    nodes.push({ key: n, depth, row, role })
    return row
  }
  place(ROOT, 0)
  nodes.sort((a, b) => a.depth - b.depth || a.row - b.row)
  const edges: PathTreeLayout['edges'] = []
  const joins: PathTreeLayout['joins'] = []
  for (const [c, p] of parent) {
    if (p.edge !== undefined) edges.push({ key: p.edge, child: c, parent: p.parent, order: order.get(p.edge) ?? 0 })
    else joins.push({ child: c, parent: p.parent, label: p.join ?? '' })
  }
  const placed = new Set(nodes.map((n) => n.key))
  for (const id of new Set(path)) {
    const e = edge(id)
    if (!e || edges.some((x) => x.key === id) || !placed.has(e.source) || !placed.has(e.target)) continue
    edges.push({ key: id, child: e.source, parent: e.target, order: order.get(id) ?? 0, cross: true })
  }
  edges.sort((a, b) => a.order - b.order)
  return { nodes, edges, joins }
}
