import { canonicalJson, ContentHasher } from './hash'

test('canonicalJson ignores key order and undefined fields', () => {
  expect(canonicalJson({ b: 1, a: [1, { d: 2, c: undefined }] })).toBe(canonicalJson({ a: [1, { d: 2 }], b: 1 }))
  expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: 2 }))
})

test('ContentHasher is order sensitive and section aware', () => {
  const h = (rows: unknown[]) => { const c = new ContentHasher(); c.section('x'); rows.forEach((r) => c.row(r)); return c.digest() }
  expect(h([1, 2])).toBe(h([1, 2]))
  expect(h([1, 2])).not.toBe(h([2, 1]))
})
