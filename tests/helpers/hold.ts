// tests/helpers/hold: the env that holds a started `searchgym` process at one run point (infra/run-points) until the
// test kills it — the tests/fixtures/hold-at-point.mjs preload (through NODE_OPTIONS, so the processes it starts hold
// too) and the point's name. Production code reads none of it.
import { fileURLToPath } from 'node:url'

const PRELOAD = fileURLToPath(new URL('../fixtures/hold-at-point.mjs', import.meta.url))

/** Env entries that make a started process announce and hold at `point` ("test hold in stage POINT" on stderr). */
export function holdAtPoint(point: string): Record<string, string> {
  const before = process.env.NODE_OPTIONS ? `${process.env.NODE_OPTIONS} ` : ''
  return { NODE_OPTIONS: `${before}--import=${PRELOAD}`, SEARCHGYM_TEST_HOLD: point }
}
