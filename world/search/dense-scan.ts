// world/search/dense-scan: the exact inner-product scan of the dense engine as one ONNX Gemm (onnxruntime's MLAS
// sgemm) — scores of a batch of queries against every passage, [queries, dim] · [passages, dim]ᵀ. Tens of times faster
// than a JavaScript loop, so verifying every edge of a world with the dense engine takes seconds, not minutes.
import { encodeOnnxModel, ONNX_FLOAT } from './embed/onnx-proto'

type Ort = typeof import('onnxruntime-node')
type Session = import('onnxruntime-node').InferenceSession

/** Queries per Gemm (bounds the score matrix to ~batch × passages floats). */
const BATCH = 256

export class DenseScanner {
  private constructor(
    private readonly ort: Ort,
    private readonly session: Session,
    readonly rows: number,
    readonly dim: number,
  ) {}

  /** A scanner over `rows` passage vectors of width `dim` (row-major, copied into the model). */
  static async create(matrix: Float32Array, rows: number, dim: number, threads = 1): Promise<DenseScanner> {
    const ort = (await import('onnxruntime-node')) as Ort
    const model = encodeOnnxModel({
      name: 'searchgym-dense-scan',
      inputs: [{ name: 'queries', elemType: ONNX_FLOAT, shape: ['batch', dim] }],
      outputs: [{ name: 'scores', elemType: ONNX_FLOAT, shape: ['batch', rows] }],
      initializers: [{ name: 'passages', dims: [rows, dim], data: matrix.subarray(0, rows * dim) }],
      nodes: [{ op: 'Gemm', inputs: ['queries', 'passages'], outputs: ['scores'], attrs: [{ name: 'transB', int: 1 }] }],
    })
    const session = await ort.InferenceSession.create(model, { executionProviders: ['cpu'], intraOpNumThreads: threads, interOpNumThreads: 1 })
    return new DenseScanner(ort, session, rows, dim)
  }

  /** Scores of each query against every passage (one Float32Array of `rows` per query). */
  async scores(queries: Float32Array[]): Promise<Float32Array[]> {
    const out: Float32Array[] = []
    for (let i = 0; i < queries.length; i += BATCH) {
      const part = queries.slice(i, i + BATCH)
      const q = new Float32Array(part.length * this.dim)
      part.forEach((v, j) => q.set(v, j * this.dim))
      const res = await this.session.run({ queries: new this.ort.Tensor('float32', q, [part.length, this.dim]) })
      const s = res.scores.data as Float32Array
      for (let j = 0; j < part.length; j++) out.push(s.slice(j * this.rows, (j + 1) * this.rows))
    }
    return out
  }

  async close(): Promise<void> {
    await this.session.release()
  }
}
