// gym/step-signals: per-step process signals of one episode, computed from the world's record of the question (gold
// documents, evidence sentences per hop) and the env's own tool results — never from model-visible text the policy
// wrote. One StepSignals per SearchEnv; it remembers what the episode has already found, accessed and seen.
import type { Qa } from '../world'
import type { SearchResult } from './world-view'

/** The signals of one step (all counts; 0 on steps without tool calls). Reported as `signal/<key>` metrics. */
export interface StepSignalCounts {
  /** Gold documents whose URL is in this search's top-k for the first time (not found or accessed before). */
  gold_found: number
  /** Gold documents accessed for the first time in the episode. */
  gold_accessed: number
  /** Evidence sentences of the path that appear for the first time in an observation (the text the policy sees). */
  evidence_new: number
  /** Searches whose normalized query was issued before in the episode. */
  redundant_query: number
  /** Accesses of a URL accessed before in the episode. */
  redundant_access: number
  /** After this step: distinct path hops (evidence hop ≥ 0) whose evidence sentence has appeared in an observation. */
  hop_reached: number
}

export const SIGNAL_KEYS: readonly (keyof StepSignalCounts)[] = ['gold_found', 'gold_accessed', 'evidence_new', 'redundant_query', 'redundant_access', 'hop_reached']

// Every run of whitespace becomes one space: the same as s.replace(/\s+/g, ' ').trim(), but a lone ' ' (most of any
// text) is not a match, so an 8,000-character page costs a few µs instead of ~100 (the oracle check squashes millions).
const squash = (s: string): string => s.replace(/\s{2,}|[^\S ]/g, ' ').trim()
const normQuery = (q: string): string => squash(q.toLowerCase())

export class StepSignals {
  private readonly gold: Set<string>
  /** probe: the sentence's longest word — a text without it cannot hold the sentence, even after squashing. */
  private readonly evidence: { hop: number; sentence: string; probe: string }[]
  private readonly found = new Set<string>()
  private readonly accessed = new Set<string>()
  private readonly queries = new Set<string>()
  private readonly seenEvidence = new Set<number>()
  private readonly hopsSeen = new Set<number>()
  private cur: StepSignalCounts = StepSignals.zero(0)

  constructor(qa: Pick<Qa, 'docs' | 'evidence'>) {
    this.gold = new Set(qa.docs)
    this.evidence = qa.evidence
      .map((e) => {
        const sentence = squash(e.sentence)
        return { hop: e.hop, sentence, probe: sentence.split(' ').reduce((a, b) => (b.length > a.length ? b : a), '') }
      })
      .filter((e) => e.sentence.length > 0)
  }

  /** Gold documents in the question's record. */
  get goldCount(): number {
    return this.gold.size
  }

  private static zero(hop: number): StepSignalCounts {
    return { gold_found: 0, gold_accessed: 0, evidence_new: 0, redundant_query: 0, redundant_access: 0, hop_reached: hop }
  }

  /** Start a step (a turn of the policy). */
  begin(): void {
    this.cur = StepSignals.zero(this.hopsSeen.size)
  }

  /** A search call that returned results (before rendering). */
  search(query: string, results: readonly SearchResult[]): void {
    const q = normQuery(query)
    if (this.queries.has(q)) this.cur.redundant_query++
    else this.queries.add(q)
    for (const r of results)
      if (this.gold.has(r.url) && !this.found.has(r.url)) {
        this.found.add(r.url)
        this.cur.gold_found++
      }
  }

  /** An access call (whether or not the page exists). */
  access(url: string): void {
    if (this.accessed.has(url)) {
      this.cur.redundant_access++
      return
    }
    this.accessed.add(url)
    if (this.gold.has(url)) {
      this.cur.gold_accessed++
      this.found.add(url)
    }
  }

  /** The observation text the policy will see (after the observation cap). */
  observe(text: string): void {
    // Whether squash(text) holds the sentence, squashing only when it can matter: squashing keeps every run of
    // non-space characters, so a text without the probe word cannot hold the sentence; a text holding the sentence
    // verbatim still holds it squashed (the sentence has single spaces between words only).
    let t: string | undefined
    const holds = (e: { sentence: string; probe: string }): boolean =>
      text.includes(e.probe) && (text.includes(e.sentence) || (t ??= squash(text)).includes(e.sentence))
    this.evidence.forEach((e, i) => {
      if (this.seenEvidence.has(i) || !holds(e)) return
      this.seenEvidence.add(i)
      this.cur.evidence_new++
      if (e.hop >= 0) this.hopsSeen.add(e.hop)
    })
    this.cur.hop_reached = this.hopsSeen.size
  }

  /** This step's signals. */
  counts(): StepSignalCounts {
    return { ...this.cur }
  }

  /** Write this step's signals into a metrics record as `signal/<key>`. */
  report(metrics: Record<string, number>): StepSignalCounts {
    const c = this.counts()
    for (const k of SIGNAL_KEYS) metrics[`signal/${k}`] = c[k]
    return c
  }
}
