// world/qa/format: how values are written in questions and answers (thousands separators, units) and the gold
// aliases an answer accepts. Pure functions; no locale dependence (fixed formatting, same bytes everywhere).
import { formatAttr } from '../docs/docs'
import type { AttrValue, AttributeSpec, Entity, EntityTypeSpec } from '../types'

/** 1234567 → "1,234,567"; negative and fractional values keep their sign and decimals. */
export function withThousands(n: number): string {
  const s = String(n)
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(s)
  if (!m) return s
  return m[1] + m[2].replace(/\B(?=(\d{3})+(?!\d))/g, ',') + (m[3] ?? '')
}

export function isNumericKind(kind: AttributeSpec['kind']): boolean {
  return kind === 'int' || kind === 'float' || kind === 'year'
}

/** The value as the documents print it (without the unit): years plain, numbers with separators, floats with
 *  one decimal, dates as "12 March 1950"; a computed number without a spec gets separators. */
export function formatValue(spec: AttributeSpec | undefined, v: AttrValue): string {
  if (spec) return formatAttr({ ...spec, unit: undefined }, v)
  return typeof v === 'number' ? withThousands(v) : String(v)
}

/** Aliases of a value answer: with and without thousands separators, with and without the unit. */
export function valueAliases(spec: AttributeSpec | undefined, v: AttrValue): string[] {
  const shown = formatValue(spec, v)
  const out: string[] = [shown]
  if (typeof v === 'number') {
    const plain = shown.replace(/,/g, '')
    out.push(plain, String(v))
    if (spec?.unit) out.push(`${shown} ${spec.unit}`, `${plain} ${spec.unit}`)
  } else if (spec?.kind === 'date') {
    out.push(v)
    const y = /^(\d{4})-\d\d-\d\d$/.exec(v)
    if (y) out.push(y[1])
  }
  return uniq(out)
}

/** Aliases of a number computed by a Parallel question (sum / difference). */
export function numberAliases(n: number, year = false): string[] {
  return uniq(year ? [String(n)] : [withThousands(n), String(n)])
}

const SUFFIXES = new Set(['jr', 'jr.', 'sr', 'sr.', 'ii', 'iii', 'iv', 'phd', 'md'])

export function isPersonType(t: EntityTypeSpec | undefined): boolean {
  return t !== undefined && (t.name === 'Person' || t.noun === 'person')
}

/** Aliases of an entity answer: its name; for a person also the surname and first + last name. */
export function entityAliases(e: Entity, t: EntityTypeSpec | undefined): string[] {
  const out = [e.name]
  if (isPersonType(t)) {
    const tokens = e.name.split(/\s+/).filter((x) => x.length > 0)
    const core = tokens.filter((x, i) => i === 0 || !SUFFIXES.has(x.toLowerCase().replace(/,$/, '')))
    if (core.length >= 2) {
      out.push(core[core.length - 1].replace(/,$/, ''))
      if (core.length > 2) out.push(`${core[0]} ${core[core.length - 1]}`)
    }
  }
  return uniq(out)
}

export function uniq(xs: string[]): string[] {
  return [...new Set(xs)]
}
