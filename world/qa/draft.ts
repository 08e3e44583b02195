// world/qa/draft: turning a sampled question (entities, edges, attribute reads, meta) into a stored Qa — documents
// needed, the evidence sentence of every hop read from that hop's document, leak checks and a content-derived id.
import { sha256, canonicalJson } from '../../infra/hash'
import type { Qa, QaEvidence, QaType } from '../types'
import { norm, type GraphIndex } from './graph-index'
import type { QaMeta } from './spec'

export interface Draft {
  type: QaType
  question: string
  answer: string
  aliases: string[]
  /** Edge indices in reasoning order. */
  edges: number[]
  /** Entity index at the near end of each edge, i.e. where the step starts (same length as edges). */
  from: number[]
  /** Entities the question is allowed to name (the start entities). */
  starts: number[]
  /** Every entity on any path (intermediates and ends must not be named). */
  nodes: number[]
  /** Attribute reads [entity index, attribute] (Parallel/Combo values, attribute answers). */
  reads: [number, string][]
  /** Extra strings that must not appear in the question (intermediate values). */
  hidden: string[]
  meta: QaMeta
}

/** The sentence stating edge `ei`, from the document of the entity the step leaves (else the one it reaches). */
function edgeEvidence(g: GraphIndex, ei: number, fromIdx: number): { url: string; sentence: string } | null {
  const e = g.edges[ei]
  const otherId = e.source === g.entities[fromIdx].id ? e.target : e.source
  const urls = [g.entities[fromIdx].url, g.entities[g.entityIndex.get(otherId)!].url]
  for (const url of urls) {
    const f = g.view.factsByUrl.get(url)?.find((x) => x.kind === 'edge' && x.ref === e.id)
    if (f) return { url, sentence: f.sentence }
  }
  return null
}

function attrEvidence(g: GraphIndex, i: number, attr: string): { url: string; sentence: string } | null {
  const e = g.entities[i]
  const ref = `${e.id}#${attr}`
  const f = g.view.factsByUrl.get(e.url)?.find((x) => x.kind === 'attr' && x.ref === ref)
  return f ? { url: e.url, sentence: f.sentence } : null
}

/** The stored QA, or null when a fact has no sentence in its document or the question gives something away. */
export function finishDraft(g: GraphIndex, d: Draft, key: string = contentKey(d, g)): Qa | null {
  const q = norm(d.question)
  const startSet = new Set(d.starts)
  const startNames = d.starts.map((s) => norm(g.entities[s].name))
  for (const n of d.nodes) {
    if (startSet.has(n)) continue
    const name = norm(g.entities[n].name)
    // A start entity's own name may contain another entity's name; only a separate mention is a leak.
    if (q.includes(name) && !startNames.some((s) => s.includes(name))) return null
  }
  if (d.answer !== 'yes' && d.answer !== 'no' && d.answer.length >= 2 && q.includes(norm(d.answer))) return null
  for (const h of d.hidden) if (h.length >= 2 && q.includes(norm(h))) return null

  const evidence: QaEvidence[] = []
  for (let k = 0; k < d.edges.length; k++) {
    const ev = edgeEvidence(g, d.edges[k], d.from[k])
    if (!ev) return null
    evidence.push({ hop: k, ...ev })
  }
  for (const [i, attr] of d.reads) {
    const ev = attrEvidence(g, i, attr)
    if (!ev) return null
    evidence.push({ hop: -1, ...ev })
  }
  const docs: string[] = []
  const seen = new Set<string>()
  const addDoc = (u: string) => {
    if (!seen.has(u)) {
      seen.add(u)
      docs.push(u)
    }
  }
  for (const s of d.starts) addDoc(g.entities[s].url)
  for (const ev of evidence) addDoc(ev.url)
  const path = d.edges.map((ei) => g.edges[ei].id)
  const id = `${d.type[0]}-${sha256(key).slice(0, 14)}`
  return {
    id,
    type: d.type,
    hops: d.edges.length,
    question: d.question,
    answer: d.answer,
    aliases: d.aliases,
    path,
    docs,
    evidence,
    split: 'train',
    meta: d.meta as unknown as Record<string, unknown>,
  }
}

/** Identity of a QA's content regardless of wording: two drafts with the same key are the same question. */
export function contentKey(d: Draft, g: GraphIndex): string {
  return canonicalJson({ type: d.type, path: d.edges.map((ei) => g.edges[ei].id), meta: { ...d.meta, template: undefined } })
}
