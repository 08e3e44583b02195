// bench/perf/blur: what blurring does to a question, measured on the hard world's bench split against each question's
// named twin (the same draw, same id, in a world built without blur): the oracle's turns and tool calls through the
// env, and one-shot RAG's retrieval (the question as the one query, the top ragDocs pages, 4,000 characters each, as
// agent/policy/one-shot-rag reads them) — the answer-in-context rate (the F1 a perfect reader of those pages could get)
// and the start page's presence, with paired bootstrap CIs (bench/stats).
// Usage: node bin/run-ts.mjs bench/perf/blur.ts HARD_WORLD NAMED_WORLD [--rag-docs 3]
import { runOracle } from '../../agent'
import { worldOracleKnowledge } from '../../agent/oracle/oracle-knowledge'
import { CHECK_GYM_OPTIONS } from '../../agent/oracle/oracle-check'
import { gymWorldFromIndex, makeEnv } from '../../gym'
import { normalizeAnswer } from '../../gym/reward'
import { openSearchIndex, openWorld, worldReader } from '../../world'
import { isBlurred, namedChains } from '../../world/qa/blur-pool'
import { docText } from '../../world/qa/load'
import { readQa } from '../../world/qa/store'
import type { Qa } from '../../world/types'
import { bootstrapMean, pairedDifference } from '../stats'

const args = process.argv.slice(2)
const [hardDir, namedDir] = args.filter((a) => !a.startsWith('--') && !/^\d+$/.test(a))
const ragDocs = Number(args[args.indexOf('--rag-docs') + 1] ?? 3) || 3
if (!hardDir || !namedDir) throw new Error('usage: bench/perf/blur.ts HARD_WORLD NAMED_WORLD [--rag-docs N]')

async function oracleRuns(dir: string, qas: Qa[]): Promise<{ turns: number[]; solved: number }> {
  const w = openWorld(dir)
  const index = await openSearchIndex(w, { quiet: true })
  const world = gymWorldFromIndex('blur-perf', index, qas)
  try {
    const k = worldOracleKnowledge(worldReader(w.db))
    const turns: number[] = []
    let solved = 0
    for (const qa of qas) {
      const r = await runOracle(makeEnv(world, qa, CHECK_GYM_OPTIONS), qa, k)
      turns.push(r.turns)
      if (!r.failure && r.f1 >= 1) solved++
    }
    return { turns, solved }
  } finally {
    await world.close()
    w.close()
  }
}

async function rag(dir: string, qas: Qa[]): Promise<{ inContext: number[]; startFound: number[] }> {
  const w = openWorld(dir)
  const index = await openSearchIndex(w, { quiet: true })
  try {
    const hits = await index.searchMany(
      qas.map((q) => q.question),
      { k: 5 },
    )
    const urlOf = new Map((w.db.prepare('SELECT id, url FROM entities').all() as { id: string; url: string }[]).map((r) => [r.id, r.url]))
    const inContext: number[] = []
    const startFound: number[] = []
    qas.forEach((qa, i) => {
      const urls = hits[i].slice(0, ragDocs).map((h) => h.url)
      const context = normalizeAnswer(urls.map((u) => (docText(w.db, u) ?? '').slice(0, 4000)).join(' \n '))
      inContext.push([qa.answer, ...qa.aliases].some((a) => normalizeAnswer(a).length > 0 && context.includes(normalizeAnswer(a))) ? 1 : 0)
      const starts = namedChains(qa).map((c) => urlOf.get(c.start))
      startFound.push(starts.some((s) => s !== undefined && urls.includes(s)) ? 1 : 0)
    })
    return { inContext, startFound }
  } finally {
    await index.close()
    w.close()
  }
}

async function main(): Promise<void> {
  const hw = openWorld(hardDir)
  const hard = readQa(hw.db, ['bench'])
  hw.close()
  const nw = openWorld(namedDir)
  const named = new Map(readQa(nw.db, ['train', 'bench', 'excluded']).map((q) => [q.id, q]))
  nw.close()
  const pairs = hard.filter((q) => named.has(q.id))
  const blurredQ = pairs
  const namedQ = pairs.map((q) => named.get(q.id)!)
  const t0 = process.hrtime.bigint()
  const cpu0 = process.cpuUsage()
  const ob = await oracleRuns(hardDir, blurredQ)
  const on = await oracleRuns(namedDir, namedQ)
  const rb = await rag(hardDir, blurredQ)
  const rn = await rag(namedDir, namedQ)
  const cpu = process.cpuUsage(cpu0)
  const wall = Number(process.hrtime.bigint() - t0) / 1e9
  const opts = (label: string) => ({ resamples: 2000, seed: 11, label })
  const pct = (e: { mean: number; lo: number; hi: number }) => `${(100 * e.mean).toFixed(1)} [${(100 * e.lo).toFixed(1)}, ${(100 * e.hi).toFixed(1)}]`
  const num = (e: { mean: number; lo: number; hi: number }) => `${e.mean.toFixed(2)} [${e.lo.toFixed(2)}, ${e.hi.toFixed(2)}]`
  const byType = (xs: number[], qs: Qa[], t: string) => xs.filter((_, i) => qs[i].type === t)
  console.log(`pairs: ${pairs.length} of ${hard.length} hard bench questions have a named twin (all blurred: ${hard.every(isBlurred)})`)
  console.log(`oracle solved: blurred ${ob.solved}/${pairs.length}, named ${on.solved}/${pairs.length}; most turns: blurred ${Math.max(...ob.turns)}, named ${Math.max(...on.turns)}`)
  console.log(`oracle turns (tool calls = turns - 1): blurred ${num(bootstrapMean(ob.turns, opts('tb')))}, named ${num(bootstrapMean(on.turns, opts('tn')))}; paired diff ${num(pairedDifference(on.turns, ob.turns, opts('td')))}`)
  for (const t of ['simple', 'parallel', 'combo'])
    console.log(`  ${t}: blurred ${num(bootstrapMean(byType(ob.turns, blurredQ, t), opts(`tb${t}`)))}, named ${num(bootstrapMean(byType(on.turns, namedQ, t), opts(`tn${t}`)))}`)
  console.log(`one-shot RAG (top-${ragDocs} pages of the question as one query), answer in context %: blurred ${pct(bootstrapMean(rb.inContext, opts('ab')))}, named ${pct(bootstrapMean(rn.inContext, opts('an')))}; paired diff pp ${pct(pairedDifference(rn.inContext, rb.inContext, opts('ad')))}`)
  console.log(`one-shot RAG start page in context %: blurred ${pct(bootstrapMean(rb.startFound, opts('sb')))}, named ${pct(bootstrapMean(rn.startFound, opts('sn')))}; paired diff pp ${pct(pairedDifference(rn.startFound, rb.startFound, opts('sd')))}`)
  console.log(`wall ${wall.toFixed(1)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`)
}

void main()
