// world/qa/check: an independent re-derivation of a stored QA from the world — walks its path edge by edge,
// checks every step is verified and unique in G, that the start description fits exactly one entity, recomputes
// the answer, and checks each evidence sentence is a fact of that hop's document. Shares no code with sampling
// beyond value formatting and the description matcher.
import type { Edge, Entity, Qa } from '../types'
import { checkBlurDesc, makeBlurMatcher } from './blur-check'
import { matchAmong } from './describe'
import { formatValue } from './format'
import type { ChainSpec, ComboMeta, ContinuationSpec, ParallelMeta, QaMeta, SimpleMeta, StepSpec, Terminal } from './spec'
import type { QaWorldView } from './view'

export type QaChecker = (qa: Qa) => string[]

export function makeQaChecker(view: QaWorldView, docText?: (url: string) => string | undefined): QaChecker {
  const ent = new Map<string, Entity>(view.entities.map((e) => [e.id, e]))
  const edge = new Map<string, Edge>(view.edges.map((e) => [e.id, e]))
  const degree = new Map<string, number>()
  const bump = (k: string) => degree.set(k, (degree.get(k) ?? 0) + 1)
  for (const e of view.edges) {
    bump(`${e.source}|${e.relation}|fwd`)
    bump(`${e.target}|${e.relation}|inv`)
  }
  const byName = new Map<string, Entity[]>()
  const byValue = new Map<string, Entity[]>()
  const add = <K>(m: Map<K, Entity[]>, k: K, e: Entity) => (m.get(k) ?? m.set(k, []).get(k)!).push(e)
  for (const e of view.entities) {
    add(byName, e.name.toLowerCase(), e)
    for (const [a, v] of Object.entries(e.attrs)) add(byValue, `${e.type}|${a}|${typeof v}:${v}`, e)
  }
  let blurMatch: ReturnType<typeof makeBlurMatcher> | undefined
  const attrSpec = (type: string, attr: string) => view.entityTypes.find((t) => t.name === type)?.attributes.find((a) => a.name === attr)

  const texts = new Map<string, string | undefined>()
  const textOf = (url: string) => {
    if (!texts.has(url)) texts.set(url, docText?.(url))
    return texts.get(url)
  }

  return (qa: Qa): string[] => {
    const problems: string[] = []
    const bad = (m: string) => problems.push(`${qa.id}: ${m}`)

    const walk = (startId: string, steps: StepSpec[], edgeIds: string[], visited: Set<string>): Entity | null => {
      let cur = ent.get(startId)
      if (!cur) return bad(`unknown entity ${startId}`), null
      visited.add(cur.id)
      if (steps.length !== edgeIds.length) return bad('steps and edges differ in length'), null
      for (let i = 0; i < steps.length; i++) {
        const e = edge.get(edgeIds[i])
        if (!e) return bad(`unknown edge ${edgeIds[i]}`), null
        if (!view.kept.has(e.id)) return bad(`edge ${e.id} is not in G*`), null
        if (e.relation !== steps[i].rel) return bad(`edge ${e.id} is ${e.relation}, step says ${steps[i].rel}`), null
        const fwd = steps[i].dir === 'fwd'
        if ((fwd ? e.source : e.target) !== cur.id) return bad(`edge ${e.id} does not leave ${cur.id}`), null
        const n = degree.get(`${cur.id}|${e.relation}|${steps[i].dir}`) ?? 0
        if (n !== 1) return bad(`step ${i} from ${cur.id} along ${e.relation}/${steps[i].dir} has ${n} candidates in G`), null
        const next = ent.get(fwd ? e.target : e.source)!
        if (visited.has(next.id)) return bad(`path revisits ${next.id}`), null
        visited.add(next.id)
        cur = next
      }
      return cur
    }
    const chain = (c: ChainSpec, visited: Set<string>): Entity | null => {
      const s = ent.get(c.start)
      if (!s) return bad(`unknown start ${c.start}`), null
      if (c.desc.kind === 'blur') {
        blurMatch ??= makeBlurMatcher(view)
        for (const p of checkBlurDesc(blurMatch, c.desc, s.id, s.name)) bad(p)
        if (!qa.question.includes(c.desc.text) && !qa.question.includes(c.desc.text[0].toUpperCase() + c.desc.text.slice(1))) bad('blurred description is not in the question')
        if (qa.question.includes(s.name)) bad(`blurred start ${s.id} is named in the question`)
        return walk(c.start, c.steps, c.edges, visited)
      }
      const fits = matchAmong(byName.get(s.name.toLowerCase()) ?? [], s, c.desc)
      if (fits.length !== 1) bad(`start description of ${s.id} fits ${fits.length} entities`)
      return walk(c.start, c.steps, c.edges, visited)
    }
    const terminal = (e: Entity, t: Terminal): string => (t.kind === 'entity' ? e.name : formatValue(attrSpec(e.type, t.attr), e.attrs[t.attr]))
    const num = (e: Entity, a: string): number | null => {
      const v = e.attrs[a]
      return typeof v === 'number' ? v : (bad(`${e.id}.${a} is not a number`), null)
    }
    const cont = (from: Entity, c: ContinuationSpec, visited: Set<string>) => {
      visited.delete(from.id)
      const e = walk(from.id, c.steps, c.edges, visited)
      return e ? { answer: terminal(e, c.terminal), path: c.edges } : null
    }

    let answer: string | null = null
    let path: string[] = []
    const meta = qa.meta as unknown as QaMeta
    if (qa.type === 'simple') {
      const m = meta as SimpleMeta
      const e = chain(m.chain, new Set())
      if (e) answer = terminal(e, m.terminal)
      path = m.chain.edges
    } else if (qa.type === 'parallel') {
      const m = meta as ParallelMeta
      const seenA = new Set<string>()
      const a = chain(m.a, seenA)
      const seenB = new Set<string>()
      const b = chain(m.b, seenB)
      path = [...m.a.edges, ...m.b.edges]
      if (m.a.edges.some((x) => m.b.edges.includes(x))) bad('the two paths share an edge')
      for (const x of seenB) if (seenA.has(x) && !(m.op === 'same' && a && b && x === a.id && a.id === b.id)) bad(`the two paths share entity ${x}`)
      if (a && b) {
        if (m.op === 'same') answer = a.id === b.id ? 'yes' : 'no'
        else {
          const va = num(a, m.attr!)
          const vb = num(b, m.attr!)
          if (va !== null && vb !== null) {
            if (va === vb) bad('numeric tie')
            const spec = attrSpec(a.type, m.attr!)
            if (m.op === 'compare') answer = ((m.order === 'max') === va > vb ? a : b).name
            else if (m.op === 'sum') answer = formatValue(spec, va + vb)
            else {
              if (va < vb) bad('difference lists the smaller value first')
              answer = formatValue(spec, Math.abs(va - vb))
            }
          }
        }
      }
    } else {
      const m = meta as ComboMeta
      if (m.kind === 'compare-chain') {
        const seen = new Set<string>()
        const a = chain(m.part1.a, seen)
        const b = chain(m.part1.b, seen)
        if (a && b) {
          const va = num(a, m.part1.attr)
          const vb = num(b, m.part1.attr)
          if (va !== null && vb !== null) {
            if (va === vb) bad('numeric tie')
            const win = (m.part1.order === 'max') === va > vb ? a : b
            const r = cont(win, m.part2, seen)
            if (r) answer = r.answer
          }
        }
        path = [...m.part1.a.edges, ...m.part1.b.edges, ...m.part2.edges]
      } else {
        const seen = new Set<string>()
        const e = chain(m.part1.chain, seen)
        if (e) {
          const v = e.attrs[m.part1.attr]
          const fits = v === undefined ? [] : (byValue.get(`${m.pick.type}|${m.pick.attr}|${typeof v}:${v}`) ?? [])
          if (fits.length !== 1) bad(`the parameter selects ${fits.length} entities`)
          else if (seen.has(fits[0].id)) bad('the selected entity is on part 1')
          else {
            const r = cont(fits[0], m.part2, seen)
            if (r) answer = r.answer
          }
        }
        path = [...m.part1.chain.edges, ...m.part2.edges]
      }
    }
    if (JSON.stringify(path) !== JSON.stringify(qa.path)) bad('path differs from the meta chains')
    if (qa.hops !== qa.path.length) bad(`hops ${qa.hops} but path has ${qa.path.length} edges`)
    if (answer !== null && answer !== qa.answer) bad(`answer recomputes to ${JSON.stringify(answer)}, stored ${JSON.stringify(qa.answer)}`)
    if (answer === null && problems.length === 0) bad('answer could not be recomputed')
    if (!qa.aliases.includes(qa.answer)) bad('aliases do not include the answer')

    // Evidence: one sentence per hop, from a document of that hop's edge, stated as a fact of that document.
    for (let k = 0; k < qa.path.length; k++) {
      const ev = qa.evidence.find((x) => x.hop === k)
      const e = edge.get(qa.path[k])
      if (!ev || !e) {
        bad(`no evidence for hop ${k}`)
        continue
      }
      const urls = [ent.get(e.source)?.url, ent.get(e.target)?.url]
      if (!urls.includes(ev.url)) bad(`evidence of hop ${k} is from ${ev.url}, not a document of edge ${e.id}`)
      const fact = view.factsByUrl.get(ev.url)?.find((f) => f.ref === e.id && f.sentence === ev.sentence)
      if (!fact) bad(`evidence sentence of hop ${k} is not a fact of ${ev.url}`)
    }
    if (docText)
      for (const ev of qa.evidence) {
        const text = textOf(ev.url)
        if (text === undefined || !text.includes(ev.sentence)) bad(`evidence sentence not found in ${ev.url}: ${ev.sentence}`)
      }
    for (const ev of qa.evidence) if (!qa.docs.includes(ev.url)) bad(`evidence document ${ev.url} missing from docs`)
    return problems
  }
}
