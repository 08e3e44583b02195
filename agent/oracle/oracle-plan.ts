// agent/oracle/oracle-plan: the oracle's walk as a coroutine — yields tool calls, receives the env's observation
// text, returns the final answer. It follows the gold path (QA meta: chains, steps, continuation) and finds every
// page by searching (verified queries, names it has read, name + relation keyword), opens it with access and
// checks the hop's evidence sentence and the next entity's name in the accessed text. Answers come from what it
// read: page titles and attribute values found in accessed text (never Qa.answer). Knows no protocol or HTTP.
// The plan is a small state machine: a question's route is a list of named phases (plan-route), each run over one state
// object (plan-state) by plan-phases, spending calls through plan-moves and plan-blur.
import type { Qa } from '../../world'
import { runPhase } from './plan-phases'
import { routeOf } from './plan-route'
import { PlanState } from './plan-state'
import { fail, ORACLE_MAX_QUERIES_PER_PAGE, type OracleCall, type OracleKnowledge, type OraclePlanOptions } from './plan-types'

export { OracleFailure, ORACLE_MAX_QUERIES_PER_PAGE, resultUrls } from './plan-types'
export type { OracleCall, OracleKnowledge, OraclePlanOptions } from './plan-types'

/** The plan for one QA. Drive it with gen.next(observationText); it returns the answer or throws OracleFailure. */
export function* oraclePlan(qa: Qa, k: OracleKnowledge, opts: OraclePlanOptions = { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE }): Generator<OracleCall, string, string> {
  const s = new PlanState(qa, k, opts)
  const route = routeOf(qa)
  for (;;) {
    const phase = route.shift() ?? fail(`the oracle's route for ${qa.id} ended without an answer`)
    const next = yield* runPhase(s, phase)
    if (typeof next === 'string') return next
    route.unshift(...next)
  }
}
