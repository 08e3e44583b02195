// curriculum/reading/evaluate: greedy scores of a model on drills of held-out items — for answer kinds the HotpotQA
// EM/F1 of the answer turn against the gold (max over aliases), for the tool kinds (search, access, hop) EM/F1 of the
// call's argument against the oracle's (did it copy the right name) — and the target's teacher-forced loss. The
// reading curriculum's gates and curves; the funnel (curriculum/funnel) is the end-to-end figure. Knows the codec,
// the protocol's parser and the engine's greedy decode; not training.
import { getProtocol, scoreAnswer, type GymOptions } from '../../gym'
import { generateBatch, type CausalLM, type ChatCodec } from '../../infra/engine'
import { answerNll } from '../funnel'
import { ANSWER_KINDS, targetStart, type DrillKind } from './kinds'
import type { DrillCache } from './pool'

export interface DrillScore {
  kind: DrillKind
  n: number
  em: number
  f1: number
  /** Mean per-token NLL of the target turn, teacher-forced (nats). */
  loss: number
  /** The first few: what the model wrote where the oracle wrote `want`. */
  examples: { want: string; got: string }[]
}

/** The argument of a parsed turn: the answer, the search query, the accessed URL or title; undefined if malformed. */
function argumentOf(text: string, gym: GymOptions): { kind: 'answer' | 'search' | 'access'; value: string } | undefined {
  const p = getProtocol(gym.protocol).parse({ text }, { tools: ['search', 'access'], maxCallsPerTurn: 1, turn: 1, maxArgChars: 1000, prompt: gym.prompt })
  if (p.kind === 'answer') return { kind: 'answer', value: p.answer }
  if (p.kind === 'tools' && p.calls.length === 1) {
    const c = p.calls[0]
    return c.name === 'search' ? { kind: 'search', value: c.query } : { kind: 'access', value: c.url }
  }
  return undefined
}

/** Greedy scores on the first `n` items (of `indices`) that have a drill of `kind`. */
export function scoreDrill(model: CausalLM, codec: ChatCodec, cache: DrillCache, kind: DrillKind, indices: readonly number[], gym: GymOptions, o: { n: number; batch?: number; maxNewTokens?: number }): DrillScore {
  const stop = codec.tokenizer.special.stop
  const chosen = indices.filter((i) => cache.get(i, kind)).slice(0, o.n)
  let em = 0, f1 = 0, loss = 0
  const examples: DrillScore['examples'] = []
  const size = o.batch ?? 32
  for (let at = 0; at < chosen.length; at += size) {
    const chunk = chosen.slice(at, at + size)
    const seqs = chunk.map((i) => cache.get(i, kind)!)
    const outs = generateBatch(model, seqs.map((s) => Array.from(s.ids.subarray(0, targetStart(s)))), { maxNewTokens: o.maxNewTokens ?? 32, temperature: 0, eosTokenIds: stop })
    chunk.forEach((i, j) => {
      const s = seqs[j]
      const from = targetStart(s)
      const got = codec.tokenizer.decode(outs[j][0].tokens.filter((t) => !stop.includes(t)))
      // The oracle's own target turn: the sequence's masked run (its end-of-turn id left out).
      let end = from
      while (end < s.mask.length && s.mask[end] === 1) end++
      const want = codec.tokenizer.decode(Array.from(s.ids.subarray(from, end)).filter((t) => !stop.includes(t)))
      const g = argumentOf(got, gym)
      let sc = { f1: 0, em: 0 }
      if ((ANSWER_KINDS as readonly string[]).includes(kind)) {
        if (g?.kind === 'answer') sc = scoreAnswer(g.value, cache.items[i].golds)
      } else {
        const w = argumentOf(want, gym)
        if (g && w && g.kind === w.kind) sc = scoreAnswer(g.value, [w.value])
      }
      em += sc.em
      f1 += sc.f1
      loss += answerNll(model, Array.from(s.ids.subarray(0, end)), from)
      if (examples.length < 4) examples.push({ want: want.trim(), got: got.trim() })
    })
  }
  const n = chosen.length
  return { kind, n, em: n ? em / n : 0, f1: n ? f1 / n : 0, loss: n ? loss / n : NaN, examples }
}
