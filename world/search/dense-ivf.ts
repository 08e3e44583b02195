// world/search/dense-ivf: an inverted-file (IVF) approximate inner-product index over unit vectors — seeded k-means
// coarse centroids, each vector listed under its nearest centroid, a query scans the nprobe nearest lists. Knows
// nothing of documents: rows are integers; the dense engine maps them to urls and breaks ties.
import { Rng } from '../../infra/rng'

export interface IvfOptions {
  /** Number of lists (default ≈ 2·√n). */
  lists?: number
  /** Lists scanned per query (default ≈ lists/6, at least 4). */
  nprobe?: number
  /** k-means iterations (default 10). */
  iterations?: number
  seed?: number
}

function dot(a: Float32Array, ao: number, b: Float32Array, bo: number, d: number): number {
  let s = 0
  for (let j = 0; j < d; j++) s += a[ao + j] * b[bo + j]
  return s
}

export class IvfIndex {
  readonly lists: number
  nprobe: number
  private readonly centroids: Float32Array
  /** Row ids per list. */
  private readonly members: Int32Array[]

  /** Build over `n` rows of width `d` in `vectors` (row-major). Deterministic for a seed. */
  constructor(
    private readonly vectors: Float32Array,
    private readonly n: number,
    private readonly d: number,
    opts: IvfOptions = {},
  ) {
    const lists = Math.max(1, Math.min(n, opts.lists ?? Math.round(2 * Math.sqrt(n))))
    this.lists = lists
    this.nprobe = Math.min(lists, opts.nprobe ?? Math.max(4, Math.round(lists / 6)))
    const rng = Rng.derive(opts.seed ?? 1, 'ivf')
    const c = new Float32Array(lists * d)
    const start = rng.shuffle([...Array(n).keys()]).slice(0, lists)
    start.forEach((r, i) => c.set(vectors.subarray(r * d, (r + 1) * d), i * d))
    const assign = new Int32Array(n)
    for (let it = 0; it < (opts.iterations ?? 10); it++) {
      for (let r = 0; r < n; r++) assign[r] = this.nearest(c, r)
      const sum = new Float64Array(lists * d)
      const count = new Int32Array(lists)
      for (let r = 0; r < n; r++) {
        const a = assign[r]
        count[a]++
        for (let j = 0; j < d; j++) sum[a * d + j] += vectors[r * d + j]
      }
      for (let i = 0; i < lists; i++) {
        if (count[i] === 0) continue // keeps its old centroid
        let norm = 0
        for (let j = 0; j < d; j++) norm += sum[i * d + j] * sum[i * d + j]
        norm = Math.sqrt(norm) || 1
        for (let j = 0; j < d; j++) c[i * d + j] = sum[i * d + j] / norm // spherical k-means: unit centroids
      }
    }
    for (let r = 0; r < n; r++) assign[r] = this.nearest(c, r)
    const buckets: number[][] = Array.from({ length: lists }, () => [])
    for (let r = 0; r < n; r++) buckets[assign[r]].push(r)
    this.centroids = c
    this.members = buckets.map((b) => Int32Array.from(b))
  }

  private nearest(c: Float32Array, r: number): number {
    let best = 0
    let bs = -Infinity
    for (let i = 0; i < c.length / this.d; i++) {
      const s = dot(c, i * this.d, this.vectors, r * this.d, this.d)
      if (s > bs) {
        bs = s
        best = i
      }
    }
    return best
  }

  /** Candidate rows for a query: the members of its nprobe nearest lists. */
  candidates(q: Float32Array): Int32Array[] {
    const scores: [number, number][] = []
    for (let i = 0; i < this.lists; i++) scores.push([dot(this.centroids, i * this.d, q, 0, this.d), i])
    scores.sort((a, b) => b[0] - a[0] || a[1] - b[1])
    return scores.slice(0, this.nprobe).map(([, i]) => this.members[i])
  }
}
