// view/trajectory: one trajectory record (bench, training or the oracle's) as the page shows it — each turn's tool
// calls parsed by the gym's own protocols, and every gold document marked opened, seen in results, or missed.
import { getProtocol, type ProtocolName } from '../gym'
import type { TrajectoryRecord, TurnRecord } from '../agent'
import type { GoldStatus, ToolCallView, TrajectoryView, TurnView } from './types'

const CTX = { tools: ['search', 'access'] as const, maxCallsPerTurn: 64, maxArgChars: 1_000_000 }

/** URLs a search observation lists (the protocols render "URL: <url>" per hit). */
export function observationUrls(text: string): string[] {
  return [...text.matchAll(/URL: (\S+)/g)].map((m) => m[1])
}

function turnView(t: TurnRecord, index: number, goldDocs: string[]): TurnView {
  // Native tool_calls are the openai protocol; otherwise the text carries <tool_call> tags (hermes; the oracle too).
  const proto: ProtocolName = t.tool_calls?.length ? 'openai' : 'hermes'
  const parsed = getProtocol(proto).parse({ text: t.text ?? '', tool_calls: t.tool_calls }, { ...CTX, tools: [...CTX.tools], turn: index + 1 })
  const obs = (t.observation ?? []).map((m) => ({ role: m.role, name: m.name, content: m.content }))
  const obsText = obs.map((m) => m.content).join('\n')
  const calls: ToolCallView[] =
    parsed.kind === 'tools'
      ? parsed.calls.map((c) =>
          c.name === 'search'
            ? { name: 'search', argument: c.query, gold: goldDocs.filter((g) => observationUrls(obsText).includes(g)) }
            : { name: 'access', argument: c.url, gold: goldDocs.filter((g) => g === c.url) },
        )
      : []
  return {
    index,
    text: t.text ?? '',
    calls,
    answer: parsed.kind === 'answer' ? parsed.answer : null,
    malformed: parsed.kind === 'malformed' ? `${parsed.error}: ${parsed.message}` : null,
    observation: obs,
    reward: t.reward ?? 0,
    metrics: t.metrics ?? {},
  }
}

/** The page's view of a record; `goldDocs` are the question's documents from the world (empty without a world). */
export function trajectoryView(run: string, r: TrajectoryRecord, goldDocs: string[]): TrajectoryView {
  const turns = (r.turns ?? []).map((t, i) => turnView(t, i, goldDocs))
  const opened = new Set(turns.flatMap((t) => t.calls.filter((c) => c.name === 'access').flatMap((c) => c.gold)))
  const seen = new Set(turns.flatMap((t) => t.calls.filter((c) => c.name === 'search').flatMap((c) => c.gold)))
  const status = (u: string): GoldStatus => (opened.has(u) ? 'opened' : seen.has(u) ? 'seen' : 'missed')
  return {
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
    turns: turns.length,
    golds: r.golds ?? [],
    goldDocs: goldDocs.map((url) => ({ url, status: status(url) })),
    turns_: turns,
    error: r.error,
  }
}
