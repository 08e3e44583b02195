// agent/oracle/plan-types: what crosses the oracle plan's boundary — the knowledge it may look up, the calls it yields,
// its options and its one failure. oracle-plan re-exports them; the plan's own modules import them from here.
import type { AttrValue, Edge, Entity } from '../../world'

/** What the oracle may look up in the world: the graph (to follow the gold path) and verification queries. */
export interface OracleKnowledge {
  entity(id: string): Entity | undefined
  edge(id: string): Edge | undefined
  /** Queries verification ran for an edge whose results held the edge's target page, best rank first. */
  verifiedQueries(edgeId: string): string[]
  /** Entities of a type whose attribute has this value (Combo 'param' questions: where the oracle must go next). */
  entitiesWith(type: string, attr: string, value: AttrValue): Entity[]
  /** Queries lookup verification ran for finding an entity by this attribute's value whose results held its page. */
  lookupQueries?(entityId: string, attr: string): string[]
  /** Every entity of a type (a two-step blurred start: which names on a neighbour's page are candidates). */
  entitiesOfType?(type: string): Entity[]
}

export type OracleCall = { name: 'search'; arguments: { query: string } } | { name: 'access'; arguments: { url: string; page?: number } }

/** A plan's moves: they yield tool calls and receive the env's observation text. */
export type Calls<T> = Generator<OracleCall, T, string>

export class OracleFailure extends Error {}

export const fail = (msg: string): never => {
  throw new OracleFailure(msg)
}

/** Parse one observation of the hermes protocol: URLs of a search result list. */
export function resultUrls(obs: string): string[] {
  const out: string[] = []
  for (const m of obs.matchAll(/^URL: (.+)$/gm)) out.push(m[1])
  return out
}

/** Search attempts per page before the oracle gives up: the default of every plan (check, SFT, tests). */
export const ORACLE_MAX_QUERIES_PER_PAGE = 6

export interface OraclePlanOptions {
  /** Search attempts per page before giving up (default 6). */
  maxQueriesPerPage: number
  /** How a paged document is read: 'all' (every page when it is opened: the world check's default) or 'needed'
   *  (page 1, then further pages in order only until what the hop needs — its evidence sentence, the value read —
   *  is in the text: a reader stops reading when it has found the fact; shorter SFT demonstrations). */
  pages?: 'all' | 'needed'
  /** An entity answer at the end of a chain (Simple, Combo part 2): 'open' (default: the answer's own page is found
   *  and opened, as the world check proves) or 'read' (when the last hop's evidence sentence naming the answer is
   *  already in an opened page, answer with that name and open nothing more — a reader stops when it has read the
   *  answer: a one-hop demonstration is search, access, answer, 3 turns instead of 5). */
  answer?: 'open' | 'read'
}
