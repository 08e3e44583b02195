// agent/grpo/mini-batches: the PPO schedule over one rollout batch (verl's ppo_mini_batch_size / ppo_epochs) — per
// epoch the trajectories in a seeded shuffled order, cut into mini-batches of `size` (the last one may be smaller),
// one optimizer step each. One mini-batch and one epoch keep the batch as it is (no shuffle: today's single step).
// Knows nothing of tokens, losses or learners.
import type { Rng } from '../../infra/rng'

/** Fisher–Yates with the given Rng (a new array). */
export function shuffled<T>(xs: readonly T[], rng: Rng): T[] {
  const out = xs.slice()
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i)
    const t = out[i]
    out[i] = out[j]
    out[j] = t
  }
  return out
}

/** The mini-batches of every epoch, in order: epochs × ⌈n / size⌉ of them (size 0 or ≥ n: the whole batch). A
 *  single mini-batch is never shuffled (its order only decides micro-batch boundaries). */
export function ppoSchedule<T>(items: readonly T[], size: number, epochs: number, rng: Rng): T[][] {
  if (items.length === 0) return []
  const whole = size <= 0 || size >= items.length
  const out: T[][] = []
  for (let e = 0; e < epochs; e++) {
    if (whole) {
      out.push(items.slice())
      continue
    }
    const order = shuffled(items, rng)
    for (let i = 0; i < order.length; i += size) out.push(order.slice(i, i + size))
  }
  return out
}
