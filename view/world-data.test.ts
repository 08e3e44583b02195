// view/world-data.test: the pure pieces of the viewer's world reads — fact sentences located in a document (each
// occurrence claimed once, missing ones reported), request paging clamped with a 400 on bad values.
import { HttpError } from '../infra/http/errors'
import { docSpans, paging } from './world-data'

describe('docSpans', () => {
  it('cuts the text around each fact sentence, in text order, and rebuilds the text exactly', () => {
    const text = '# A\n\nA was born in B. A wrote C.\n- Born: B\nA was born in B.'
    const { spans, located } = docSpans(text, ['A wrote C.', 'A was born in B.', 'A was born in B.', 'not there'])
    expect(spans.map((s) => s.text).join('')).toBe(text)
    expect(located).toEqual([true, true, true, false])
    expect(spans.filter((s) => s.fact !== undefined).map((s) => s.fact)).toEqual([1, 0, 2])
  })
  it('a sentence stating several facts is marked once and counts for each (a hub\'s list sentence)', () => {
    const text = 'H borders X, Y and Z. H is big.'
    const { spans, located } = docSpans(text, ['H borders X, Y and Z.', 'H borders X, Y and Z.', 'X, Y and Z', 'H is big.'])
    expect(located).toEqual([true, true, true, true])
    expect(spans.map((s) => s.text).join('')).toBe(text)
    expect(spans.filter((s) => s.fact !== undefined).map((s) => s.facts ?? [s.fact])).toEqual([[0, 1, 2], [3]])
  })
  it('leaves a document without facts whole', () => {
    expect(docSpans('plain', []).spans).toEqual([{ text: 'plain' }])
  })
})

describe('paging', () => {
  it('defaults and accepts integers in range', () => {
    expect(paging(undefined, undefined)).toEqual({ offset: 0, limit: 50 })
    expect(paging('10', '200')).toEqual({ offset: 10, limit: 200 })
  })
  it.each([
    ['-1', '5'],
    ['x', '5'],
    ['0', '0'],
    ['0', '201'],
    ['0', '2.5'],
    ['1e300', '5'],
  ])('refuses offset %s limit %s with a 400', (o, l) => {
    expect(() => paging(o, l)).toThrow(HttpError)
    try {
      paging(o, l)
    } catch (e) {
      expect((e as HttpError).status).toBe(400)
    }
  })
})
