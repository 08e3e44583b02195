// gym/protocol/limits-boundary: the per-turn limits at their edges in every protocol that has them — a tool argument of
// exactly maxArgChars is accepted and one more character is refused; exactly maxCallsPerTurn calls are accepted and
// one more is refused — and the observation cap: a text of exactly `cap` characters is kept whole, cap + 1 is cut.
import { capObservation } from '../observation-cap'
import { parseHermesText } from './hermes'
import { parseOpenAiAction } from './openai'
import { parseSearchR1Text } from './search-r1'
import type { ParsedTurn, ProtocolContext } from './types'

const ctx: ProtocolContext = { tools: ['search', 'access'], maxCallsPerTurn: 2, turn: 0, maxArgChars: 20 }
const kind = (p: ParsedTurn) => (p.kind === 'malformed' ? p.error : p.kind)
const q = (n: number) => 'q'.repeat(n)
const hermesCall = (query: string) => `<tool_call>${JSON.stringify({ name: 'search', arguments: { query } })}</tool_call>`
const openaiCall = (query: string, i = 0) => ({ id: `c${i}`, type: 'function' as const, function: { name: 'search', arguments: JSON.stringify({ query }) } })

describe('maxArgChars: exactly the limit passes, one more is refused', () => {
  it('hermes', () => {
    expect(kind(parseHermesText(hermesCall(q(20)), ctx))).toBe('tools')
    expect(kind(parseHermesText(hermesCall(q(21)), ctx))).toBe('bad_argument')
    // Surrounding whitespace is trimmed before counting.
    expect(kind(parseHermesText(hermesCall(`  ${q(20)}  `), ctx))).toBe('tools')
  })
  it('openai tool_calls', () => {
    expect(kind(parseOpenAiAction({ text: '', tool_calls: [openaiCall(q(20))] }, ctx))).toBe('tools')
    expect(kind(parseOpenAiAction({ text: '', tool_calls: [openaiCall(q(21))] }, ctx))).toBe('bad_argument')
  })
  it('search-r1 tags', () => {
    expect(kind(parseSearchR1Text(`<search>${q(20)}</search>`, ctx))).toBe('tools')
    expect(kind(parseSearchR1Text(`<search>${q(21)}</search>`, ctx))).toBe('bad_argument')
  })
})

describe('maxCallsPerTurn: exactly the limit passes, one more is refused', () => {
  it('hermes', () => {
    expect(kind(parseHermesText(hermesCall('a') + hermesCall('b'), ctx))).toBe('tools')
    expect(kind(parseHermesText(hermesCall('a') + hermesCall('b') + hermesCall('c'), ctx))).toBe('too_many_calls')
  })
  it('openai tool_calls', () => {
    expect(kind(parseOpenAiAction({ text: '', tool_calls: [openaiCall('a', 0), openaiCall('b', 1)] }, ctx))).toBe('tools')
    expect(kind(parseOpenAiAction({ text: '', tool_calls: [openaiCall('a', 0), openaiCall('b', 1), openaiCall('c', 2)] }, ctx))).toBe('too_many_calls')
  })
})

describe('observation cap', () => {
  it('a text of exactly cap characters is whole; cap + 1 is cut to cap with a note', () => {
    expect(capObservation('x'.repeat(100), 100)).toEqual({ text: 'x'.repeat(100), truncated: false })
    const cut = capObservation('x'.repeat(101), 100)
    expect(cut.truncated).toBe(true)
    expect(cut.text.startsWith('x'.repeat(100) + '\n\n[Output truncated: showing the first 100 of 101 characters.]')).toBe(true)
  })
  it('never splits a surrogate pair at the cap', () => {
    const text = 'x'.repeat(99) + '😀' + 'y' // the emoji occupies code units 99 and 100
    const cut = capObservation(text, 100)
    expect(cut.text.startsWith('x'.repeat(99) + '\n\n[Output truncated: showing the first 99 of 102 characters.]')).toBe(true)
  })
})
