// gym/lead-space.test: the leadSpace option — every line of a tool result (and the text after a snippet's leading
// ellipsis) starts with a space, so a name that starts a line is spelled with the tokens it has inside a sentence; off
// by default (the rendering is then byte-identical). The oracle solving through it: tests/reader-curriculum.test.ts.
import { SearchEnv, leadSpaced } from './env'
import { resolveGymOptions } from './make-env'
import { FIXTURE_QA, openFixtureWorld } from '../tests/fixtures/gym-fixture-world'

describe('leadSpace', () => {
  it('puts a space at the start of every non-empty line and after a leading ellipsis, nowhere else', () => {
    expect(leadSpaced('Title\nURL: u\n\n# Title\n\nAnna Bell wrote it. Bo Dee read it.\n…is Anna Bell\'s.')).toBe(
      " Title\n URL: u\n\n # Title\n\n Anna Bell wrote it. Bo Dee read it.\n… is Anna Bell's.",
    )
    expect(leadSpaced('')).toBe('')
    expect(leadSpaced(' already')).toBe(' already')
  })

  it('is off by default and renders tool results with it when on', async () => {
    const world = openFixtureWorld()
    const qa = FIXTURE_QA[0]
    const play = async (leadSpace: boolean) => {
      const env = new SearchEnv(world, qa, resolveGymOptions({ protocol: 'search-r1', leadSpace }))
      await env.initialObservation()
      return (await env.step('<search> Glass Orchard novel </search>')).observation[0].content
    }
    const off = await play(false)
    const on = await play(true)
    expect(off).not.toMatch(/\n (?=\S)/)
    expect(on).toContain('<information> Doc 1(Title:')
    const inner = (x: string) => /<information>([\s\S]*)<\/information>/.exec(x)![1]
    expect(inner(on)).toBe(leadSpaced(inner(off)))
    expect(inner(on).replace(/(^|\n|…) (?=[^\s…])/g, '$1')).toBe(inner(off))
    expect(() => resolveGymOptions({ leadSpace: 'yes' })).toThrow(/leadSpace must be a boolean/)
  })
})
