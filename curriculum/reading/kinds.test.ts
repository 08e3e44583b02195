// curriculum/reading/kinds.test: each drill kind's rendering from one hand-made two-hop episode — which turns it keeps,
// the page cut it makes (evidence alone, among k sentences, every prose sentence, the whole page), and the loss mask
// (the target turn's tokens and its end-of-turn id only; every assistant turn for demo).
import { ChatCodec, chatTemplateOf, loadTokenizer, SIMPLE_QWEN_TEMPLATE } from '../../infra/engine'
import { Rng } from '../../infra/rng'
import { pageSentences, sentencesObservation } from '../drills'
import { ANSWER_KINDS, DRILL_KINDS, drillSequence, hasDrill, targetStart, type DrillSource } from './kinds'

const tok = loadTokenizer('curriculum/starts/reader-v0')
const codec = new ChatCodec(tok, chatTemplateOf(tok, SIMPLE_QWEN_TEMPLATE))
const info = (x: string) => [{ role: 'user' as const, content: `\n\n<information>${x}</information>\n\n` }]
const page1 = 'Anna Bell\nURL: https://w/Anna_Bell\n\n# Anna Bell\n\nAnna Bell is a writer. Anna Bell was born in Rome.\n\nInfobox\n- Height: 170 cm\n\n## Family\nBo Dee is a child of Anna Bell. Anna Bell studied at Tessin University.\n'
const page2 = 'Bo Dee\nURL: https://w/Bo_Dee\n\n# Bo Dee\n\nBo Dee is an actor.\n\n## Clubs\nBo Dee plays for Velmora Lions. Bo Dee likes tea. Bo Dee was born in Nice.\n'
const src: DrillSource = {
  id: 'w/q1',
  hops: 2,
  initial: [{ role: 'system', content: 'Search with <search> query </search>.' }, { role: 'user', content: 'Question: Which club does the child of Anna Bell play for?' }],
  turns: [
    { text: '<search> Anna Bell </search>', observation: info('Doc 1(Title: Anna Bell) URL: https://w/Anna_Bell\n…a writer.') },
    { text: '<access> Anna Bell </access>', observation: info(page1) },
    { text: '<search> Bo Dee </search>', observation: info('Doc 1(Title: Bo Dee) URL: https://w/Bo_Dee\n…an actor.') },
    { text: '<access> Bo Dee </access>', observation: info(page2) },
    { text: '<answer> Velmora Lions </answer>', observation: [] },
  ],
  lastEvidence: ['Bo Dee plays for Velmora Lions.'],
}
const text = (ids: Int32Array) => tok.decode(Array.from(ids))
const target = (s: { ids: Int32Array; mask: Uint8Array }) => tok.decode(Array.from(s.ids).filter((_, i) => s.mask[i] === 1))

test('every answer kind trains the answer turn alone; the tool kinds their own turn; demo every turn', () => {
  const eot = tok.decode([codec.endOfTurnId()])
  for (const k of ANSWER_KINDS) expect(target(drillSequence(codec, src, k, false)!)).toBe(`<answer> Velmora Lions </answer>${eot}`)
  expect(target(drillSequence(codec, src, 'search', false)!)).toBe(`<search> Anna Bell </search>${eot}`)
  expect(target(drillSequence(codec, src, 'access', false)!)).toBe(`<access> Anna Bell </access>${eot}`)
  expect(target(drillSequence(codec, src, 'hop', false)!)).toBe(`<search> Bo Dee </search>${eot}`)
  expect(target(drillSequence(codec, src, 'demo', false)!)).toBe(src.turns.map((t) => t.text + eot).join(''))
  for (const k of DRILL_KINDS) {
    const s = drillSequence(codec, src, k, false)!
    // The mask is one contiguous run ending the sequence (demo: one run per turn), and the context is never trained.
    expect(s.mask.length).toBe(s.ids.length)
    expect(s.mask[s.ids.length - 1]).toBe(1)
    expect(targetStart(s)).toBeGreaterThan(0)
  }
})

test('the contexts: the whole episode, the last page alone, the evidence alone, among k sentences, every prose sentence', () => {
  const ctx = (k: (typeof DRILL_KINDS)[number]) => text(drillSequence(codec, src, k, false)!.ids)
  expect(ctx('episode')).toContain('Anna Bell was born in Rome.')
  expect(ctx('page')).not.toContain('Anna Bell was born in Rome.')
  expect(ctx('page')).toContain('Bo Dee likes tea.')
  expect(ctx('page')).toContain('<access> Bo Dee </access>')
  expect(ctx('page')).not.toContain('<search> Bo Dee')
  expect(ctx('fact')).toContain('<information>Bo Dee\nBo Dee plays for Velmora Lions.\n</information>')
  expect(ctx('lines')).toContain('<information>Bo Dee\nBo Dee is an actor. Bo Dee plays for Velmora Lions. Bo Dee likes tea. Bo Dee was born in Nice.\n</information>')
  const one = ctx('ctx1')
  expect(one.match(/Bo Dee [a-z]/g)!.length).toBe(2)
  expect(one).toContain('Bo Dee plays for Velmora Lions.')
  // The draw is a function of the question's id and the kind.
  expect(ctx('ctx2')).toBe(ctx('ctx2'))
  // leadSpace: the cut's line starts with a space, as the gym renders every line then.
  expect(text(drillSequence(codec, src, 'fact', true)!.ids)).toContain('Bo Dee\n Bo Dee plays for Velmora Lions.\n</information>')
  // A one-hop episode has no hop drill; a page without the evidence sentence no fact drill.
  expect(drillSequence(codec, { ...src, hops: 1, turns: src.turns.slice(2) }, 'hop', false)).toBeUndefined()
  expect(drillSequence(codec, { ...src, lastEvidence: ['Not here.'] }, 'fact', false)).toBeUndefined()
})

test('pageSentences keeps prose in page order and drops the URL, headings and the infobox', () => {
  expect(pageSentences(page1.slice(page1.indexOf('\n') + 1))).toEqual(['Anna Bell is a writer.', 'Anna Bell was born in Rome.', 'Bo Dee is a child of Anna Bell.', 'Anna Bell studied at Tessin University.'])
  const cut = sentencesObservation(info(page2), ['Bo Dee plays for Velmora Lions.'], 8, new Rng(1))
  expect(cut![0].content).toContain('Bo Dee plays for Velmora Lions.')
})

test('hasDrill says exactly when drillSequence gives a drill, without building it', () => {
  const variants: DrillSource[] = [src, { ...src, hops: 1, turns: src.turns.slice(2) }, { ...src, lastEvidence: ['Not here.'] }, { ...src, turns: src.turns.slice(0, 2) }]
  for (const v of variants) for (const k of DRILL_KINDS) expect([k, hasDrill(v, k)]).toEqual([k, drillSequence(codec, v, k, false) !== undefined])
})
