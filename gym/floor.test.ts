// gym/floor.test: the constant-answer floor on hand-made questions.
import { constantAnswerFloor, relationKey } from './floor'

const simple = (rel: string, answer: string, aliases: string[] = []) => ({
  type: 'simple' as const, hops: 1, answer, aliases,
  meta: { chain: { start: 'x', steps: [{ rel, dir: 'fwd' }], edges: ['e'] }, terminal: { kind: 'entity' } },
})

describe('constantAnswerFloor', () => {
  it('picks per relation the answer that scores best on its group and averages over questions', () => {
    const qs = [
      simple('citizen_of', 'Franconia'), simple('citizen_of', 'Franconia'), simple('citizen_of', 'Elbonia'),
      simple('born_in', 'North Port'), simple('born_in', 'South Port'),
    ]
    const f = constantAnswerFloor(qs)
    expect(f.n).toBe(5)
    const cit = f.groups.find((g) => g.relation.includes('citizen_of'))!
    expect(cit).toMatchObject({ n: 3, answer: 'Franconia', em: 2 / 3, f1: 2 / 3 })
    // "North Port" vs "South Port": F1 1 on itself, 0.5 on the other (the shared word "port"); tie broken by order.
    const born = f.groups.find((g) => g.relation.includes('born_in'))!
    expect(born.answer).toBe('North Port')
    expect(born.f1).toBeCloseTo(0.75, 10)
    expect(born.em).toBeCloseTo(0.5, 10)
    expect(f.f1).toBeCloseTo((2 + 1.5) / 5, 10)
    expect(f.em).toBeCloseTo((2 + 1) / 5, 10)
    // Held out: a Franconia question sees one Franconia and one Elbonia (a tie: 0.5); the Elbonia one sees two
    // Franconias (0). A born_in question sees only the other port: 0.5 (the shared word), EM 0.
    expect(cit.heldF1).toBeCloseTo(1 / 3, 10)
    expect(cit.heldEm).toBeCloseTo(1 / 3, 10)
    expect(born).toMatchObject({ heldF1: 0.5, heldEm: 0 })
    expect(f.heldF1).toBeCloseTo((1 + 1) / 5, 10)
    expect(f.heldEm).toBeCloseTo(1 / 5, 10)
    // A relation asked once: right in the optimistic floor, 0 held out.
    const one = constantAnswerFloor([simple('capital', 'Paris')])
    expect([one.f1, one.heldF1]).toEqual([1, 0])
  })

  it('scores candidates against aliases and keeps relations and directions apart', () => {
    const inv = { ...simple('child_of', 'Ann Lee'), meta: { chain: { start: 'x', steps: [{ rel: 'child_of', dir: 'inv' }] }, terminal: { kind: 'entity' } } }
    expect(relationKey(inv)).not.toBe(relationKey(simple('child_of', 'Ann Lee')))
    const f = constantAnswerFloor([simple('capital', 'Paris', ['City of Paris']), simple('capital', 'City of Paris')])
    expect(f.em).toBe(1)
    expect(constantAnswerFloor([]).f1).toBe(0)
  })
})
