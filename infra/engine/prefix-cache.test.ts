// infra/engine/prefix-cache.test: sampling with a KvPrefixCache — the next turn (whole sequence + an observation)
// prefills only the new tokens and gives the same tokens and log-probs as prefilling everything; a change of the
// adapter's values drops the kept caches. On the ts backend, and on native where it built (else reported skipped).
import { Rng } from '../rng'
import type { Backend } from './backend'
import { presetConfig } from './config'
import { createLoraAdapter, LORA_TARGETS } from './lora'
import { type CausalLM, createRandomModel } from './model'
import { loadNativeAddon } from './native/addon'
import { createNativeBackend } from './native/native-backend'
import { KvPrefixCache } from './prefix-cache'
import { generateBatch } from './sample'
import { createTsBackend } from './ts-backend'

function model(be: Backend): CausalLM {
  const m = createRandomModel(presetConfig('tiny', 40, [1]), new Rng(3), be, { std: 0.3 })
  const rng = new Rng(4)
  m.adapter = createLoraAdapter(be, m.config, { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }, rng)
  for (const p of m.adapter.params())
    if (p.name.includes('lora_B')) be.writeRows(p.tensor, 0, be.fromHost(Float32Array.from({ length: p.tensor.shape[0] * p.tensor.shape[1] }, () => rng.normal(0, 0.1)), p.tensor.shape))
  return m
}

/** Two turns as PolicyBatch runs them: n samples of one prompt, then each sequence + an observation as its own prompt. */
function twoTurns(m: CausalLM, prefixCache?: KvPrefixCache) {
  const params = { maxNewTokens: 5, temperature: 0, eosTokenIds: [] as number[], prefixCache }
  const prompt = [2, 7, 11, 3, 5, 8]
  const t1 = generateBatch(m, [prompt], { ...params, n: 3 })[0]
  const next = t1.map((s, i) => [...prompt, ...s.tokens, 20 + i, 21, 22])
  const t2 = generateBatch(m, next, { ...params, n: 1 }).map((x) => x[0])
  return { t1, t2, next }
}

const backends: [string, (() => Backend) | undefined, string?][] = [
  ['ts', createTsBackend],
  ['native', loadNativeAddon().addon ? createNativeBackend : undefined, loadNativeAddon().reason],
]

for (const [name, make, why] of backends) {
  if (!make) {
    test.skip(`prefix cache on ${name} (skipped: ${why})`, () => {})
    continue
  }
  describe(`KvPrefixCache on ${name}`, () => {
    test('the next turn prefills only its new tokens and samples what a full prefill samples', () => {
      const m = model(make())
      const plain = twoTurns(m)
      const pc = new KvPrefixCache()
      const cached = twoTurns(m, pc)
      expect(cached.t2.map((s) => s.tokens)).toEqual(plain.t2.map((s) => s.tokens))
      cached.t2.forEach((s, i) => s.modelLogprobs.forEach((lp, t) => expect(Math.abs(lp - plain.t2[i].modelLogprobs[t])).toBeLessThan(1e-4)))
      // Turn 1: 6 prompt tokens prefilled once. Turn 2: each row's kept cache covers prompt + all but its last
      // sampled token, so only that token and the 3 observation tokens are prefilled.
      expect(pc.prefilled).toBe(6 + 3 * 4)
      expect(pc.reused).toBe(3 * (6 + 4))
      expect(pc.size).toBe(3)
    })

    test('a change of the adapter drops the kept caches (nothing reused, same result as without a cache)', () => {
      const m = model(make())
      const pc = new KvPrefixCache()
      const first = twoTurns(m, pc)
      const p = m.adapter!.params().find((x) => x.name.includes('lora_B'))!
      m.backend.addInPlace(p.tensor, m.backend.fromHost(new Float32Array(p.tensor.shape[0] * p.tensor.shape[1]).fill(0.05), p.tensor.shape))
      const reusedBefore = pc.reused
      const params = { maxNewTokens: 5, temperature: 0, eosTokenIds: [] as number[], n: 1 }
      const again = generateBatch(m, first.next, { ...params, prefixCache: pc }).map((x) => x[0])
      expect(pc.reused).toBe(reusedBefore)
      const fresh = generateBatch(m, first.next, params).map((x) => x[0])
      expect(again.map((s) => s.modelLogprobs)).toEqual(fresh.map((s) => s.modelLogprobs))
    })
  })
}
