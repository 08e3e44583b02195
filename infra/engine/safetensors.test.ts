// infra/engine/safetensors.test: format details — dtype conversions, alignment, round trips, bad input.
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bf16ToF32, f16ToF32, f32ToBf16, f32ToF16, readSafetensors, readSafetensorsHeader, writeSafetensors } from './safetensors'

const tmp = mkdtempSync(join(tmpdir(), 'safetensors-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

test('bf16: known bit patterns and round-to-nearest-even', () => {
  expect(f32ToBf16(1)).toBe(0x3f80)
  expect(f32ToBf16(-2)).toBe(0xc000)
  expect(bf16ToF32(0x3f80)).toBe(1)
  // 1 + 2^-8 is exactly halfway between two bf16 values: ties go to the even mantissa (1.0).
  expect(f32ToBf16(1 + 2 ** -8)).toBe(0x3f80)
  expect(f32ToBf16(1 + 3 * 2 ** -8)).toBe(0x3f82)
  expect(Number.isNaN(bf16ToF32(f32ToBf16(NaN)))).toBe(true)
})

test('f16: every half value survives f16 → f32 → f16', () => {
  const wrong: number[] = []
  for (let h = 0; h < 0x10000; h++) {
    const x = f16ToF32(h)
    if (!Number.isNaN(x) && f32ToF16(x) !== h) wrong.push(h)
  }
  expect(wrong).toEqual([])
  expect(f16ToF32(0x3c00)).toBe(1)
  expect(f32ToF16(1e6)).toBe(0x7c00)
})

test('write → read round-trips F32 exactly, BF16/F16 to their rounding; header is 8-byte aligned and sorted', () => {
  const a = { shape: [2, 3], data: Float32Array.from([0.1, -2.5, 3, 1e-3, 7, -0]) }
  const b = { shape: [4], data: Float32Array.from([1, 2, 3, 4]) }
  const f = join(tmp, 'x.safetensors')
  writeSafetensors(f, { zeta: a, alpha: b }, { metadata: { format: 'pt' } })
  const buf = readFileSync(f)
  expect(Number(buf.readBigUInt64LE(0)) % 8).toBe(0)
  const h = readSafetensorsHeader(f)
  expect(Object.keys(h.entries)).toEqual(['alpha', 'zeta'])
  expect(h.metadata).toEqual({ format: 'pt' })
  const back = readSafetensors(f).tensors
  expect(Array.from(back.get('zeta')!.data)).toEqual(Array.from(a.data))
  expect(back.get('zeta')!.shape).toEqual([2, 3])
  for (const dtype of ['BF16', 'F16'] as const) {
    writeSafetensors(join(tmp, dtype), { a }, { dtype })
    const got = readSafetensors(join(tmp, dtype)).tensors.get('a')!.data
    const conv = dtype === 'BF16' ? (x: number) => bf16ToF32(f32ToBf16(x)) : (x: number) => f16ToF32(f32ToF16(x))
    expect(Array.from(got)).toEqual(Array.from(a.data, conv))
  }
})

test('unsupported dtypes, missing names and garbage files fail with a clear message', () => {
  const header = Buffer.from(JSON.stringify({ ids: { dtype: 'I64', shape: [1], data_offsets: [0, 8] } }))
  const len = Buffer.alloc(8)
  len.writeBigUInt64LE(BigInt(header.length))
  writeFileSync(join(tmp, 'i64'), Buffer.concat([len, header, Buffer.alloc(8)]))
  expect(() => readSafetensors(join(tmp, 'i64'))).toThrow(/I64; only F32, F16 and BF16/)
  writeSafetensors(join(tmp, 'ok'), { a: { shape: [1], data: Float32Array.of(1) } })
  expect(() => readSafetensors(join(tmp, 'ok'), ['b'])).toThrow(/no tensor named 'b'/)
  writeFileSync(join(tmp, 'junk'), 'definitely not safetensors')
  expect(() => readSafetensors(join(tmp, 'junk'))).toThrow(/safetensors/)
  expect(() => readSafetensors(join(tmp, 'nope'))).toThrow(/no such safetensors file/)
})
