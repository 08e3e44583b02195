import { Rng } from '../../infra/rng'
import { presetConfig } from '../../infra/engine/config'
import { createBackend } from '../../infra/engine/create-backend'
import { createLoraAdapter, LORA_TARGETS } from '../../infra/engine/lora'
import { createRandomModel } from '../../infra/engine/model'
import { generate } from '../../infra/engine/sample'
const be = createBackend((process.argv[2] ?? 'native') as 'native')
const times = new Map<string, [number, number]>()
const proto = Object.getPrototypeOf(be)
for (const k of Object.getOwnPropertyNames(proto)) {
  const f = (be as any)[k]
  if (typeof f !== 'function' || k === 'constructor') continue
  ;(be as any)[k] = function (...a: unknown[]) { const t0 = performance.now(); const r = f.apply(be, a); const e = times.get(k) ?? [0, 0]; e[0] += performance.now() - t0; e[1]++; times.set(k, e); return r }
}
const cfg = presetConfig('small', 1024, [1023])
const model = createRandomModel(cfg, new Rng(1), be)
model.adapter = createLoraAdapter(be, cfg, { rank: 32, alpha: 64, targets: [...LORA_TARGETS] }, new Rng(3))
times.clear()
const rng = new Rng(2)
const prompt = Array.from({ length: 64 }, () => rng.int(0, 1000))
const t0 = performance.now()
const toks = generate(model, prompt, { n: 8, maxNewTokens: 64, seed: 3, eosTokenIds: [] }).reduce((a, s) => a + s.tokens.length, 0)
const el = performance.now() - t0
let inBe = 0
for (const [, [t]] of times) inBe += t
console.log(be.name, (toks / el * 1000).toFixed(0), 'tok/s', el.toFixed(0), 'ms total;', inBe.toFixed(0), 'ms in backend')
console.log([...times].sort((a, b) => b[1][0] - a[1][0]).slice(0, 10).map(([k, [t, c]]) => `${k} ${t.toFixed(0)}ms/${c}`).join(', '))
