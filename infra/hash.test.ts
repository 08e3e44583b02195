import { canonicalJson, ContentHasher, sha256 } from './hash'

test('canonicalJson ignores key order and undefined fields', () => {
  expect(canonicalJson({ b: 1, a: [1, { d: 2, c: undefined }] })).toBe(canonicalJson({ a: [1, { d: 2 }], b: 1 }))
  expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: 2 }))
})

test('ContentHasher is order sensitive and section aware', () => {
  const h = (rows: unknown[]) => { const c = new ContentHasher(); c.section('x'); rows.forEach((r) => c.row(r)); return c.digest() }
  expect(h([1, 2])).toBe(h([1, 2]))
  expect(h([1, 2])).not.toBe(h([2, 1]))
})

// Pinned literals, cross-checked outside Node: `printf 'searchgym' | sha256sum` and
// `printf '\0section:graph\n{"id":"e1","n":1}\n[1,"a"]\n' | sha256sum`. The line format is part of every world's content hash.
test('canonical serialisation and the content hasher are pinned byte for byte', () => {
  expect(canonicalJson({ b: [1, 2.5, 'x'], a: { d: null, c: 'é' } })).toBe('{"a":{"c":"é","d":null},"b":[1,2.5,"x"]}')
  expect(sha256('searchgym')).toBe('d2caffd2d652b59ba43bf3672af7b1a1ba819cb81c3ae014058ad1b15c03d9fd')
  const c = new ContentHasher()
  c.section('graph')
  c.row({ n: 1, id: 'e1' })
  c.row([1, 'a'])
  expect(c.digest()).toBe('f19d294667e73472a14b6f4514db0760f5c3a566fdf8c8f8572526827796c0a2')
})
