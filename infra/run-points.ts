// infra/run-points: named points a long run passes (inside a world stage's write transaction, a training step between
// its metrics line and its checkpoint, a bench record just written), published on the node:diagnostics_channel
// 'searchgym:run-point'. Nothing subscribes in a user run (a publish without subscribers costs nothing); a tracer or
// the process-kill tests (tests/fixtures/hold-at-point.mjs, preloaded with --import) can. Knows no subscriber.
import { channel } from 'node:diagnostics_channel'

/** What a subscriber of 'searchgym:run-point' receives. */
export interface RunPoint {
  /** e.g. 'graph', 'verify', 'train-step-2', 'bench-record-4', 'experiment-sft'. */
  point: string
}

const points = channel('searchgym:run-point')

/** Publish `point` to the subscribers, synchronously (a subscriber runs inside the caller's transaction or step). */
export function passPoint(point: string): void {
  if (points.hasSubscribers) points.publish({ point } satisfies RunPoint)
}
