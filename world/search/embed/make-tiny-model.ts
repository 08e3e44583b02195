// world/search/embed/make-tiny-model: `node bin/run-ts.mjs world/search/embed/make-tiny-model.ts --world DIR --out DIR
// [--hidden N] [--seed S]` — writes the seeded tiny ONNX embedder FIXTURE (tiny-model.ts) with a tokenizer over a
// built world's documents, for trying dense/hybrid worlds and benchmarks where no real model can be downloaded.
import { parseArgs } from 'node:util'
import { worldTexts } from '../../store/texts'
import { oneLine } from '../../../infra/errors'
import { writeTinyEmbedder } from './tiny-model'

try {
  const { values } = parseArgs({ options: { world: { type: 'string' }, out: { type: 'string' }, hidden: { type: 'string', default: '128' }, seed: { type: 'string', default: '1' } } })
  if (!values.world || !values.out) throw new Error('usage: make-tiny-model.ts --world WORLD_DIR --out MODEL_DIR [--hidden N] [--seed S]')
  const hidden = Number(values.hidden)
  const seed = Number(values.seed)
  if (!Number.isInteger(hidden) || hidden < 1) throw new Error(`--hidden must be a positive integer, got ${values.hidden}`)
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed must be a non-negative integer, got ${values.seed}`)
  const w = writeTinyEmbedder(values.out, { texts: [...worldTexts(values.world)], hidden, seed })
  process.stdout.write(`tiny embedder (fixture): vocab ${w.vocab}, hidden ${w.hidden} → ${values.out}\n`)
} catch (e) {
  process.stderr.write(`make-tiny-model: ${oneLine(e)}\n`)
  process.exit(2)
}
