// curriculum/drills: reading drills cut out of oracle episodes — the page observation reduced to its title and the
// evidence sentence it holds (the shortest context in which an answer is read). Used by the mixed SFT and the funnel.
import type { TrajectoryRecord } from '../agent'

const squash = (x: string) => x.replace(/\s+/g, ' ').trim()

/** The page observation cut to its first line (the title) and those evidence sentences it holds; undefined when it
 *  is not one <information> block or holds none of them. */
export function factObservation(obs: TrajectoryRecord['turns'][number]['observation'], evidence: readonly string[]): TrajectoryRecord['turns'][number]['observation'] | undefined {
  if (obs.length !== 1 || typeof obs[0].content !== 'string') return undefined
  const m = /<information>([^\n]*)\n([\s\S]*)<\/information>/.exec(obs[0].content)
  if (!m) return undefined
  const held = evidence.filter((e) => squash(m[2]).includes(squash(e)))
  if (held.length === 0) return undefined
  const content = obs[0].content.slice(0, m.index) + `<information>${m[1]}\n${held.join(' ')}\n</information>` + obs[0].content.slice(m.index + m[0].length)
  return [{ ...obs[0], content }]
}

