// view/trajectory: one trajectory record (bench, training or the oracle's) as the page shows it — each turn's tool
// calls parsed by the gym's own protocols, every gold document marked opened, seen in results, or missed (not for a
// closed-book run, which opens nothing), the turns paged and long texts cut. A turn that cannot be read is shown as
// a flagged turn, never an error for the whole record.
import { getProtocol, type ProtocolName } from '../gym'
import type { TrajectoryRecord, TurnRecord } from '../agent'
import type { GoldStatus, ToolCallView, TrajectoryView, TurnView } from './types'

const CTX = { tools: ['search', 'access'] as const, maxCallsPerTurn: 64, maxArgChars: 1_000_000 }
/** Texts longer than this are cut in a paged answer (the page asks for one turn with full=1 to show all). */
export const TEXT_CAP = 20_000

/** URLs a search observation lists (the protocols render "URL: <url>" per hit). */
export function observationUrls(text: string): string[] {
  return [...text.matchAll(/URL: (\S+)/g)].map((m) => m[1])
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v))

function turnView(t: TurnRecord, index: number, goldDocs: string[]): TurnView {
  try {
    if (typeof t !== 'object' || t === null) throw new Error(`a turn must be an object, got ${JSON.stringify(t)?.slice(0, 40)}`)
    // Native tool_calls are the openai protocol; otherwise the text carries <tool_call> tags (hermes; the oracle too).
    const proto: ProtocolName = Array.isArray(t.tool_calls) && t.tool_calls.length ? 'openai' : 'hermes'
    const parsed = getProtocol(proto).parse({ text: str(t.text), tool_calls: Array.isArray(t.tool_calls) ? t.tool_calls : undefined }, { ...CTX, tools: [...CTX.tools], turn: index + 1 })
    const obs = (Array.isArray(t.observation) ? t.observation : []).map((m) => ({ role: str(m?.role), name: typeof m?.name === 'string' ? m.name : undefined, content: str(m?.content) }))
    const obsText = obs.map((m) => m.content).join('\n')
    const urls = observationUrls(obsText)
    const calls: ToolCallView[] =
      parsed.kind === 'tools'
        ? parsed.calls.map((c) =>
            c.name === 'search' ? { name: 'search', argument: c.query, gold: goldDocs.filter((g) => urls.includes(g)) } : { name: 'access', argument: c.url, gold: goldDocs.filter((g) => g === c.url) },
          )
        : []
    return {
      index,
      text: str(t.text),
      calls,
      answer: parsed.kind === 'answer' ? parsed.answer : null,
      malformed: parsed.kind === 'malformed' ? `${parsed.error}: ${parsed.message}` : null,
      observation: obs,
      reward: typeof t.reward === 'number' ? t.reward : 0,
      metrics: t.metrics && typeof t.metrics === 'object' ? t.metrics : {},
    }
  } catch (e) {
    return { index, text: '', calls: [], answer: null, malformed: null, observation: [], reward: 0, metrics: {}, bad: (e as Error).message }
  }
}

function cut(t: TurnView, cap: number): TurnView {
  if (t.text.length <= cap && t.observation.every((o) => o.content.length <= cap)) return t
  const full = Math.max(t.text.length, ...t.observation.map((o) => o.content.length))
  return { ...t, text: t.text.slice(0, cap), observation: t.observation.map((o) => ({ ...o, content: o.content.slice(0, cap) })), cut: full }
}

export interface TurnWindow {
  offset: number
  limit: number
  /** Send texts whole (no TEXT_CAP). */
  full?: boolean
}

/** The page's view of a record; `goldDocs` are the question's documents from the world (empty without a world). */
export function trajectoryView(run: string, r: TrajectoryRecord, goldDocs: string[], opts: { window?: TurnWindow; closedBook?: boolean } = {}): TrajectoryView {
  const all = (Array.isArray(r.turns) ? r.turns : []).map((t, i) => turnView(t, i, goldDocs))
  const opened = new Set(all.flatMap((t) => t.calls.filter((c) => c.name === 'access').flatMap((c) => c.gold)))
  const seen = new Set(all.flatMap((t) => t.calls.filter((c) => c.name === 'search').flatMap((c) => c.gold)))
  const status = (u: string): GoldStatus => (opened.has(u) ? 'opened' : seen.has(u) ? 'seen' : 'missed')
  const v: TrajectoryView = {
    run,
    id: r.id,
    type: r.type,
    hops: r.hops,
    question: r.question,
    status: r.status,
    stopReason: r.stopReason ?? null,
    f1: r.f1 ?? 0,
    em: r.em ?? 0,
    prediction: r.prediction ?? null,
    turns: all.length,
    turnOffset: 0,
    golds: Array.isArray(r.golds) ? r.golds.map(str) : [],
    goldDocs: opts.closedBook ? [] : goldDocs.map((url) => ({ url, status: status(url) })),
    closedBook: opts.closedBook || undefined,
    turns_: all,
    error: r.error,
  }
  return opts.window ? windowed(v, opts.window) : v
}

/** Turns offset … offset + limit - 1 of a whole view, long texts cut unless `full`. */
export function windowed(v: TrajectoryView, w: TurnWindow): TrajectoryView {
  const turns = v.turns_.slice(w.offset, w.offset + w.limit).map((t) => (w.full ? t : cut(t, TEXT_CAP)))
  return { ...v, turnOffset: Math.min(w.offset, v.turns_.length), turns_: turns }
}
