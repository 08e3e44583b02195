// agent/grpo/turn-credit: turn-level credit assignment for GRPO with step rewards (the gym's `process`/`cost` terms)
// and the group terms that need the whole group (R1-Searcher++'s fewest-retrievals bonus). The group baseline is the
// mean TERMINAL reward; a turn's advantage adds the step credit from that turn on (reward-to-go):
//   A_{j,t} = (R_j − mean_k R_k + Σ_{t' ≥ t} p_{j,t'}) / s,   s = std_k(R_k + Σ_t p_{k,t}) + eps   ('mean': s = 1)
// With no step credit this is exactly groupAdvantages(R). Knows nothing of tokens, envs or models.
import type { AdvantageOptions } from './advantages'

/** Terminal rewards with the fewest-retrievals bonus: +bonus to every correct episode whose tool calls equal the
 *  fewest among the group's correct episodes (no correct episode: no bonus). */
export function fewestRetrievalsBonus(correct: readonly boolean[], retrievals: readonly number[], bonus: number): number[] {
  const counts = retrievals.filter((_, j) => correct[j])
  if (counts.length === 0 || bonus === 0) return correct.map(() => 0)
  const min = Math.min(...counts)
  return correct.map((c, j) => (c && retrievals[j] === min ? bonus : 0))
}

/** Per-turn advantages of one group: terminal_G[j] and steps_G[j][t] (the step credit paid on turn t). */
export function turnAdvantages(terminal_G: readonly number[], steps_G: readonly (readonly number[])[], opts: AdvantageOptions = {}): number[][] {
  const G = terminal_G.length
  if (G === 0) return []
  const totals = terminal_G.map((r, j) => r + steps_G[j].reduce((a, b) => a + b, 0))
  if (totals.every((x) => x === totals[0])) return steps_G.map((s) => s.map(() => 0))
  const base = terminal_G.reduce((a, b) => a + b, 0) / G
  let scale = 1
  if (opts.normalize !== 'mean') {
    const m = totals.reduce((a, b) => a + b, 0) / G
    const denom = opts.std === 'sample' ? G - 1 : G
    scale = Math.sqrt(totals.reduce((a, x) => a + (x - m) * (x - m), 0) / denom) + (opts.eps ?? 1e-6)
  }
  return steps_G.map((steps, j) => {
    const out = new Array<number>(steps.length)
    let togo = 0
    for (let t = steps.length - 1; t >= 0; t--) {
      togo += steps[t]
      out[t] = (terminal_G[j] - base + togo) / scale
    }
    return out
  })
}
