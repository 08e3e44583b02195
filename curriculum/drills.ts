// curriculum/drills: reading drills cut out of oracle episodes — the page observation reduced to its title and a chosen
// part of its text: the evidence sentence alone (the shortest context in which an answer is read), the evidence among
// k other sentences of the page (in page order), or every prose sentence of the page. Used by the mixed SFT, the
// reading curriculum (curriculum/reading) and the funnel. Knows the observation's text shape, not models or worlds.
import type { TrajectoryRecord } from '../agent'
import { leadSpaced } from '../gym'
import type { Rng } from '../infra/rng'

type Observation = TrajectoryRecord['turns'][number]['observation']

const squash = (x: string) => x.replace(/\s+/g, ' ').trim()

/** The one <information> block of a page observation: its first line (the title) and the rest; undefined otherwise. */
function pageBlock(obs: Observation): { head: string; title: string; body: string; tail: string } | undefined {
  if (obs.length !== 1 || typeof obs[0].content !== 'string') return undefined
  const c = obs[0].content
  const m = /<information>([^\n]*)\n([\s\S]*)<\/information>/.exec(c)
  if (!m) return undefined
  return { head: c.slice(0, m.index), title: m[1], body: m[2], tail: c.slice(m.index + m[0].length) }
}

/** The observation with the block's text replaced by `sentences` (one line, joined by spaces); with `leadSpace` (the
 *  gym option of that name) the new line starts with a space as the gym renders every line then. */
function withText(obs: Observation, b: NonNullable<ReturnType<typeof pageBlock>>, sentences: readonly string[], leadSpace: boolean): Observation {
  const line = sentences.join(' ')
  const content = `${b.head}<information>${b.title}\n${leadSpace ? leadSpaced(line) : line}\n</information>${b.tail}`
  return [{ ...obs[0], content }]
}

/** The page observation cut to its first line (the title) and those evidence sentences it holds; undefined when it
 *  is not one <information> block or holds none of them. */
export function factObservation(obs: Observation, evidence: readonly string[], leadSpace = false): Observation | undefined {
  const b = pageBlock(obs)
  if (!b) return undefined
  const held = evidence.filter((e) => squash(b.body).includes(squash(e)))
  if (held.length === 0) return undefined
  return withText(obs, b, held, leadSpace)
}

/** The prose sentences of a page's text in page order: every line that is not the URL line, a heading, the infobox
 *  label or an infobox entry, split after `.`, `!` or `?` followed by a space. */
export function pageSentences(body: string): string[] {
  const out: string[] = []
  for (const raw of body.split('\n')) {
    const line = raw.trim()
    if (!line || line.startsWith('URL:') || line.startsWith('#') || line === 'Infobox' || line.startsWith('- ') || /^Page \d+ of \d+/.test(line)) continue
    for (const s of line.split(/(?<=[.!?]) (?=\S)/)) if (s.trim()) out.push(s.trim())
  }
  return out
}

/** The page observation cut to its title and the evidence sentence(s) among `k` other prose sentences of the page
 *  (drawn with rng, kept in page order; all of them when the page has fewer); k = Infinity gives every prose sentence
 *  of the page. Undefined when the page holds no evidence sentence as one of its sentences. */
export function sentencesObservation(obs: Observation, evidence: readonly string[], k: number, rng: Rng, leadSpace = false): Observation | undefined {
  const b = pageBlock(obs)
  if (!b) return undefined
  const all = pageSentences(b.body)
  const ev = new Set(evidence.map(squash))
  const isEv = all.map((s) => ev.has(squash(s)))
  if (!isEv.some(Boolean)) return undefined
  const others = all.map((_, i) => i).filter((i) => !isEv[i])
  const keep = new Set(k >= others.length ? others : rng.sample(others, k))
  return withText(obs, b, all.filter((_, i) => isEv[i] || keep.has(i)), leadSpace)
}
