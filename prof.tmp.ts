import { Rng } from './infra/rng'
import { presetConfig } from './infra/engine/config'
import { createBackend } from './infra/engine/create-backend'
import { createRandomModel, createKvCache, decoderStack, logits } from './infra/engine/model'
const preset = (process.argv[2] ?? 'small') as 'small'
const S0 = Number(process.argv[3] ?? 0)
const be = createBackend('native')
const model = createRandomModel(presetConfig(preset, 1024, [1023]), new Rng(1), be)
const stack = decoderStack(model)
const R = 8
const caches = Array.from({ length: R }, () => createKvCache(model, 2000))
const ids = new Int32Array(R).fill(5), cu = Int32Array.from({ length: R + 1 }, (_, i) => i)
let tf = 0, tl = 0, ts = 0
const steps = 64
function cpuNow(): number { const c = process.cpuUsage(); return (c.user + c.system) / 1000 }
for (let s = 0; s < steps; s++) {
  const starts = new Int32Array(R).fill(S0 + s)
  const t0 = cpuNow()
  const h = be.forwardCached(stack, ids, cu, caches, starts)
  const t1 = cpuNow()
  const lg = logits(model, h)
  const t2 = cpuNow()
  be.sampleRows(lg, { temperature: 1, topK: 0, topP: 1 }, new Float64Array(R).fill(0.5))
  const t3 = cpuNow()
  be.release(h); be.release(lg)
  tf += t1 - t0; tl += t2 - t1; ts += t3 - t2
}
console.log(preset, 'S0', S0, 'per step cpu ms: forwardCached', (tf / steps).toFixed(3), 'logits', (tl / steps).toFixed(3), 'sample', (ts / steps).toFixed(3))
