// bench/perf/native-cache-growth: reproduces the resident-memory growth of sampling on the native backend when every
// call has new shapes (as in GRPO rollouts: every turn's prompt length differs). Twelve generateBatch calls on a
// model folder (+ adapter), 4 prompts × n 4, prompt lengths growing by 37 tokens per call; prints RSS and external
// memory after each. Before the arena's size classes (native-backend.ts sizeClass) native memory grew with every new
// shape for ever (the arena kept freed blocks per exact size: 138 → 1,010 MB external in 12 calls on `small`); with
// them it grows only while the prompt reaches new size classes (138 → 272 MB over the same 12 calls).
//
// Usage: node bin/run-ts.mjs bench/perf/native-cache-growth.ts MODEL_DIR [ADAPTER_DIR] [--backend native|ts]
import { createBackend, generateBatch, loadLoraAdapter, loadModel, parseBackendName } from '../../infra/engine'
import { perfArgs } from './perf-args'

const { values: opt, positionals } = perfArgs('node bin/run-ts.mjs bench/perf/native-cache-growth.ts MODEL_DIR [ADAPTER_DIR] [--backend native|ts]', { backend: { type: 'string', default: 'native' } }, 1)
const backend = opt.backend
const [modelDir, adapterDir] = positionals
const model = loadModel(modelDir, createBackend(parseBackendName(backend)))
if (adapterDir) model.adapter = loadLoraAdapter(adapterDir, model.backend, model.config)
const mb = (x: number) => Math.round(x / 1e6)
for (let it = 0; it < 12; it++) {
  const L = Math.min(1000 + 37 * it, model.config.maxPositionEmbeddings - 64)
  const prompt = Array.from({ length: L }, (_, i) => 100 + (i % Math.max(1, model.config.vocabSize - 200)))
  generateBatch(model, [prompt, prompt.slice(0, L - 13), prompt.slice(0, L - 29), prompt.slice(0, L - 51)], { n: 4, maxNewTokens: 32, temperature: 1, topP: 1, topK: 0, seed: it, eosTokenIds: [], useLora: model.adapter !== undefined })
  const m = process.memoryUsage()
  process.stdout.write(`call ${it + 1}: prompt ${L} tokens, rss ${mb(m.rss)} MB, external ${mb(m.external)} MB\n`)
}
