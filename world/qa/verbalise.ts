// world/qa/verbalise: questions from the relations' verbal forms — nested noun phrases ("the capital of the
// country where the author of X was born"), a split "Consider …. … that city?" form for long chains, and the
// Parallel/Combo patterns. Only the start entity is ever named; intermediate entities stay described.
import type { Rng } from '../../infra/rng'
import type { AttributeSpec } from '../types'
import { isPersonType } from './format'
import type { GraphIndex } from './graph-index'
import type { StepSpec, Terminal } from './spec'

export interface Worded {
  text: string
  template: string
}

const DETERMINER = /^(the|a|an|that|this) /i
const NO_NOUNS: ReadonlySet<string> = new Set()

/**
 * Put a noun phrase into a template. "the {s}" (award names) does not double an article ("the the only
 * award…"), and an indefinite phrase ("a city in {t}") becomes "the only city in {t}": it is only ever used
 * where exactly one entity fits, and the question should say so.
 */
export function fill(tpl: string, key: 's' | 't', np: string, nouns: ReadonlySet<string> = NO_NOUNS): string {
  const slot = `{${key}}`
  let out = tpl
  if (DETERMINER.test(np)) {
    // "the {s}" and appositions "the museum {s}" lose their article; "the team {s} plays for" keeps its head noun.
    out = out.replace(new RegExp(`\\b[Tt]he (?:([a-z]+) )?\\{${key}\\}`, 'g'), (m: string, w?: string) => (w === undefined || nouns.has(w) ? slot : m))
  }
  out = out.replace(/^an? /, 'the only ')
  return out.split(slot).join(np)
}

export function capitalise(s: string): string {
  return s.length === 0 ? s : s[0].toUpperCase() + s.slice(1)
}

export function nounOf(g: GraphIndex, type: string): string {
  return g.types.get(type)?.noun ?? type.toLowerCase()
}

/** The noun phrase for the entity reached from `np` by `steps`, innermost step first. */
export function nestedNp(g: GraphIndex, rng: Rng, np: string, steps: readonly StepSpec[]): string {
  let out = np
  steps.forEach((s, i) => {
    const rel = g.relations.get(s.rel)!
    const key = s.dir === 'fwd' ? 's' : 't'
    const all = s.dir === 'fwd' ? rel.targetPhrases : rel.sourcePhrases
    // Around an already nested phrase, prefer forms that end with it ("the club of …") over centre-embedding
    // ("the team … plays for"), which stops being readable after a couple of levels.
    const tail = i > 0 || np.startsWith('that ') ? all.filter((p) => p.endsWith(`{${key}}`)) : []
    out = fill(rng.pick(tail.length > 0 ? tail : all), key, out, g.nouns)
  })
  return out
}

function wh(g: GraphIndex, type: string): string {
  return isPersonType(g.types.get(type)) ? 'Who' : 'What'
}

/** A direct question about where a chain ends: its name (entity) or an attribute. */
function askDirect(g: GraphIndex, rng: Rng, np: string, steps: readonly StepSpec[], endType: string, t: Terminal): Worded {
  if (t.kind === 'attr') {
    const label = attrSpec(g, endType, t.attr)?.label ?? t.attr
    const full = nestedNp(g, rng, np, steps)
    const spec = attrSpec(g, endType, t.attr)
    // "What year of birth does X have?" reads badly: year and date labels are asked with "What is…".
    // "What capacity does <long phrase> have?" buries the verb at the end: only for short phrases.
    const k = spec?.kind === 'year' || spec?.kind === 'date' || steps.length > 2 ? rng.pick([0, 2]) : rng.int(0, 2)
    if (k === 0) return { text: `What is the ${label} of ${full}?`, template: 'attr/what-is' }
    if (k === 1) return { text: `What ${label} does ${full} have?`, template: 'attr/what-does' }
    return { text: `Give the ${label} of ${full}.`, template: 'attr/give' }
  }
  const last = steps[steps.length - 1]
  const rel = last ? g.relations.get(last.rel) : undefined
  const forms: string[] = ['what-is', 'which-noun', 'name']
  if (last && last.dir === 'fwd' && rel && rel.questions.length > 0) forms.push('relation', 'relation')
  const form = rng.pick(forms)
  if (form === 'relation') {
    const inner = nestedNp(g, rng, np, steps.slice(0, -1))
    // Around a nested phrase, only forms that end with it ("Who is the founder of {s}?"): "Where does {s} play
    // its home games?" would centre-embed the chain and "{s}'s parent" would attach to its last noun.
    const nested = steps.length > 2 || (steps.length > 1 && np.startsWith('that '))
    const forms = rel!.questions.filter((q) => (nested ? q.endsWith('{s}?') : !q.includes("{s}'") || steps.length === 1))
    if (forms.length > 0) return { text: capitalise(fill(rng.pick(forms), 's', inner, g.nouns)), template: 'entity/relation' }
  }
  const full = nestedNp(g, rng, np, steps)
  const noun = nounOf(g, endType)
  if (form === 'name') return { text: `Can you name ${full}?`, template: 'entity/name' }
  // "Which city is the city where…" says the noun twice; ask "What is…" instead.
  if (form === 'which-noun' && !full.startsWith(`the ${noun}`) && !full.startsWith(`the only ${noun}`))
    return { text: `Which ${noun} is ${full}?`, template: 'entity/which-noun' }
  return { text: `${wh(g, endType)} is ${full}?`, template: 'entity/what-is' }
}

/**
 * A question about a chain from `np` (types[i] is the type of the i-th entity on it). Long chains are often
 * split into "Consider <first part>. <question about that noun>" so they stay readable.
 */
export function askChain(g: GraphIndex, rng: Rng, np: string, steps: readonly StepSpec[], types: readonly string[], t: Terminal): Worded {
  const n = steps.length
  const pSplit = n >= 7 ? 0.6 : n >= 3 ? 0.3 : 0
  if (rng.bool(pSplit)) {
    const k = rng.int(1, n - 1)
    const head = nestedNp(g, rng, np, steps.slice(0, k))
    const tail = askDirect(g, rng, `that ${nounOf(g, types[k])}`, steps.slice(k), types[n], t)
    return { text: `Consider ${head}. ${tail.text}`, template: `split+${tail.template}` }
  }
  const q = askDirect(g, rng, np, steps, types[n], t)
  return { text: capitalise(q.text), template: q.template }
}

export function attrSpec(g: GraphIndex, type: string, attr: string): AttributeSpec | undefined {
  return g.types.get(type)?.attributes.find((a) => a.name === attr)
}

/** "larger"/"earlier"… for comparing values of an attribute. */
export function comparative(spec: AttributeSpec | undefined, order: 'max' | 'min', rng: Rng): string {
  if (spec?.kind === 'year' || spec?.kind === 'date') return order === 'max' ? 'later' : 'earlier'
  // "higher area" reads oddly; heights and elevations are high, everything else large.
  const tall = /height|elevation/.test(spec?.label ?? '')
  if (tall) return order === 'max' ? rng.pick(['higher', 'greater']) : 'lower'
  return order === 'max' ? rng.pick(['larger', 'greater']) : 'smaller'
}

export function askCompare(rng: Rng, a: string, b: string, label: string, adj: string): Worded {
  const k = rng.int(0, 2)
  if (k === 0) return { text: `Which has the ${adj} ${label}: ${a} or ${b}?`, template: 'compare/which-has' }
  if (k === 1) return { text: capitalise(`between ${a} and ${b}, which one has the ${adj} ${label}?`), template: 'compare/between' }
  return { text: capitalise(`of ${a} and ${b}, which has the ${adj} ${label}?`), template: 'compare/of' }
}

export function askSum(rng: Rng, a: string, b: string, label: string): Worded {
  const k = rng.int(0, 2)
  if (k === 0) return { text: `What is the sum of the ${label} of ${a} and the ${label} of ${b}?`, template: 'sum/sum-of' }
  if (k === 1) return { text: `What is the combined ${label} of ${a} and ${b}?`, template: 'sum/combined' }
  return { text: `If you add the ${label} of ${a} to the ${label} of ${b}, what total do you get?`, template: 'sum/add' }
}

/** `a` is the larger value. */
export function askDifference(rng: Rng, a: string, b: string, label: string, years: boolean): Worded {
  const k = rng.int(0, 2)
  if (years && k === 0) return { text: `How many years separate the ${label} of ${a} and the ${label} of ${b}?`, template: 'difference/years' }
  if (k === 1) return { text: `By how much does the ${label} of ${a} exceed the ${label} of ${b}?`, template: 'difference/exceed' }
  return { text: `What is the difference between the ${label} of ${a} and the ${label} of ${b}?`, template: 'difference/between' }
}

export function askSame(rng: Rng, a: string, b: string, noun: string): Worded {
  const k = rng.int(0, 2)
  if (k === 0) return { text: capitalise(`are ${a} and ${b} the same ${noun}?`), template: 'same/are' }
  if (k === 1) return { text: capitalise(`is ${a} the same ${noun} as ${b}?`), template: 'same/is' }
  return { text: capitalise(`do ${a} and ${b} refer to the same ${noun}?`), template: 'same/refer' }
}
