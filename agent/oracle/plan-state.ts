// agent/oracle/plan-state: the oracle plan's one state object — the pages it has opened (the text read so far, pages
// read of how many), the answers it read without opening their pages, and the entities its route has reached. Reads
// and checks over that memory only: it yields no call (plan-moves does) and knows no route (plan-route).
import { attributeSpec, formatAttr } from '../../world'
import type { Entity, Qa } from '../../world'
import { fail, type OracleKnowledge, type OraclePlanOptions } from './plan-types'

/** Where the route keeps an entity it reached: the two chain ends of a parallel or a comparison, and the entity the
 *  answer is read from (a Simple chain's end; a Combo's subject, then its part 2's end). */
export type Slot = 'a' | 'b' | 'end'

export class PlanState {
  /** url → accessed text so far (title on the first line). */
  readonly opened = new Map<string, string>()
  /** url → pages read of a paged document, of how many. */
  readonly paging = new Map<string, { read: number; of: number }>()
  /** Answers named by an evidence sentence already read (answer 'read'): their pages are never opened. */
  readonly readOnly = new Set<string>()
  readonly slots = new Map<Slot, Entity>()
  /** pages 'needed': a paged document's next pages are read only until what a hop needs is in the text. */
  readonly lazy: boolean
  readonly answerRead: boolean

  constructor(
    readonly qa: Qa,
    readonly k: OracleKnowledge,
    readonly opts: OraclePlanOptions,
  ) {
    this.lazy = opts.pages === 'needed'
    this.answerRead = opts.answer === 'read'
    if (opts.answer !== undefined && opts.answer !== 'open' && opts.answer !== 'read') fail(`oracle answer mode must be open or read, got ${String(opts.answer)}`)
  }

  entity(id: string): Entity {
    return this.k.entity(id) ?? fail(`entity ${id} of the gold path is not in the world`)
  }

  /** The entity the route put in a slot (a phase reads only slots an earlier phase filled). */
  at(slot: Slot): Entity {
    return this.slots.get(slot) ?? fail(`the oracle's route reached no entity for ${slot}`)
  }

  /** Page 1 of a document as access returned it (a paged one says how many pages it has). */
  record(url: string, page: string): void {
    this.opened.set(url, page)
    this.paging.set(url, { read: 1, of: Number(/^Page 1 of (\d+)\b/m.exec(page)?.[1] ?? 1) })
  }

  readAnywhere(s: string): boolean {
    for (const t of this.opened.values()) if (t.includes(s)) return true
    return false
  }

  titleOf(e: Entity): string {
    return (this.opened.get(e.url) ?? fail(`page of ${e.name} was never opened`)).split('\n')[0]
  }

  /** A value of an opened entity's page, as the page prints it (the number the oracle then uses). */
  readValue(e: Entity, attr: string): { shown: string; value: number | string } {
    const spec = attributeSpec(e.type, attr) ?? fail(`type ${e.type} has no attribute ${attr}`)
    const v = e.attrs[attr]
    if (v === undefined) fail(`${e.name} has no ${attr}`)
    const text = this.opened.get(e.url) ?? fail(`page of ${e.name} was never opened`)
    const printed = formatAttr(spec, v)
    if (!text.includes(printed)) fail(`the ${spec.label} of ${e.name} (${printed}) is not in its accessed page`)
    return { shown: formatAttr({ ...spec, unit: undefined }, v), value: v }
  }

  /** The question's evidence for an edge of its path (every hop that walks it). */
  evidenceOf(edgeId: string): Qa['evidence'] {
    const hops = this.qa.path.flatMap((p, i) => (p === edgeId ? [i] : []))
    return this.qa.evidence.filter((ev) => hops.includes(ev.hop))
  }

  /** Check the evidence of an edge of the path: its sentence in the accessed text of its page, naming `next`. */
  checkEvidence(edgeId: string, next: Entity): void {
    const evs = this.evidenceOf(edgeId)
    if (evs.length === 0) fail(`QA has no evidence for edge ${edgeId}`)
    for (const ev of evs) {
      const text = this.opened.get(ev.url) ?? fail(`evidence page ${ev.url} of edge ${edgeId} was never opened`)
      if (!text.includes(ev.sentence)) fail(`evidence sentence of edge ${edgeId} is not in the accessed text of ${ev.url}: ${JSON.stringify(ev.sentence)}`)
    }
    // The next entity must be named by the fact, or the fact must stand in the next entity's own page.
    if (!evs.some((ev) => ev.sentence.includes(next.name) || ev.url === next.url)) fail(`no evidence sentence of edge ${edgeId} names ${next.name}`)
  }

  /** answer 'read': the edge's evidence sentences are all in opened text and one names `next`. */
  evidenceRead(edgeId: string, next: Entity): boolean {
    const evs = this.evidenceOf(edgeId)
    return evs.length > 0 && evs.every((ev) => this.opened.get(ev.url)?.includes(ev.sentence) === true) && evs.some((ev) => ev.sentence.includes(next.name))
  }
}
