// tests/helpers/import-graph: the project's import graph (relative imports of every .ts file under the package
// folders) and the boundary rules checked over it: layer direction, cross-package imports only through index.ts,
// no cycles between folders. Plain regex over the source text; knows nothing of TypeScript beyond `import`/`export`.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'

/** Runtime packages, lowest first: a file may import only from its own layer or a lower one. */
export const LAYERS = ['infra', 'world', 'gym', 'agent', 'curriculum', 'bench', 'view'] as const
/** Packages whose surface is their index.ts: another package imports only `<pkg>/index.ts`. */
export const SURFACES = ['infra/engine', 'world', 'gym', 'agent', 'curriculum', 'bench', 'view'] as const
/** Folders scanned (relative to the repository root). */
const ROOTS = ['cli.ts', 'infra', 'world', 'gym', 'agent', 'curriculum', 'bench', 'view', 'tests']

export interface ImportEdge {
  from: string
  to: string
  /** The specifier as written. */
  spec: string
  line: number
}

function listTs(root: string, rel: string, out: string[]): void {
  const abs = join(root, rel)
  let st
  try {
    st = statSync(abs)
  } catch {
    return
  }
  if (st.isFile()) {
    if (rel.endsWith('.ts') && !rel.endsWith('.d.ts')) out.push(rel)
    return
  }
  for (const name of readdirSync(abs)) if (name !== 'node_modules' && !name.startsWith('.')) listTs(root, join(rel, name), out)
}

const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/g

/** Every relative import between .ts files of the project. */
export function importGraph(root: string): { files: string[]; edges: ImportEdge[]; unresolved: ImportEdge[] } {
  const files: string[] = []
  for (const r of ROOTS) listTs(root, r, files)
  const set = new Set(files)
  const edges: ImportEdge[] = []
  const unresolved: ImportEdge[] = []
  for (const f of files) {
    const src = readFileSync(join(root, f), 'utf8')
    for (const m of src.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? m[3]
      const line = src.slice(0, m.index).split('\n').length + (src[m.index] === '\n' ? 1 : 0)
      const base = normalize(join(dirname(f), spec)).replace(/\.(js|ts)$/, '')
      const to = [base + '.ts', join(base, 'index.ts')].find((c) => set.has(c))
      if (to) edges.push({ from: f, to, spec, line })
      else unresolved.push({ from: f, to: base, spec, line })
    }
  }
  return { files, edges, unresolved }
}

/** The bench's measurement scripts (perf, and the GPU engineers' parity/gpu checks): run by hand, imported by nobody. */
export function isMeasurement(file: string): boolean {
  return file.startsWith('bench/perf/') || file.startsWith('bench/parity/') || file.startsWith('bench/gpu/')
}

/** Tests, contract suites and measurement scripts: leaves that may reach any package's internals; nothing runtime imports them. */
export function isLeaf(file: string): boolean {
  return file.startsWith('tests/') || isMeasurement(file) || file.endsWith('.test.ts') || file.endsWith('.contract.ts')
}

/** The package a file belongs to ('infra/engine' is its own surface inside the infra layer); undefined for cli.ts. */
export function packageOf(file: string): string | undefined {
  if (file.startsWith('infra/engine/')) return 'infra/engine'
  const top = file.split('/')[0]
  return file.includes('/') ? top : undefined
}

function layerOf(file: string): number {
  const p = packageOf(file)
  if (p === undefined) return LAYERS.length // the root cli.ts composes every package
  if (p === 'tests') return LAYERS.length + 1
  return LAYERS.indexOf((p === 'infra/engine' ? 'infra' : p) as (typeof LAYERS)[number])
}

const show = (e: ImportEdge) => `${e.from}:${e.line} imports '${e.spec}' (${e.to})`

/** Imports from a lower layer to a higher one (tests/perf included: nothing may import them but other leaves). */
export function upwardImports(edges: ImportEdge[]): string[] {
  const bad: string[] = []
  for (const e of edges) {
    if (isLeaf(e.to) && !isLeaf(e.from)) bad.push(`${show(e)}: runtime code imports a test, contract suite or perf script`)
    else if (isMeasurement(e.from) && e.to.startsWith('tests/')) bad.push(`${show(e)}: a measurement script imports from tests/ (put shared helpers in bench/perf/)`)
    else if (!isLeaf(e.from) && layerOf(e.to) > layerOf(e.from)) bad.push(`${show(e)}: ${packageOf(e.from) ?? 'cli.ts'} is below ${packageOf(e.to)}`)
  }
  return bad
}

/** Cross-package imports of runtime code that do not go through the target package's index.ts. */
export function deepImports(edges: ImportEdge[]): string[] {
  const bad: string[] = []
  for (const e of edges) {
    if (isLeaf(e.from)) continue
    const pf = packageOf(e.from)
    const pt = packageOf(e.to)
    if (pt === undefined || pf === pt) continue
    // infra's top-level utilities (errors, rng, store, hash, config, cli-util, progress) are single-file modules
    if (pt === 'infra') continue
    if (e.to !== `${pt}/index.ts`) bad.push(`${show(e)}: import from '${pt}/index.ts' instead`)
  }
  return bad
}

/**
 * Cycles in the graph of folders (a folder = the directory of a file). Left out: leaves, index.ts re-exports, and
 * edges between a folder and its own ancestor (a package's top-level files compose its sub-folders, which share its
 * types) — cycles between sibling folders, and across packages, are what count.
 */
export function folderCycles(edges: ImportEdge[]): string[] {
  const adj = new Map<string, Map<string, ImportEdge>>()
  for (const e of edges) {
    if (isLeaf(e.from) || isLeaf(e.to) || e.from.endsWith('/index.ts')) continue
    const a = dirname(e.from)
    const b = dirname(e.to)
    if (a === b || a.startsWith(b + '/') || b.startsWith(a + '/')) continue
    if (!adj.has(a)) adj.set(a, new Map())
    if (!adj.get(a)!.has(b)) adj.get(a)!.set(b, e)
  }
  // Tarjan's strongly connected components; every component with more than one folder is a cycle
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const on = new Set<string>()
  const comps: string[][] = []
  const nodes = [...new Set([...adj.keys(), ...[...adj.values()].flatMap((m) => [...m.keys()])])].sort()
  const visit = (v: string): void => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    on.add(v)
    for (const w of adj.get(v)?.keys() ?? []) {
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = []
      let w: string
      do {
        w = stack.pop()!
        on.delete(w)
        c.push(w)
      } while (w !== v)
      if (c.length > 1) comps.push(c.sort())
    }
  }
  for (const n of nodes) if (!idx.has(n)) visit(n)
  const bad: string[] = []
  for (const c of comps) {
    const inC = new Set(c)
    const links = c.flatMap((a) => [...(adj.get(a) ?? new Map<string, ImportEdge>()).entries()].filter(([b]) => inC.has(b)).map(([, e]) => `    ${show(e)}`))
    bad.push(`folders ${c.join(' <-> ')} import each other:\n${links.join('\n')}`)
  }
  return bad
}

/** Repository-relative path of an absolute one (for messages). */
export const rel = (root: string, p: string) => relative(root, p)
