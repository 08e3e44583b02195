// tests/helpers/view-big-runs: big run folders for the viewer's load tests, written straight to disk (no model, no
// world): a training run of STEPS metrics.jsonl + timing.jsonl rows (every StepMetrics/StepTiming key, two stages),
// and a bench run whose trajectories.jsonl grows to about MB megabytes of ordinary 4–8 KB records, with one
// 5,000-turn record three quarters of the way in (its first turn's text 50,000 characters) and one malformed record (`"f1":"0.5"`). Deterministic: every value
// is a function of the row number (no random draws).
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export interface BigRuns {
  train: string
  bench: string
  /** The id of the 5,000-turn record and of the malformed one. */
  longId: string
  badId: string
  bytes: number
  records: number
}

const TYPES = ['simple', 'parallel', 'combo']

function turn(i: number, k: number): Record<string, unknown> {
  const q = `entity ${k % 97} relation ${(k * 7) % 13} step ${i}`
  return {
    text: `<think>Turn ${k}: I still need the ${(k % 5) + 1}th hop of question ${i}; searching for it.</think>\n<tool_call>{"name": "search", "arguments": {"query": "${q}"}}</tool_call>`,
    observation: [{ role: 'tool', name: 'search', content: Array.from({ length: 3 }, (_, j) => `[${j + 1}] Page ${k}-${j}\nURL: https://en.wikipedia.org/wiki/Page_${(k + j) % 1000}\nA sentence about page ${k}-${j} that the search returned for ${q}.`).join('\n') }],
    reward: 0,
  }
}

function record(i: number, turns: number): Record<string, unknown> {
  return {
    id: `q${String(i).padStart(7, '0')}`,
    type: TYPES[i % 3],
    hops: 1 + (i % 4),
    question: `Which city is the birthplace of the founder of organisation number ${i}?`,
    golds: [`City ${i % 500}`],
    status: 'ok',
    stopReason: turns > 1000 ? 'max_turns' : 'answer',
    f1: (i % 5) / 4,
    em: i % 5 === 4 ? 1 : 0,
    prediction: `City ${(i * 3) % 500}`,
    // The long record's first turn has a 50,000-character text (the page collapses it; the API cuts it at 20,000).
    turns: Array.from({ length: turns }, (_, k) => (turns > 1000 && k === 0 ? { ...turn(i, k), text: `${turn(i, k).text as string} ${'long thought '.repeat(3846)}`.slice(0, 50_000) } : turn(i, k))),
  }
}

export function makeBigRuns(root: string, opts: { steps: number; mb: number }): BigRuns {
  const train = join(root, 'big-train')
  mkdirSync(train, { recursive: true })
  writeFileSync(join(train, 'config.json'), JSON.stringify({ steps: opts.steps, curriculum: 'two-stage' }))
  const m = openSync(join(train, 'metrics.jsonl'), 'w')
  const t = openSync(join(train, 'timing.jsonl'), 'w')
  let mbuf = ''
  let tbuf = ''
  for (let s = 1; s <= opts.steps; s++) {
    const x = s / opts.steps
    const wob = Math.sin(s / 7) * 0.05
    mbuf += JSON.stringify({ step: s, stage: s <= opts.steps / 2 ? 'stage1' : 'stage2', questions: 8, episodes: 64, groupsKept: 6, all0: 1, all1: 1, constant: 2, maskedEpisodes: 0, rewardMean: 0.2 + 0.5 * x + wob, rewardStd: 0.3, f1: 0.1 + 0.4 * x + wob, em: 0.05 + 0.3 * x, formatValid: 0.9, invalidFormat: 0.1, truncated: 1, truncationRate: 0.02 + wob / 10, searches: 2 + x, accesses: 1 + x, turns: 3, responseTokens: 120 + 40 * x, loss: 1 / (1 + 10 * x) + wob / 5, trainedTokens: 4000, clipFraction: 0.05 + wob / 10, kl: 0.001 * (1 + 20 * x), meanRatio: 1, gradNorm: 0.5 + wob, entropy: 1.2 - 0.4 * x }) + '\n'
    tbuf += JSON.stringify({ step: s, seconds: 2 + (s % 3) * 0.1, cpuS: 3.1, samplingS: 1.2, envS: 0.3, learnS: 0.4, learnCpuS: 0.7, evalS: 0, trainerS: 0.1, trainerShare: 0.05, sampledTokens: 8000, tokensPerS: 4000 + (s % 17) * 10, rssMB: 900 + (s % 50) }) + '\n'
    if (mbuf.length > 1 << 20) (writeSync(m, mbuf), writeSync(t, tbuf), (mbuf = ''), (tbuf = ''))
  }
  writeSync(m, mbuf)
  writeSync(t, tbuf)
  closeSync(m)
  closeSync(t)

  const bench = join(root, 'big-bench')
  mkdirSync(bench, { recursive: true })
  writeFileSync(join(bench, 'config.json'), JSON.stringify({ policy: 'openai', model: 'fixture' }))
  const target = opts.mb * 1024 * 1024
  const f = openSync(join(bench, 'trajectories.jsonl'), 'w')
  let bytes = 0
  let i = 0
  let longId = ''
  let badId = ''
  let buf = ''
  while (bytes + buf.length < target || !longId) {
    let line: string
    if (!longId && bytes + buf.length >= target * 0.75) {
      const r = record(i, 5000)
      longId = r.id as string
      line = JSON.stringify(r)
    } else if (!badId && i === 10) {
      const r = record(i, 3)
      badId = r.id as string
      line = JSON.stringify({ ...r, f1: '0.5' })
    } else line = JSON.stringify(record(i, 6 + (i % 8)))
    buf += line + '\n'
    i++
    if (buf.length > 4 << 20) {
      bytes += writeSync(f, buf)
      buf = ''
    }
  }
  bytes += writeSync(f, buf)
  closeSync(f)
  return { train, bench, longId, badId, bytes, records: i }
}
