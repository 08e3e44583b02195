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

/** An access by title (the env's accessByTitle: a page named by its title, not its URL) of gold document `url`:
 *  the URL's last part is the title with underscores for spaces. */
const slug = (s: string) => s.trim().replace(/[^\p{L}\p{N}]+/gu, '_')
const byTitle = (url: string, arg: string): boolean => slug(url.slice(url.lastIndexOf('/') + 1)) === slug(arg)

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v))

/** The text protocols a turn may be written in (the run's own; hermes when the run names none or another). */
const TEXT_PROTOCOL_NAMES: readonly string[] = ['hermes', 'search-r1']

function turnView(t: TurnRecord, index: number, goldDocs: string[], protocol: string | null): TurnView {
  try {
    if (typeof t !== 'object' || t === null) throw new Error(`a turn must be an object, got ${JSON.stringify(t)?.slice(0, 40)}`)
    // Native tool_calls are the openai protocol; otherwise the text is parsed with the protocol the run's policy wrote
    // (its config.json: search-r1 tags <search>/<answer>, or hermes <tool_call>; the oracle writes hermes).
    const text: ProtocolName = protocol !== null && TEXT_PROTOCOL_NAMES.includes(protocol) ? (protocol as ProtocolName) : 'hermes'
    const proto: ProtocolName = Array.isArray(t.tool_calls) && t.tool_calls.length ? 'openai' : text
    const parsed = getProtocol(proto).parse({ text: str(t.text), tool_calls: Array.isArray(t.tool_calls) ? t.tool_calls : undefined }, { ...CTX, tools: [...CTX.tools], turn: index + 1 })
    const obs = (Array.isArray(t.observation) ? t.observation : []).map((m) => ({ role: str(m?.role), name: typeof m?.name === 'string' ? m.name : undefined, content: str(m?.content) }))
    const obsText = obs.map((m) => m.content).join('\n')
    const urls = observationUrls(obsText)
    const calls: ToolCallView[] =
      parsed.kind === 'tools'
        ? parsed.calls.map((c) =>
            c.name === 'search' ? { name: 'search', argument: c.query, gold: goldDocs.filter((g) => urls.includes(g)) } : { name: 'access', argument: c.url, gold: goldDocs.filter((g) => g === c.url || byTitle(g, c.url)) },
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

/** Whether a turn mentions `key` anywhere a call or a result could name a document (text, tool calls, observation). */
function mentions(t: TurnRecord, keys: string[]): boolean {
  if (typeof t !== 'object' || t === null) return true
  const parts = [str(t.text), Array.isArray(t.tool_calls) ? JSON.stringify(t.tool_calls) : '', ...(Array.isArray(t.observation) ? t.observation.map((m) => str(m?.content)) : [])]
  // A page opened by title names it in words ("A-b C" for the URL's A_b_C): compared in the URL's spelling too.
  return parts.some((p) => keys.some((k) => p.includes(k))) || (keys.some((k) => /_/.test(k)) && parts.some((p) => keys.some((k) => slug(p).includes(slug(k)))))
}

/**
 * One record's pages: the gold documents' statuses over every turn, and each turn laid out when a page first asks for
 * it (a 5,000-turn record is not laid out whole to show 100 turns). For the statuses only turns that mention a gold
 * document (the last part of its URL, which JSON escaping leaves as it is) are parsed: a turn can open or see a
 * document only by naming it in a call or receiving its URL in a result.
 */
export class TrajectoryPages {
  private readonly turns: TurnRecord[]
  private readonly views = new Map<number, TurnView>()
  private readonly head: Omit<TrajectoryView, 'turns_' | 'turnOffset'>
  private readonly protocol: string | null

  constructor(
    run: string,
    r: TrajectoryRecord,
    private readonly goldDocs: string[],
    opts: { closedBook?: boolean; protocol?: string | null } = {},
  ) {
    this.protocol = opts.protocol ?? null
    this.turns = Array.isArray(r.turns) ? r.turns : []
    const opened = new Set<string>()
    const seen = new Set<string>()
    if (goldDocs.length && !opts.closedBook) {
      const keys = goldDocs.map((g) => g.slice(g.lastIndexOf('/') + 1) || g)
      this.turns.forEach((t, i) => {
        if (!mentions(t, keys)) return
        for (const c of this.turn(i).calls) for (const g of c.gold) (c.name === 'access' ? opened : seen).add(g)
      })
    }
    const status = (u: string): GoldStatus => (opened.has(u) ? 'opened' : seen.has(u) ? 'seen' : 'missed')
    this.head = {
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
      turns: this.turns.length,
      golds: Array.isArray(r.golds) ? r.golds.map(str) : [],
      goldDocs: opts.closedBook ? [] : goldDocs.map((url) => ({ url, status: status(url) })),
      closedBook: opts.closedBook || undefined,
      error: r.error,
    }
  }

  private turn(i: number): TurnView {
    let v = this.views.get(i)
    if (!v) this.views.set(i, (v = turnView(this.turns[i], i, this.goldDocs, this.protocol)))
    return v
  }

  /** Turns offset … offset + limit - 1, long texts cut unless `full`. */
  page(w: TurnWindow): TrajectoryView {
    const from = Math.min(Math.max(0, w.offset), this.turns.length)
    const to = Math.min(this.turns.length, from + Math.max(0, w.limit))
    const turns_: TurnView[] = []
    for (let i = from; i < to; i++) turns_.push(w.full ? this.turn(i) : cut(this.turn(i), TEXT_CAP))
    return { ...this.head, turnOffset: from, turns_ }
  }
}

/** The page's view of a record, every turn (texts whole) or one window; `goldDocs` are the question's documents from
 *  the world (empty without a world). */
export function trajectoryView(run: string, r: TrajectoryRecord, goldDocs: string[], opts: { window?: TurnWindow; closedBook?: boolean; protocol?: string | null } = {}): TrajectoryView {
  return new TrajectoryPages(run, r, goldDocs, opts).page(opts.window ?? { offset: 0, limit: Infinity, full: true })
}
