// agent/train/step-progress: the progress line inside one GRPO step — rollouts done / total, rate, ETA — told as
// rollouts finish, at most one line every PROGRESS_MS (the step's own line, with its metrics, comes from the loop).
export const PROGRESS_MS = 2_000

/** "train: step 3/20: rollouts 17/32, 1.40/s, ETA 11s" (refill rounds may add rollouts past the total). */
export class StepProgress {
  private done = 0
  private readonly t0: number
  private last: number
  constructor(
    private readonly step: number,
    private readonly steps: number,
    private readonly total: number,
    private readonly log: (line: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.t0 = this.last = now()
  }
  tick(): void {
    this.done++
    const now = this.now()
    if (now - this.last < PROGRESS_MS || this.done >= this.total) return
    this.last = now
    const rate = this.done / ((now - this.t0) / 1000)
    this.log(`train: step ${this.step}/${this.steps}: rollouts ${this.done}/${this.total}, ${rate.toFixed(2)}/s, ETA ${Math.ceil((this.total - this.done) / rate)}s`)
  }
}
