// agent/grpo/advantages: group-relative advantages of GRPO — each trajectory's reward against the others of
// its group (same question). Shapes: G trajectories per group. It does not know tokens or losses.

export interface AdvantageOptions {
  /** 'std': (r − mean)/(std + eps) (paper default, population std); 'mean': r − mean. */
  normalize?: 'std' | 'mean'
  /** Added to the std (default 1e-6). */
  eps?: number
}

/** Advantages of one group; a group whose rewards are all equal (degenerate) gets all zeros. */
export function groupAdvantages(rewards_G: readonly number[], opts: AdvantageOptions = {}): number[] {
  const G = rewards_G.length
  if (G === 0) return []
  const mean = rewards_G.reduce((a, b) => a + b, 0) / G
  if (rewards_G.every((r) => r === rewards_G[0])) return rewards_G.map(() => 0)
  if (opts.normalize === 'mean') return rewards_G.map((r) => r - mean)
  const std = Math.sqrt(rewards_G.reduce((a, r) => a + (r - mean) * (r - mean), 0) / G)
  return rewards_G.map((r) => (r - mean) / (std + (opts.eps ?? 1e-6)))
}

/** True when every reward of the group is equal (no learning signal; counted and skipped by the trainer). */
export function isDegenerateGroup(rewards_G: readonly number[]): boolean {
  return rewards_G.every((r) => r === rewards_G[0])
}
