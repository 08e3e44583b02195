// infra/engine/safetensors: read and write the safetensors format (8-byte little-endian header length, JSON
// header, raw little-endian data) and Hugging Face sharded checkpoints (model.safetensors.index.json).
// Tensors load as Float32Array whatever their stored dtype (F32, F16, BF16). It does not know model names.
import { closeSync, existsSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../errors'

export type StoredDtype = 'F32' | 'F16' | 'BF16'

/** A host tensor: row-major data and its shape. */
export interface HostTensor {
  shape: number[]
  data: Float32Array
}

export interface HeaderEntry {
  dtype: string
  shape: number[]
  data_offsets: [number, number]
}

const BYTES: Record<StoredDtype, number> = { F32: 4, F16: 2, BF16: 2 }

export function bf16ToF32(bits: number): number {
  F32_VIEW_U32[0] = (bits & 0xffff) << 16
  return F32_VIEW[0]
}

const F32_VIEW = new Float32Array(1)
const F32_VIEW_U32 = new Uint32Array(F32_VIEW.buffer)

/** Round-to-nearest-even float32 → bfloat16 bits (NaN stays NaN). */
export function f32ToBf16(x: number): number {
  F32_VIEW[0] = x
  const u = F32_VIEW_U32[0]
  if ((u & 0x7f800000) === 0x7f800000 && (u & 0x7fffff) !== 0) return ((u >>> 16) | 0x40) & 0xffff
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff
}

export function f16ToF32(h: number): number {
  const s = h & 0x8000 ? -1 : 1
  const e = (h >>> 10) & 0x1f
  const m = h & 0x3ff
  if (e === 0) return s * m * 2 ** -24
  if (e === 31) return m === 0 ? s * Infinity : NaN
  return s * (1 + m / 1024) * 2 ** (e - 15)
}

/** float32 → float16 bits, round to nearest even, overflow to infinity. */
export function f32ToF16(x: number): number {
  F32_VIEW[0] = x
  const u = F32_VIEW_U32[0]
  const sign = (u >>> 16) & 0x8000
  const exp = (u >>> 23) & 0xff
  let mant = u & 0x7fffff
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0)
  let e = exp - 127 + 15
  if (e >= 31) return sign | 0x7c00
  if (e <= 0) {
    if (e < -10) return sign
    mant |= 0x800000
    const shift = 14 - e
    const half = 1 << (shift - 1)
    let r = mant >>> shift
    const rem = mant & ((1 << shift) - 1)
    if (rem > half || (rem === half && r & 1)) r++
    return sign | r
  }
  let r = mant >>> 13
  const rem = mant & 0x1fff
  if (rem > 0x1000 || (rem === 0x1000 && r & 1)) {
    r++
    if (r === 0x400) {
      r = 0
      e++
      if (e >= 31) return sign | 0x7c00
    }
  }
  return sign | (e << 10) | r
}

function decode(bytes: Buffer, dtype: string, count: number, name: string, file: string): Float32Array {
  const out = new Float32Array(count)
  if (dtype === 'F32') {
    const copy = new Uint8Array(count * 4)
    copy.set(bytes.subarray(0, count * 4))
    return new Float32Array(copy.buffer)
  }
  if (dtype === 'BF16') {
    const u32 = new Uint32Array(out.buffer)
    for (let i = 0; i < count; i++) u32[i] = bytes.readUInt16LE(2 * i) << 16
    return out
  }
  if (dtype === 'F16') {
    for (let i = 0; i < count; i++) out[i] = f16ToF32(bytes.readUInt16LE(2 * i))
    return out
  }
  throw new EngineError('engine.safetensors_dtype', `${file}: tensor '${name}' has dtype ${dtype}; only F32, F16 and BF16 are supported`)
}

/** The header of one safetensors file (tensor entries and the string metadata). */
export function readSafetensorsHeader(file: string): {
  entries: Record<string, HeaderEntry>
  metadata: Record<string, string>
  dataStart: number
} {
  if (!existsSync(file)) throw new EngineError('engine.safetensors_missing', `no such safetensors file: ${file}`)
  const fd = openSync(file, 'r')
  try {
    const lenBuf = Buffer.alloc(8)
    if (readSync(fd, lenBuf, 0, 8, 0) !== 8) throw new EngineError('engine.safetensors', `${file}: too short to be safetensors`)
    const len = Number(lenBuf.readBigUInt64LE(0))
    if (len > 100_000_000) throw new EngineError('engine.safetensors', `${file}: header length ${len} is implausible; not a safetensors file?`)
    const headerBuf = Buffer.alloc(len)
    readSync(fd, headerBuf, 0, len, 8)
    let parsed: Record<string, unknown>
    try {
      parsed = JSON.parse(headerBuf.toString('utf8'))
    } catch (err) {
      throw new EngineError('engine.safetensors', `${file}: header is not valid JSON`, { cause: err })
    }
    const metadata = (parsed.__metadata__ ?? {}) as Record<string, string>
    const entries: Record<string, HeaderEntry> = {}
    for (const [k, v] of Object.entries(parsed)) if (k !== '__metadata__') entries[k] = v as HeaderEntry
    return { entries, metadata, dataStart: 8 + len }
  } finally {
    closeSync(fd)
  }
}

/** Read tensors of one file (all, or the names given) as Float32 host tensors. */
export function readSafetensors(file: string, names?: readonly string[]): { tensors: Map<string, HostTensor>; metadata: Record<string, string> } {
  const { entries, metadata, dataStart } = readSafetensorsHeader(file)
  const wanted = names ?? Object.keys(entries).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const tensors = new Map<string, HostTensor>()
  const fd = openSync(file, 'r')
  try {
    for (const name of wanted) {
      const e = Object.hasOwn(entries, name) ? entries[name] : undefined
      if (!e) throw new EngineError('engine.safetensors_name', `${file}: no tensor named '${name}'`)
      const count = e.shape.reduce((a, b) => a * b, 1)
      const [begin, end] = e.data_offsets
      const width = BYTES[e.dtype as StoredDtype]
      if (width === undefined) decode(Buffer.alloc(0), e.dtype, 0, name, file)
      if (end - begin !== count * width)
        throw new EngineError('engine.safetensors', `${file}: tensor '${name}' byte range ${end - begin} does not match shape [${e.shape}] ${e.dtype}`)
      const buf = Buffer.alloc(end - begin)
      let got = 0
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, dataStart + begin + got)
        if (n <= 0) throw new EngineError('engine.safetensors', `${file}: truncated data for tensor '${name}'`)
        got += n
      }
      tensors.set(name, { shape: e.shape.slice(), data: decode(buf, e.dtype, count, name, file) })
    }
  } finally {
    closeSync(fd)
  }
  return { tensors, metadata }
}

/** Write tensors (names sorted, so the bytes depend only on the content) in the stored dtype chosen. */
export function writeSafetensors(
  file: string,
  tensors: ReadonlyMap<string, HostTensor> | Record<string, HostTensor>,
  options: { dtype?: StoredDtype; metadata?: Record<string, string> } = {},
): void {
  const dtype = options.dtype ?? 'F32'
  const map: ReadonlyMap<string, HostTensor> = tensors instanceof Map ? tensors : new Map(Object.entries(tensors as Record<string, HostTensor>))
  const names = [...map.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const header: Record<string, unknown> = {}
  if (options.metadata) header.__metadata__ = options.metadata
  let offset = 0
  for (const name of names) {
    const t = map.get(name)!
    const count = t.shape.reduce((a: number, b: number) => a * b, 1)
    if (count !== t.data.length) throw new EngineError('engine.safetensors', `tensor '${name}': shape [${t.shape}] does not match ${t.data.length} values`)
    const bytes = count * BYTES[dtype]
    header[name] = { dtype, shape: t.shape, data_offsets: [offset, offset + bytes] }
    offset += bytes
  }
  let headerStr = JSON.stringify(header)
  while ((8 + Buffer.byteLength(headerStr)) % 8 !== 0) headerStr += ' '
  const headerBytes = Buffer.from(headerStr, 'utf8')
  const out = Buffer.alloc(8 + headerBytes.length + offset)
  out.writeBigUInt64LE(BigInt(headerBytes.length), 0)
  headerBytes.copy(out, 8)
  let pos = 8 + headerBytes.length
  for (const name of names) {
    const d = map.get(name)!.data
    if (dtype === 'F32') {
      Buffer.from(d.buffer, d.byteOffset, d.byteLength).copy(out, pos)
      pos += d.byteLength
    } else {
      const conv = dtype === 'BF16' ? f32ToBf16 : f32ToF16
      for (let i = 0; i < d.length; i++, pos += 2) out.writeUInt16LE(conv(d[i]), pos)
    }
  }
  writeFileSync(file, out)
}

/**
 * All tensors of a Hugging Face checkpoint directory: model.safetensors, or the shards listed in
 * model.safetensors.index.json.
 */
export function readCheckpoint(dir: string): Map<string, HostTensor> {
  const index = join(dir, 'model.safetensors.index.json')
  if (existsSync(index)) {
    let weightMap: Record<string, string>
    try {
      weightMap = JSON.parse(readFileSync(index, 'utf8')).weight_map
    } catch (err) {
      throw new EngineError('engine.safetensors_index', `${index} is not a valid index file`, { cause: err })
    }
    if (!weightMap || typeof weightMap !== 'object') throw new EngineError('engine.safetensors_index', `${index} has no weight_map`)
    const byFile = new Map<string, string[]>()
    for (const name of Object.keys(weightMap).sort()) {
      const f = weightMap[name]
      if (!byFile.has(f)) byFile.set(f, [])
      byFile.get(f)!.push(name)
    }
    const all = new Map<string, HostTensor>()
    for (const [f, names] of [...byFile.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)))
      for (const [k, v] of readSafetensors(join(dir, f), names).tensors) all.set(k, v)
    return all
  }
  const single = join(dir, 'model.safetensors')
  if (!existsSync(single))
    throw new EngineError('engine.safetensors_missing', `no model.safetensors or model.safetensors.index.json in ${dir}`)
  return readSafetensors(single).tensors
}

/** Write a checkpoint, split into shards of at most maxShardBytes (with an index file) when it is larger. */
export function writeCheckpoint(dir: string, tensors: ReadonlyMap<string, HostTensor>, options: { dtype?: StoredDtype; maxShardBytes?: number } = {}): void {
  const dtype = options.dtype ?? 'F32'
  const max = options.maxShardBytes ?? Infinity
  const names = [...tensors.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const shards: string[][] = [[]]
  let size = 0
  let total = 0
  for (const n of names) {
    const bytes = tensors.get(n)!.data.length * BYTES[dtype]
    if (size > 0 && size + bytes > max) {
      shards.push([])
      size = 0
    }
    shards[shards.length - 1].push(n)
    size += bytes
    total += bytes
  }
  const meta = { format: 'pt' }
  if (shards.length === 1) {
    writeSafetensors(join(dir, 'model.safetensors'), tensors, { dtype, metadata: meta })
    return
  }
  const weightMap: Record<string, string> = {}
  shards.forEach((shard, i) => {
    const file = `model-${String(i + 1).padStart(5, '0')}-of-${String(shards.length).padStart(5, '0')}.safetensors`
    writeSafetensors(join(dir, file), new Map(shard.map((n) => [n, tensors.get(n)!])), { dtype, metadata: meta })
    for (const n of shard) weightMap[n] = file
  })
  writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({ metadata: { total_size: total }, weight_map: weightMap }, null, 2) + '\n')
}
