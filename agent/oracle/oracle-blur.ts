// agent/oracle/oracle-blur: how the oracle checks a candidate page against a blurred description by reading it — the
// infobox's labels are the type's, an exact value or a year inside the range on its label's line, each neighbour's
// name in the text. Knows nothing of the graph's answer: a page fits or not by its text alone.
import { attributeSpec, entityType, formatAttr, relation } from '../../world'
import type { Entity } from '../../world'

/** The cues as stored in QA meta (world/qa/spec Cue), read defensively: meta is JSON from the world file. */
export type ReadCue =
  | { kind: 'type'; type: string }
  | { kind: 'value'; attr: string; value: string }
  | { kind: 'years'; attr: string; lo: number; hi: number }
  | { kind: 'neighbour'; rel: string; dir: 'fwd' | 'inv'; other: string }

export interface ReadBlur {
  cues: ReadCue[]
  queries: string[]
  text: string
  /** two-step: the neighbour whose page lists the candidates. */
  via?: string
}

export function asReadBlur(v: unknown): ReadBlur | null {
  const d = v as { kind?: unknown; cues?: unknown; queries?: unknown; text?: unknown; via?: unknown } | null
  if (!d || d.kind !== 'blur' || !Array.isArray(d.cues) || !Array.isArray(d.queries) || typeof d.text !== 'string') return null
  const out: ReadBlur = { cues: d.cues as ReadCue[], queries: d.queries.filter((q): q is string => typeof q === 'string'), text: d.text }
  return typeof d.via === 'string' ? { ...out, via: d.via } : out
}

/** Labels of the `- Label: value` infobox lines of a page, with their values. */
function infobox(text: string): Map<string, string> {
  const out = new Map<string, string>()
  const at = text.indexOf('\nInfobox\n')
  if (at < 0) return out
  for (const line of text.slice(at + 9).split('\n')) {
    const m = /^- ([^:]+): (.*)$/.exec(line)
    if (!m) break
    out.set(m[1].toLowerCase(), m[2])
  }
  return out
}

/** Why a page does not fit the description (null: it fits every cue). `name(id)` gives a neighbour's name — the words
 *  the question itself shows. */
export function blurMismatch(text: string, cues: readonly ReadCue[], name: (id: string) => Entity | undefined): string | null {
  const box = infobox(text)
  for (const c of cues) {
    if (c.kind === 'type') {
      const labels = new Set((entityType(c.type)?.attributes ?? []).map((a) => a.label.toLowerCase()))
      if (box.size === 0 || [...box.keys()].some((l) => !labels.has(l))) return `its infobox is not a ${entityType(c.type)?.noun ?? c.type}'s`
    } else if (c.kind === 'neighbour') {
      const other = name(c.other)
      if (!other || !statesRelation(text, c.rel, c.dir, text.split('\n')[0], other.name)) return `it does not state that it ${c.rel} ${other?.name ?? c.other}`
    } else {
      const typeCue = cues.find((x) => x.kind === 'type')
      const spec = typeCue && typeCue.kind === 'type' ? attributeSpec(typeCue.type, c.attr) : undefined
      if (!spec) return `no attribute ${c.attr}`
      const shown = box.get(spec.label.toLowerCase())
      if (shown === undefined) return `it gives no ${spec.label}`
      if (c.kind === 'value') {
        if (shown !== formatAttr(spec, c.value)) return `its ${spec.label} is ${shown}, not ${c.value}`
      } else {
        // A year prints alone ('1964'); a date prints day, month, year ('22 June 2006'): the year is its last number.
        const nums = shown.match(/\d+/g) ?? []
        const year = nums.length > 0 ? Number(spec.kind === 'date' ? nums[nums.length - 1] : nums[0]) : NaN
        if (!(year >= c.lo && year <= c.hi)) return `its ${spec.label} (${shown}) is not between ${c.lo} and ${c.hi}`
      }
    }
  }
  return null
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const fillIn = (tpl: string, s: string, t: string) => tpl.split('{s}').join(s).split('{t}').join(t)

/** Whether the text states rel between the page's entity (`title`) and `other` in one of the relation's sentence forms
 *  (dir 'fwd': the page's entity is the source). */
export function statesRelation(text: string, rel: string, dir: 'fwd' | 'inv', title: string, other: string): boolean {
  const r = relation(rel)
  if (!r || title === other) return false
  const [s, t] = dir === 'fwd' ? [title, other] : [other, title]
  for (const tpl of [...r.forward, ...r.inverse]) if (text.includes(fillIn(tpl.replace(/\.$/, ''), s, t))) return true
  for (const tpl of r.inverseMany ?? []) {
    // '{t} … {list}.': one sentence naming the target and, in its list, the source.
    const parts = tpl.replace(/\.$/, '').split('{list}')
    const re = new RegExp(esc(parts[0]).split(esc('{t}')).join(esc(t)) + `[^.\\n]*?${esc(s)}`)
    if (re.test(text)) return true
  }
  return false
}

/** The entities among `pool` that a page names, in the order the page first names them (longest names first on ties,
 *  so "Ann Lee Smith" is not read as "Ann Lee"). */
export function namedOnPage(text: string, pool: readonly Entity[]): Entity[] {
  const at = pool.map((e) => ({ e, i: text.indexOf(e.name) })).filter((x) => x.i >= 0)
  at.sort((a, b) => a.i - b.i || b.e.name.length - a.e.name.length)
  return at.map((x) => x.e)
}
