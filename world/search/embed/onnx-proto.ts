// world/search/embed/onnx-proto: a minimal ONNX protobuf writer (ModelProto with one graph of nodes, float/int64
// initializers and typed inputs/outputs) — enough to write small test and benchmark models from TypeScript.
// Hand-encoded protobuf wire format; field numbers from onnx/onnx.proto. Knows nothing of embedders.

/** ONNX TensorProto.DataType values used here. */
export const ONNX_FLOAT = 1
export const ONNX_INT64 = 7

export type OnnxAttr = { name: string; int: number } | { name: string; ints: number[] } | { name: string; float: number }

export interface OnnxNode {
  op: string
  inputs: string[]
  outputs: string[]
  name?: string
  attrs?: OnnxAttr[]
}

export interface OnnxInitializer {
  name: string
  dims: number[]
  /** Float32Array → FLOAT, BigInt64Array → INT64. */
  data: Float32Array | BigInt64Array
}

export interface OnnxValueInfo {
  name: string
  elemType: number
  /** A number is a fixed size, a string a symbolic one ('batch', 'sequence'). */
  shape: (number | string)[]
}

export interface OnnxGraph {
  name: string
  nodes: OnnxNode[]
  initializers: OnnxInitializer[]
  inputs: OnnxValueInfo[]
  outputs: OnnxValueInfo[]
  opset?: number
  producer?: string
}

class Writer {
  private parts: Uint8Array[] = []
  private len = 0

  private push(b: Uint8Array): void {
    this.parts.push(b)
    this.len += b.length
  }

  private varint(v: bigint): void {
    let x = BigInt.asUintN(64, v)
    const out: number[] = []
    do {
      let byte = Number(x & 0x7fn)
      x >>= 7n
      if (x !== 0n) byte |= 0x80
      out.push(byte)
    } while (x !== 0n)
    this.push(Uint8Array.from(out))
  }

  private tag(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire))
  }

  int(field: number, v: number | bigint): this {
    this.tag(field, 0)
    this.varint(BigInt(v))
    return this
  }

  float(field: number, v: number): this {
    this.tag(field, 5)
    const b = new Uint8Array(4)
    new DataView(b.buffer).setFloat32(0, v, true)
    this.push(b)
    return this
  }

  bytes(field: number, b: Uint8Array): this {
    this.tag(field, 2)
    this.varint(BigInt(b.length))
    this.push(b)
    return this
  }

  string(field: number, s: string): this {
    return this.bytes(field, new TextEncoder().encode(s))
  }

  message(field: number, w: Writer): this {
    return this.bytes(field, w.finish())
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.len)
    let o = 0
    for (const p of this.parts) {
      out.set(p, o)
      o += p.length
    }
    return out
  }
}

function attribute(a: OnnxAttr): Writer {
  const w = new Writer().string(1, a.name)
  // AttributeProto: f=2, i=3, ints=8, type=20 (FLOAT=1, INT=2, INTS=7).
  if ('float' in a) return w.float(2, a.float).int(20, 1)
  if ('int' in a) return w.int(3, a.int).int(20, 2)
  for (const v of a.ints) w.int(8, v)
  return w.int(20, 7)
}

function node(n: OnnxNode, i: number): Writer {
  const w = new Writer()
  for (const s of n.inputs) w.string(1, s)
  for (const s of n.outputs) w.string(2, s)
  w.string(3, n.name ?? `${n.op}_${i}`)
  w.string(4, n.op)
  for (const a of n.attrs ?? []) w.message(5, attribute(a))
  return w
}

function tensor(t: OnnxInitializer): Writer {
  const w = new Writer()
  for (const d of t.dims) w.int(1, d)
  const isFloat = t.data instanceof Float32Array
  w.int(2, isFloat ? ONNX_FLOAT : ONNX_INT64)
  w.string(8, t.name)
  // raw_data is little-endian; Node's typed arrays are little-endian on every platform Node ships for.
  w.bytes(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength))
  return w
}

function valueInfo(v: OnnxValueInfo): Writer {
  const shape = new Writer()
  for (const d of v.shape) shape.message(1, typeof d === 'number' ? new Writer().int(1, d) : new Writer().string(2, d))
  const tensorType = new Writer().int(1, v.elemType).message(2, shape)
  return new Writer().string(1, v.name).message(2, new Writer().message(1, tensorType))
}

/** The bytes of an .onnx file holding `g` (IR version 8, default-domain opset `g.opset` or 13). */
export function encodeOnnxModel(g: OnnxGraph): Uint8Array {
  const graph = new Writer()
  g.nodes.forEach((n, i) => graph.message(1, node(n, i)))
  graph.string(2, g.name)
  for (const t of g.initializers) graph.message(5, tensor(t))
  for (const v of g.inputs) graph.message(11, valueInfo(v))
  for (const v of g.outputs) graph.message(12, valueInfo(v))
  return new Writer()
    .int(1, 8)
    .string(2, g.producer ?? 'searchgym')
    .message(7, graph)
    .message(8, new Writer().string(1, '').int(2, g.opset ?? 13))
    .finish()
}
