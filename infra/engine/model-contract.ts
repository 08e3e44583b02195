// infra/engine/model-contract: model-level checks every backend must pass with a tiny random Qwen3 — HF directory
// round trip (f32, bf16, sharded), Qwen2-style bias + untied head, LoRA with B = 0 equals the base, merged adapter
// equals unmerged, KV-cache decoding equals full recomputation, batched equals separate, the backend's fused
// forwardCached (batched prefill + decode) equals the per-row forward, decodeSample equals its composition, and the whole-model LoRA backward against
// finite differences. Call runModelContract({ name, make }) from a *.test.ts file (jest globals).
import { mkdtempSync, rmSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Rng } from '../rng'
import type { Backend } from './backend'
import { finiteDifferenceCheck, maxRelDiff } from './backend-contract'
import { presetConfig, type ModelConfig } from './config'
import { bf16ToF32, f32ToBf16 } from './safetensors'
import { createLoraAdapter, loadLoraAdapter, LORA_TARGETS, saveLoraAdapter } from './lora'
import {
  backward, createKvCache, createRandomModel, decoderStack, forward, loadModel, logits, mergeAdapter, saveModel, targetLogprobs,
  targetLogprobsBackward, type CausalLM,
} from './model'
import { decodeSampleReference, forwardCachedReference } from './forward-cached'
import { generateBatch } from './sample'

export function runModelContract(opts: { name: string; make: () => Backend }): void {
  const make = opts.make
  describe(`engine model contract: ${opts.name}`, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'engine-model-'))
    afterAll(() => rmSync(tmp, { recursive: true, force: true }))

    const cfg: ModelConfig = presetConfig('tiny', 40, [1])

    function allLogits(m: CausalLM, tokens: number[], useLora = true): Float32Array {
      const f = forward(m, [{ tokens }], { useLora })
      return m.backend.toHost(logits(m, f.hidden))
    }

    /** A random adapter with B ≠ 0 so it changes the model. */
    function withRandomAdapter(m: CausalLM, seed: number): CausalLM {
      const rng = new Rng(seed)
      m.adapter = createLoraAdapter(m.backend, m.config, { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }, rng)
      for (const p of m.adapter.params())
        if (p.name.includes('lora_B')) {
          const n = p.tensor.shape[0] * p.tensor.shape[1]
          const host = Float32Array.from({ length: n }, () => rng.normal(0, 0.1))
          m.backend.writeRows(p.tensor, 0, m.backend.fromHost(host, p.tensor.shape))
        }
      return m
    }

    const tokens = [3, 17, 5, 9, 22, 0, 39, 8]

    test('save → load round-trips the weights (f32 exact, sharded exact, bf16 close)', () => {
      const m = createRandomModel(cfg, new Rng(1), make(), { std: 0.2 })
      const ref = allLogits(m, tokens)
      saveModel(m, join(tmp, 'f32'))
      expect(Array.from(allLogits(loadModel(join(tmp, 'f32'), make()), tokens))).toEqual(Array.from(ref))
      saveModel(m, join(tmp, 'shard'), { maxShardBytes: 40_000 })
      const files = readdirSync(join(tmp, 'shard'))
      expect(files).toContain('model.safetensors.index.json')
      expect(files.filter((f) => f.endsWith('.safetensors')).length).toBeGreaterThan(1)
      expect(Array.from(allLogits(loadModel(join(tmp, 'shard'), make()), tokens))).toEqual(Array.from(ref))
      saveModel(m, join(tmp, 'bf16'), { dtype: 'BF16' })
      const lowered = loadModel(join(tmp, 'bf16'), make())
      const orig = m.backend.toHost(m.weights.layers[1].down)
      const want = orig.map((x) => bf16ToF32(f32ToBf16(x)))
      expect(Array.from(lowered.backend.toHost(lowered.weights.layers[1].down))).toEqual(Array.from(want))
      expect(maxRelDiff(orig, want)).toBeGreaterThan(0)
      expect(maxRelDiff(allLogits(lowered, tokens), ref)).toBeLessThan(0.1)
    })

    test('Qwen2-style (qkv bias, no qk-norm) and untied head load and run', () => {
      const c2: ModelConfig = { ...cfg, arch: 'qwen2', qkNorm: false, qkvBias: true, tieWordEmbeddings: false }
      const m = createRandomModel(c2, new Rng(2), make(), { std: 0.2 })
      saveModel(m, join(tmp, 'qwen2'))
      const back = loadModel(join(tmp, 'qwen2'), make())
      expect(back.config.qkvBias).toBe(true)
      expect(back.config.qkNorm).toBe(false)
      expect(Array.from(allLogits(back, tokens))).toEqual(Array.from(allLogits(m, tokens)))
    })

    test('LoRA with B = 0 gives exactly the base model', () => {
      const m = createRandomModel(cfg, new Rng(3), make(), { std: 0.2 })
      const base = allLogits(m, tokens)
      m.adapter = createLoraAdapter(m.backend, cfg, { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }, new Rng(4))
      expect(Array.from(allLogits(m, tokens))).toEqual(Array.from(base))
    })

    test('a merged adapter equals the unmerged one; LoRA off gives the base', () => {
      const m = withRandomAdapter(createRandomModel(cfg, new Rng(5), make(), { std: 0.2 }), 6)
      const base = allLogits(m, tokens, false)
      const withLora = allLogits(m, tokens)
      expect(maxRelDiff(withLora, base)).toBeGreaterThan(1e-3)
      const merged = mergeAdapter(m)
      expect(merged.adapter).toBeUndefined()
      expect(maxRelDiff(allLogits(merged, tokens), withLora)).toBeLessThan(1e-5)
    })

    test('KV-cache decoding (prefill then one token at a time) equals full recomputation', () => {
      const m = withRandomAdapter(createRandomModel(cfg, new Rng(7), make(), { std: 0.2 }), 8)
      const full = allLogits(m, tokens)
      const V = cfg.vocabSize
      const cache = createKvCache(m, tokens.length)
      const rows: Float32Array[] = []
      const pre = forward(m, [{ tokens: tokens.slice(0, 3), cache }])
      rows.push(m.backend.toHost(logits(m, pre.hidden)))
      for (let i = 3; i < tokens.length; i++) rows.push(m.backend.toHost(logits(m, forward(m, [{ tokens: [tokens[i]], cache }]).hidden)))
      expect(cache.length).toBe(tokens.length)
      const inc = new Float32Array(full.length)
      let o = 0
      for (const r of rows) {
        inc.set(r, o)
        o += r.length
      }
      expect(o).toBe(tokens.length * V)
      expect(maxRelDiff(inc, full)).toBeLessThan(1e-5)
    })

    test('a batch of sequences gives the same rows as separate forwards', () => {
      const m = createRandomModel(cfg, new Rng(9), make(), { std: 0.2 })
      const a = [1, 2, 3, 4], b = [7, 8]
      const f = forward(m, [{ tokens: a }, { tokens: b }])
      const both = m.backend.toHost(logits(m, f.hidden))
      expect(maxRelDiff(both, [...allLogits(m, a), ...allLogits(m, b)])).toBeLessThan(1e-6)
    })

    test('forwardCached (batched prefill, then batched decode steps of every row) equals the per-row forward with caches', () => {
      const m = withRandomAdapter(createRandomModel(cfg, new Rng(13), make(), { std: 0.2 }), 14)
      const be = m.backend
      const prompts = [[3, 17, 5, 9, 22], [8, 2], [30, 1, 4]]
      const more = [[11, 12, 13], [14], [15, 16]] // an appended observation (several tokens), then single decode tokens
      const decode = [[20, 21], [22, 23], [24, 25]]
      const cap = 16
      const stack = decoderStack(m)
      const batched = prompts.map(() => createKvCache(m, cap))
      const perRow = prompts.map(() => createKvCache(m, cap))
      const rounds = [prompts, more, ...[0, 1].map((i) => decode.map((d) => [d[i]]))]
      for (const [k, round] of rounds.entries()) {
        const ids = Int32Array.from(round.flat())
        const cu = new Int32Array(round.length + 1)
        round.forEach((r, i) => (cu[i + 1] = cu[i] + r.length))
        const starts = Int32Array.from(batched, (c) => c.length)
        // The composition (forward-cached.ts) on copies of the caches as they are before this round.
        const copies = batched.map((src) => {
          const c = createKvCache(m, cap)
          for (let l = 0; l < c.k.length; l++) {
            be.writeRows(c.k[l], 0, src.k[l])
            be.writeRows(c.v[l], 0, src.v[l])
          }
          return c
        })
        const hb = be.forwardCached(stack, ids, cu, batched, starts)
        const hr = forwardCachedReference(be, stack, ids, cu, copies, starts)
        batched.forEach((c, i) => (c.length += round[i].length))
        const fused = be.toHost(logits(m, hb))
        // The per-row path: model.forward on each sequence alone, with its own cache; its last row.
        const rows = round.map((r, i) => {
          const f = forward(m, [{ tokens: r, cache: perRow[i] }])
          return be.toHost(logits(m, be.sliceRows(f.hidden, r.length - 1, r.length)))
        })
        const want = new Float32Array(fused.length)
        rows.forEach((r, i) => want.set(r, i * cfg.vocabSize))
        const d = maxRelDiff(fused, want)
        if (!(d < 1e-5)) throw new Error(`round ${k}: fused vs per-row logits differ by ${d}`)
        expect(maxRelDiff(be.toHost(logits(m, hr)), fused)).toBeLessThan(1e-5)
        for (let i = 0; i < prompts.length; i++)
          for (let l = 0; l < cfg.numLayers; l++) {
            expect(maxRelDiff(be.toHost(batched[i].k[l]), be.toHost(perRow[i].k[l]))).toBeLessThan(1e-5)
            expect(maxRelDiff(be.toHost(batched[i].v[l]), be.toHost(perRow[i].v[l]))).toBeLessThan(1e-5)
          }
      }
      // Bad input: a full cache is a clear error.
      expect(() => be.forwardCached(stack, Int32Array.of(1), Int32Array.of(0, 1), [createKvCache(m, 1)], Int32Array.of(1))).toThrow(/KV cache full/)
    })

    test('decodeSample (a decode step, the head and the draw in one call) = forwardCached → head → sampleRows', () => {
      const m = withRandomAdapter(createRandomModel(cfg, new Rng(17), make(), { std: 0.3 }), 18)
      const be = m.backend
      const stack = decoderStack(m)
      const rng = new Rng(19)
      for (const [R, params] of [[7, { temperature: 1, topK: 0, topP: 1 }], [3, { temperature: 0.8, topK: 5, topP: 0.9 }], [11, { temperature: 0, topK: 0, topP: 1 }]] as const) {
        // Two identical sets of caches after the same prefill of R prompts of different lengths.
        const lens = Array.from({ length: R }, (_, i) => 1 + (i % 4))
        const prompt = Int32Array.from({ length: lens.reduce((a, x) => a + x, 0) }, () => rng.int(0, cfg.vocabSize - 1))
        const cu = new Int32Array(R + 1)
        lens.forEach((n, i) => (cu[i + 1] = cu[i] + n))
        const pair = [0, 1].map(() => {
          const caches = lens.map(() => createKvCache(m, 8))
          be.release(be.forwardCached(stack, prompt, cu, caches, new Int32Array(R)))
          return caches
        })
        const ids = Int32Array.from({ length: R }, () => rng.int(0, cfg.vocabSize - 1)), starts = Int32Array.from(lens)
        const u = Float64Array.from({ length: R }, () => rng.next())
        const got = be.decodeSample(stack, m.weights.lmHead, ids, pair[0], starts, params, u)
        const want = decodeSampleReference(be, stack, m.weights.lmHead, ids, pair[1], starts, params, u)
        expect(Array.from(got.ids)).toEqual(Array.from(want.ids))
        for (let i = 0; i < R; i++) {
          expect(Math.abs(got.logprobs[i] - want.logprobs[i])).toBeLessThan(1e-5)
          expect(Math.abs(got.modelLogprobs[i] - want.modelLogprobs[i])).toBeLessThan(1e-5)
        }
        for (let i = 0; i < R; i++)
          for (let l = 0; l < cfg.numLayers; l++) expect(maxRelDiff(be.toHost(pair[0][i].k[l]), be.toHost(pair[1][i].k[l]))).toBeLessThan(1e-5)
      }
      expect(() => be.decodeSample(stack, m.weights.lmHead, Int32Array.of(1, 2), [createKvCache(m, 4)], Int32Array.of(0), { temperature: 1, topK: 0, topP: 1 }, new Float64Array(2))).toThrow()
    })

    test('sampling through forwardCached: the same seed gives the same bits, and model log-probs equal full recomputation', () => {
      const m = withRandomAdapter(createRandomModel(cfg, new Rng(15), make(), { std: 0.3 }), 16)
      const prompts = [[3, 17, 5, 9], [8, 2, 30]]
      const params = { n: 3, maxNewTokens: 6, temperature: 1, seed: 4, eosTokenIds: [] as number[], useLora: true }
      const a = generateBatch(m, prompts, params)
      const b = generateBatch(m, prompts, params)
      expect(b).toEqual(a)
      // The per-row path: full recomputation of each sample's sequence, drawing with the same uniforms.
      const merged = mergeAdapter(m)
      prompts.forEach((p, pi) =>
        a[pi].forEach((s) => {
          for (let t = 0; t < s.tokens.length; t++) {
            const f = forward(merged, [{ tokens: [...p, ...s.tokens.slice(0, t)] }])
            const lp = targetLogprobs(merged, m.backend.sliceRows(f.hidden, f.hidden.shape[0] - 1, f.hidden.shape[0]), Int32Array.of(s.tokens[t]))
            expect(Math.abs(lp[0] - s.modelLogprobs[t])).toBeLessThan(1e-4)
          }
        }),
      )
    })


    /** Σ w·logp over seqs → each named adapter tensor's gradient from backward vs finite differences (throws on a
     *  mismatch); returns the gradients' norms (a check is only meaningful well above the tolerance). */
    function checkAdapterGradients(m: CausalLM, seqs: { tokens: number[] }[], targets: Int32Array, rng: Rng, names: string[], inspect?: (name: string, g: Float32Array) => void): number[] {
      const be = m.backend
      const w = Float32Array.from({ length: targets.length }, () => rng.normal(0, 1))
      const f = forward(m, seqs, { keepTape: true })
      const grads = new Map()
      backward(m, f, targetLogprobsBackward(m, f.hidden, targets, w), grads)
      return names.map((name) => {
        const p = m.adapter!.params().find((x) => x.name === name)!
        const g = be.toHost(grads.get(name))
        inspect?.(name, g)
        const x0 = be.toHost(p.tensor)
        const lossAt = (x: Float32Array): Float32Array => {
          be.writeRows(p.tensor, 0, be.fromHost(x, p.tensor.shape))
          const lp = targetLogprobs(m, forward(m, seqs).hidden, targets)
          let s = 0
          for (let i = 0; i < lp.length; i++) s += w[i] * lp[i]
          return Float32Array.of(s)
        }
        const r = finiteDifferenceCheck(lossAt, x0, Float32Array.of(1), g, rng, { eps: 1e-2, samples: 8, atol: 3e-3, rtol: 3e-2 })
        be.writeRows(p.tensor, 0, be.fromHost(x0, p.tensor.shape))
        if (!(r.worst <= 1)) throw new Error(`${name}: ${r.detail}`)
        return Math.sqrt(be.sumSquares(grads.get(name)))
      })
    }

    test('whole-model LoRA gradients of Σ w·logp match finite differences', () => {
      const m = withRandomAdapter(createRandomModel(cfg, new Rng(10), make(), { std: 0.3 }), 11)
      const params = m.adapter!.params()
      const names = [params[0].name, params[1].name, params.find((p) => p.name.includes('layers.1.mlp.down_proj.lora_A'))!.name,
        params.find((p) => p.name.includes('layers.0.self_attn.q_proj.lora_B'))!.name]
      const gradNorms = checkAdapterGradients(m, [{ tokens: [3, 17, 5, 9, 22] }, { tokens: [8, 2, 30] }], Int32Array.from([17, 5, 9, 22, 4, 2, 30, 11]), new Rng(12), names)
      // The check is only meaningful if the gradients are well above the finite-difference tolerance.
      for (const g of gradNorms) expect(g).toBeGreaterThan(0.05)
    })

    /** An adapter with the embedding LoRA too, every tensor random (the table is 0 at creation). */
    function withEmbedAdapter(m: CausalLM, seed: number): CausalLM {
      const rng = new Rng(seed)
      m.adapter = createLoraAdapter(m.backend, m.config, { rank: 4, alpha: 8, targets: [...LORA_TARGETS], embedTokens: true }, rng)
      for (const p of m.adapter.params())
        if (p.name.includes('lora_B') || p.name.includes('lora_embedding')) {
          const n = p.tensor.shape[0] * p.tensor.shape[1]
          const host = Float32Array.from({ length: n }, () => rng.normal(0, p.name.includes('lora_embedding') ? 0.3 : 0.1))
          m.backend.writeRows(p.tensor, 0, m.backend.fromHost(host, p.tensor.shape))
        }
      return m
    }

    test('embedding LoRA: changes the model, its gradients (table and B) match finite differences', () => {
      const m = withEmbedAdapter(createRandomModel(cfg, new Rng(20), make(), { std: 0.3 }), 21)
      expect(maxRelDiff(allLogits(m, tokens, true), allLogits(m, tokens, false))).toBeGreaterThan(1e-3)
      const seqs = [{ tokens: [3, 17, 5, 9, 22] }, { tokens: [8, 2, 30] }]
      const used = new Set(seqs.flatMap((q) => q.tokens))
      const norms = checkAdapterGradients(m, seqs, Int32Array.from([17, 5, 9, 22, 4, 2, 30, 11]), new Rng(22),
        ['base_model.model.model.embed_tokens.lora_embedding_A', 'base_model.model.model.embed_tokens.lora_embedding_B'], (name, g) => {
          if (!name.endsWith('_A')) return
          // Only the rows of tokens in the batch get a gradient (a lookup table [V, r]).
          const r = m.adapter!.config.rank
          for (let v = 0; v < m.config.vocabSize; v++) if (!used.has(v)) for (let j = 0; j < r; j++) expect(g[v * r + j]).toBe(0)
        })
      for (const g of norms) expect(g).toBeGreaterThan(0.05)
    })

    test('embedding LoRA: merged model, forwardCached and sampling equal the unmerged forward; PEFT save → load exact', () => {
      const m = withEmbedAdapter(createRandomModel(cfg, new Rng(23), make(), { std: 0.3 }), 24)
      const ref = allLogits(m, tokens)
      expect(maxRelDiff(allLogits(mergeAdapter(m), tokens), ref)).toBeLessThan(1e-4)
      const dir = join(tmp, 'embed-adapter')
      saveLoraAdapter(dir, m.adapter!, m.backend, 'base')
      const cfgJson = JSON.parse(readFileSync(join(dir, 'adapter_config.json'), 'utf8')) as { target_modules: string[] }
      expect(cfgJson.target_modules).toContain('embed_tokens')
      const m2 = createRandomModel(cfg, new Rng(23), make(), { std: 0.3 })
      m2.adapter = loadLoraAdapter(dir, m2.backend, m2.config)
      expect(Array.from(allLogits(m2, tokens))).toEqual(Array.from(ref))
      // Sampling (decoderStack's merged input table, forwardCached) scores its tokens as the plain forward does.
      const p = [3, 17, 5]
      const [s] = generateBatch(m, [p], { n: 1, maxNewTokens: 4, temperature: 1, topP: 1, topK: 0, seed: 5, eosTokenIds: [] })[0]
      for (let t = 0; t < s.tokens.length; t++) {
        const f = forward(m, [{ tokens: [...p, ...s.tokens.slice(0, t)] }])
        const lp = targetLogprobs(m, m.backend.sliceRows(f.hidden, f.hidden.shape[0] - 1, f.hidden.shape[0]), Int32Array.of(s.tokens[t]))
        expect(Math.abs(lp[0] - s.modelLogprobs[t])).toBeLessThan(1e-4)
      }
    })
  })
}
