// curriculum/reading/pool: the reading curriculum's items — the oracle plays each chosen question of a world pool once
// (through the real gym, the run's protocol and gym options, the `read` answer), every solved episode becomes a
// DrillSource, and each (question, kind) drill is built on first use and kept. Knows worlds, the oracle and the codec;
// not how a phase mixes kinds or what a step does.
import { episodeBudgets, makeEnv, scoreAnswer, type GymOptions } from '../../gym'
import { ORACLE_MAX_QUERIES_PER_PAGE, oraclePolicy, runEpisode, worldOracleKnowledge, goldsOf } from '../../agent'
import type { ChatCodec } from '../../infra/engine'
import { openWorld, type Qa } from '../../world'
import { DEMO_BUDGETS } from '../funnel'
import type { WorldPool } from '../world-pool'
import { drillSequence, hasDrill, type DrillKind, type DrillSequence, type DrillSource } from './kinds'
import { ConfigError } from '../../infra/errors'

export interface PoolItem extends DrillSource {
  qa: Qa
  golds: string[]
}

export interface PlayOptions {
  gym: GymOptions
  /** Longest sequence kept (the model's context). */
  maxTokens: number
  log?: (line: string) => void
  label?: string
}

/** The oracle's solved episodes of `qas` (questions of `pool`), in order; unsolved ones are left out (counted). */
export async function playOracle(pool: WorldPool, qas: readonly Qa[], o: PlayOptions): Promise<{ items: PoolItem[]; unsolved: number }> {
  const opened = pool.members.map((m) => openWorld(m.dir))
  try {
    const knowledge = new Map(pool.members.map((m, i) => [m.name, worldOracleKnowledge(opened[i])]))
    const plan = { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE, pages: 'needed' as const, answer: 'read' as const }
    const items: PoolItem[] = []
    let unsolved = 0
    const t0 = performance.now()
    for (let i = 0; i < qas.length; i++) {
      const qa = qas[i]
      const oracle = oraclePolicy({ ...qa, id: pool.localId(qa) }, knowledge.get(pool.memberOf(qa).name)!, plan, o.gym.protocol as 'search-r1' | 'hermes', o.gym.accessByTitle)
      const env = makeEnv(pool.worldFor(qa), qa, { ...o.gym, budgets: episodeBudgets(qa, o.gym.budgets, { ...DEMO_BUDGETS, maxResponseTokens: 256, maxContextTokens: o.maxTokens }) })
      const rec = await runEpisode(qa, env, oracle, { scorer: scoreAnswer })
      if (rec.status !== 'ok' || rec.f1 < 1) {
        unsolved++
        continue
      }
      const last = Math.max(...qa.evidence.map((e) => e.hop))
      items.push({
        id: qa.id,
        hops: qa.hops,
        qa,
        golds: goldsOf(qa),
        initial: rec.initial,
        turns: rec.turns.map((t) => ({ text: t.text, observation: t.observation })),
        lastEvidence: qa.evidence.filter((e) => e.hop === last).map((e) => e.sentence),
      })
      if (o.log && (i + 1) % 5000 === 0) {
        const rate = (i + 1) / ((performance.now() - t0) / 1000)
        o.log(`reader: oracle ${o.label ?? ''} ${i + 1}/${qas.length} episodes, ${rate.toFixed(0)}/s, ETA ${Math.round((qas.length - i - 1) / rate)} s`)
      }
    }
    return { items, unsolved }
  } finally {
    for (const w of opened) w.close()
  }
}

/** Drill sequences of a list of items, built on first use and cached; `null` marks "this item has no such drill". */
export class DrillCache {
  private readonly cache = new Map<DrillKind, (DrillSequence | null | undefined)[]>()
  private readonly eligible = new Map<DrillKind, number[]>()

  constructor(
    readonly items: readonly PoolItem[],
    private readonly codec: ChatCodec,
    private readonly leadSpace: boolean,
    private readonly maxTokens: number,
  ) {}

  /** The drill of item i (undefined when it has none); one longer than the model's context is an error. */
  get(i: number, kind: DrillKind): DrillSequence | undefined {
    let row = this.cache.get(kind)
    if (!row) this.cache.set(kind, (row = new Array(this.items.length)))
    if (row[i] === undefined) {
      const s = drillSequence(this.codec, this.items[i], kind, this.leadSpace)
      if (s && s.ids.length > this.maxTokens)
        throw new ConfigError('reader.context', `the ${kind} drill of ${this.items[i].id} has ${s.ids.length} tokens, more than the model's context of ${this.maxTokens}`)
      row[i] = s ?? null
    }
    return row[i] ?? undefined
  }

  /** The indices of items that have a drill of `kind` (decided without building them: hasDrill). */
  indices(kind: DrillKind): number[] {
    let idx = this.eligible.get(kind)
    if (!idx) {
      idx = []
      for (let i = 0; i < this.items.length; i++) if (hasDrill(this.items[i], kind)) idx.push(i)
      this.eligible.set(kind, idx)
    }
    return idx
  }
}

/** Share of items whose answer, rendered as the answer turn renders it (` X`), is a contiguous run of the page's
 *  tokens in the sequence of kind `page` (the copy is token-identical there). */
export function answerContiguity(cache: DrillCache, codec: ChatCodec): { n: number; contiguous: number } {
  let n = 0, contiguous = 0
  for (const i of cache.indices('page')) {
    const s = cache.get(i, 'page')!
    const item = cache.items[i]
    const a = codec.tokenizer.encode(' ' + item.qa.answer)
    const from = s.mask.indexOf(1)
    const ctx = s.ids.subarray(0, from)
    n++
    outer: for (let p = 0; p + a.length <= ctx.length; p++) {
      for (let j = 0; j < a.length; j++) if (ctx[p + j] !== a[j]) continue outer
      contiguous++
      break
    }
  }
  return { n, contiguous }
}

