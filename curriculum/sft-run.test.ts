// curriculum/sft-run.test: the pure parts of one mixed SFT — the --mix parser, the round-robin draw across a pool's
// worlds and the fact drill's observation (a page cut to its title and the evidence sentence it holds).
import { factObservation, parseSftMix, roundRobin } from './sft-run'

test('--mix parses KIND[=WEIGHT] lists and refuses unknown kinds, bad weights and an all-zero mix', () => {
  expect(parseSftMix('demo=1, answer=2.5,read')).toEqual({ demo: 1, answer: 2.5, read: 1 })
  expect(parseSftMix('demo=0,fact=3')).toEqual({ demo: 0, fact: 3 })
  expect(() => parseSftMix('demo=1,copy=2')).toThrow(/'copy=2' is not KIND or KIND=WEIGHT/)
  expect(() => parseSftMix('demo=x')).toThrow(/the weight of demo must be a number in \[0, 1000\]/)
  expect(() => parseSftMix('demo=0')).toThrow(/no kind a weight > 0/)
  expect(() => parseSftMix('')).toThrow(/no kind a weight > 0/)
})

test('roundRobin takes the first of every group, then the second, keeping each group\'s order', () => {
  const xs = ['a1', 'a2', 'a3', 'b1', 'c1', 'c2']
  expect(roundRobin(xs, (x) => x[0])).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'a3'])
  expect(roundRobin([], (x: string) => x)).toEqual([])
})

test('the fact observation keeps the title line and the evidence sentences the page holds, nothing else', () => {
  const page = '\n\n<information>Anni Navarrete\nURL: https://x/wiki/Anni\n\n# Anni Navarrete\n\nAnni Navarrete, born in 1871, is an actor. The birthplace of Anni\nNavarrete is New Weissnat.\n\n## Works\nShe starred in A Film.\n</information>\n\n'
  const cut = factObservation([{ role: 'user', content: page }], ['The birthplace of Anni Navarrete is New Weissnat.', 'Not on this page.'])
  expect(cut).toEqual([{ role: 'user', content: '\n\n<information>Anni Navarrete\nThe birthplace of Anni Navarrete is New Weissnat.\n</information>\n\n' }])
  // No evidence on the page, no information block, or several messages: no drill.
  expect(factObservation([{ role: 'user', content: page }], ['Elsewhere.'])).toBeUndefined()
  expect(factObservation([{ role: 'user', content: 'no block' }], ['The birthplace of Anni Navarrete is New Weissnat.'])).toBeUndefined()
  expect(factObservation([{ role: 'user', content: page }, { role: 'user', content: page }], ['The birthplace of Anni Navarrete is New Weissnat.'])).toBeUndefined()
})
