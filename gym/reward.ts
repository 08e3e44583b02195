// gym/reward: composable episode reward specs (paper F1, Search-R1 lab EM+format, R1-Searcher stage 1/2) over an
// episode outcome. The answer metrics themselves live in answer-metrics; this file knows no protocol or world.
import { passPoint } from '../infra/run-points'
import { ownLookup } from '../infra/lookup'
import { GymError } from '../infra/errors'
import { scoreAnswer } from './answer-metrics'

export { normalizeAnswer, f1Score, exactMatch, scoreAnswer } from './answer-metrics'

/** What a reward can depend on: the final answer (if the episode ended with a valid one) and how the episode went. */
export interface EpisodeOutcome {
  /** The parsed final answer; undefined when the episode ended without a valid answer (truncated, error). */
  answer?: string
  /** Gold answer followed by its aliases. */
  golds: readonly string[]
  /** Turns rejected as malformed (bad JSON, unknown tool, ...). */
  malformedTurns: number
  /** Search calls that were well formed and returned without a tool failure. */
  validSearches: number
  /** Episode totals of the step terms (already paid step by step; reported as `reward/<term>`, not added again). */
  stepTotals?: Record<string, number>
}

/** One additive term of a reward. */
export type RewardTerm =
  /** Token-level F1 of the answer (0 without one). */
  | 'f1'
  /** Exact match of the answer (0 without one). */
  | 'em'
  /** Search-R1 lab: 0 with a valid final answer, −0.1 without. */
  | 'format'
  /** R1-Searcher stage 1: +0.5 when the whole episode is well formed and ends with an answer, else 0. */
  | 'format-bonus'
  /** R1-Searcher stage 2: 0 when the whole episode is well formed and ends with an answer, else −2. */
  | 'format-penalty'
  /** R1-Searcher stage 1: +0.5 when the episode made at least one valid retrieval. */
  | 'retrieval'
  /** Step term (gym/reward-steps): discounted credit per new gold document found/accessed − redundant actions, ±0.25. */
  | 'process'
  /** Step term (gym/reward-steps): −0.02 per tool call, at most −0.25 an episode. */
  | 'cost'
  /** Group term (R1-Searcher++): +0.2 to a group's correct answers with the fewest tool calls; applied where groups
   *  are scored (agent/grpo/groups), 0 in a single episode. */
  | 'fewest-retrievals'

const TERMS: readonly RewardTerm[] = ['f1', 'em', 'format', 'format-bonus', 'format-penalty', 'retrieval', 'process', 'cost', 'fewest-retrievals']

/** Terms paid per step by the env (each step's reward), not at the end. */
export const STEP_TERMS: readonly RewardTerm[] = ['process', 'cost']
/** Terms that need the whole group (the trainer's group scorer adds them). */
export const GROUP_TERMS: readonly RewardTerm[] = ['fewest-retrievals']

export interface RewardSpec {
  name: string
  terms: RewardTerm[]
}

/** Named presets; any `a+b` combination of terms is accepted as well. */
export const REWARD_PRESETS: Record<string, RewardTerm[]> = {
  f1: ['f1'],
  em: ['em'],
  'em+format': ['em', 'format'],
  'f1+format': ['f1', 'format'],
  'r1-searcher-stage1': ['format-bonus', 'retrieval'],
  'r1-searcher-stage2': ['f1', 'format-penalty'],
  /** Terminal F1 + capped step credit from the verified path (issue 14). */
  process: ['f1', 'process'],
  /** Terminal F1 − a price per tool call. */
  cost: ['f1', 'cost'],
  /** Terminal F1 + R1-Searcher++'s fewest-retrievals bonus among a group's correct answers. */
  'cost-group': ['f1', 'fewest-retrievals'],
}

/** Parse a spec name: a preset, or terms joined by '+'. A RewardSpec already parsed passes through (its terms checked). */
export function parseRewardSpec(spec: string | RewardSpec): RewardSpec {
  if (typeof spec !== 'string') {
    const bad = () => new GymError('reward.unknown_spec', `reward must be a spec name (${Object.keys(REWARD_PRESETS).join(', ')} or terms joined by '+'), got ${JSON.stringify(spec)?.slice(0, 80)}`)
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw bad()
    // A parsed spec passes only as parseRewardSpec made it: exactly {name, terms}, its terms those its name parses to
    // (so {"name":"f1","terms":["em"]} cannot score EM under the name f1, and no stray key rides along).
    const keys = Object.keys(spec).sort()
    if (keys.length !== 2 || keys[0] !== 'name' || keys[1] !== 'terms' || typeof spec.name !== 'string' || !Array.isArray(spec.terms)) throw bad()
    const named = termsOf(spec.name)
    if (typeof named === 'string' || named.length !== spec.terms.length || named.some((t, i) => t !== spec.terms[i])) throw bad()
    return { name: spec.name, terms: named }
  }
  // Counted from outside (tests subscribe to the run points): a run parses its spec once, at the edge.
  passPoint('reward-spec-parse')
  const terms = termsOf(spec)
  if (typeof terms === 'string')
    throw new GymError('reward.unknown_spec', `unknown reward spec '${spec}': use a preset (${Object.keys(REWARD_PRESETS).join(', ')}) or terms joined by '+' (${TERMS.join(', ')})`)
  return { name: spec, terms }
}

/** The terms a spec name stands for, or the name back when it is none (not counted as a parse). */
function termsOf(spec: string): RewardTerm[] | string {
  const preset = ownLookup(REWARD_PRESETS, spec)
  if (preset) return [...preset]
  const parts = spec.split('+').map((s) => s.trim())
  if (parts.some((p) => !(TERMS as readonly string[]).includes(p))) return spec
  return parts as RewardTerm[]
}

export interface RewardResult {
  reward: number
  /** f1, em, format_ok and one `reward/<term>` per term (step terms: the episode total, paid earlier). */
  metrics: Record<string, number>
}

export function computeReward(spec: RewardSpec, o: EpisodeOutcome): RewardResult {
  const answered = o.answer !== undefined
  const { f1, em } = answered ? scoreAnswer(o.answer as string, o.golds) : { f1: 0, em: 0 }
  const strictFormat = answered && o.malformedTurns === 0
  const metrics: Record<string, number> = { f1, em, answered: answered ? 1 : 0, format_ok: strictFormat ? 1 : 0 }
  let reward = 0
  for (const t of spec.terms) {
    let v: number
    switch (t) {
      case 'f1':
        v = f1
        break
      case 'em':
        v = em
        break
      case 'format':
        v = answered ? 0 : -0.1
        break
      case 'format-bonus':
        v = strictFormat ? 0.5 : 0
        break
      case 'format-penalty':
        v = strictFormat ? 0 : -2
        break
      case 'retrieval':
        v = o.validSearches > 0 ? 0.5 : 0
        break
      case 'process':
      case 'cost':
        // Paid per step by the env; here only reported.
        metrics[`reward/${t}`] = o.stepTotals?.[t] ?? 0
        continue
      case 'fewest-retrievals':
        // Needs the group: added by the trainer's group scorer.
        metrics[`reward/${t}`] = 0
        continue
    }
    metrics[`reward/${t}`] = v
    reward += v
  }
  return { reward, metrics }
}
