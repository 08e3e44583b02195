// tests/helpers/oracle-calls: the oracle's walk of each question of a world, recorded as the searches it makes — the
// query, the page that search found and opened next, and the question's evidence sentences on that page — plus the
// answer it gives. Run in process on the world (full-page access, as in the gym) with a given topk; the engine replicas
// (tests/replicas/engine_limits.py) then send the same queries to a real `gym serve` and cut what comes back as each
// engine does. Knows no engine and no HTTP.
import { openGymWorld } from '../../gym'
import { openWorld, readQa, type Qa } from '../../world'
import { worldOracleKnowledge, pageRetriever } from '../../agent'
import { ORACLE_MAX_QUERIES_PER_PAGE, OracleFailure, oraclePlan } from '../../agent/oracle/oracle-plan'

export interface OracleSearch {
  query: string
  /** The page this search found and the oracle opened next (absent: a search that missed its page). */
  found?: string
  /** The question's evidence sentences on `found` (empty: the page holds none of them, e.g. the start entity's). */
  sentences: string[]
}

export interface OracleTrace {
  qaId: string
  question: string
  /** Every accepted answer, the canonical one first (what the exports write as ground truth). */
  accepted: string[]
  /** The answer the oracle gave from what it read (undefined: its walk failed). */
  answer?: string
  failure?: string
  searches: OracleSearch[]
}

/** The oracle over the questions of the given splits (default: training pool and bench, in the world's order). */
export async function oracleTraces(dir: string, topk: number, splits: string[] = ['train', 'bench']): Promise<OracleTrace[]> {
  const gw = await openGymWorld(dir)
  const w = openWorld(dir)
  try {
    const k = worldOracleKnowledge(w)
    const retrieve = pageRetriever(gw)
    const qas: Qa[] = readQa(w.db).filter((q) => splits.includes(q.split))
    const out: OracleTrace[] = []
    for (const qa of qas) {
      const t: OracleTrace = { qaId: qa.id, question: qa.question, accepted: [...new Set([qa.answer, ...qa.aliases])], searches: [] }
      const gen = oraclePlan(qa, k, { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE, pages: 'all', answer: 'read' })
      let obs = ''
      try {
        for (;;) {
          const r = gen.next(obs)
          if (r.done) {
            t.answer = r.value
            break
          }
          const call = r.value
          if (call.name === 'search') {
            const docs = await retrieve(call.arguments.query, topk)
            t.searches.push({ query: call.arguments.query, sentences: [] })
            obs = docs.map((d) => `URL: ${d.url}`).join('\n')
          } else {
            const url = call.arguments.url
            const last = t.searches.at(-1)
            if (last && last.found === undefined && call.arguments.page === undefined) {
              last.found = url
              last.sentences = [...new Set(qa.evidence.filter((ev) => ev.url === url).map((ev) => ev.sentence))]
            }
            const page = await gw.access(url)
            obs = page ? `${page.title}\nURL: ${page.url}\n${page.text}` : ''
          }
        }
      } catch (e) {
        if (!(e instanceof OracleFailure)) throw e
        t.failure = e.message
      }
      out.push(t)
    }
    return out
  } finally {
    w.close()
    await gw.close()
  }
}
