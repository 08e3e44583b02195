// tests/helpers/gold-answers: the gold answer of each question of a real world's split, keyed by question text — for
// replayed "models" in CLI tests that must answer right (or wrong on purpose) without a real model.
import { openBenchWorld } from '../../bench'
import type { Qa } from '../../world'

/** The first `limit` questions of `split` in the order `bench run` asks them. */
export async function questionsOf(dir: string, split: string, limit: number): Promise<Qa[]> {
  const w = await openBenchWorld(dir)
  try {
    return w.questions(split).slice(0, limit)
  } finally {
    await w.close()
  }
}

/** The question among `qas` whose text the prompt contains (the env or policy puts it in the user message). */
export function qaIn(qas: readonly Qa[], prompt: string): Qa | undefined {
  return qas.find((q) => prompt.includes(q.question))
}
