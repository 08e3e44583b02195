// agent/grpo/advantages: group-relative advantages of GRPO — each trajectory's reward against the others of
// its group (same question). Shapes: G trajectories per group. It does not know tokens or losses.

export interface AdvantageOptions {
  /** 'std': (r − mean)/(std + eps) (paper default); 'mean': r − mean. */
  normalize?: 'std' | 'mean'
  /** Which std: 'population' (divide by G, the paper's and verl's GRPO default) or 'sample' (G − 1, torch.std). */
  std?: 'population' | 'sample'
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
  const denom = opts.std === 'sample' ? G - 1 : G
  const std = Math.sqrt(rewards_G.reduce((a, r) => a + (r - mean) * (r - mean), 0) / denom)
  return rewards_G.map((r) => (r - mean) / (std + (opts.eps ?? 1e-6)))
}

/** True when every reward of the group is equal (no learning signal; counted and skipped by the trainer). */
export function isDegenerateGroup(rewards_G: readonly number[]): boolean {
  return rewards_G.every((r) => r === rewards_G[0])
}

/** How a degenerate group is counted: all rewards 0 (too hard), all ≥ 1 (too easy), or another constant. */
export function degenerateKind(rewards_G: readonly number[]): 'all0' | 'all1' | 'constant' | null {
  if (rewards_G.length === 0 || !isDegenerateGroup(rewards_G)) return null
  if (rewards_G[0] === 0) return 'all0'
  if (rewards_G[0] >= 1) return 'all1'
  return 'constant'
}
