// infra/engine/forward-cached: the reference of the backend op forwardCached — the decoder stack over a packed
// batch of sequences that continue their own KV caches (prefill of prompts and appended observations, and every
// decode step), composed from the boundary's ops exactly as model.forward composes them with caches. The ts and cuda
// backends use this composition; the native backend runs the same kernels in one addon call
// (native/src/decode.cc), and backend-contract.ts / model-contract.ts check the two agree. decodeSampleReference: the
// op decodeSample (a decode step, the head and the draw) composed the same way.
import { EngineError } from '../errors'
import type { Backend, CacheTensors, DecoderStack, RowSamplingParams, SampledRows, StackLayer, Tensor } from './backend'

function bad(what: string): never {
  throw new EngineError('engine.forward_cached', what)
}

/** Validate forwardCached's arguments (every backend calls this first); returns B and the hidden size C. */
export function checkForwardCached(stack: DecoderStack, ids: Int32Array, cu: Int32Array, caches: readonly CacheTensors[], starts: Int32Array): { B: number; C: number } {
  const B = cu.length - 1
  if (B < 1) bad('forwardCached needs at least one sequence (cu has B+1 entries)')
  if (cu[0] !== 0 || cu[B] !== ids.length) bad(`cu must run from 0 to ${ids.length} (the ids), got ${cu[0]}..${cu[B]}`)
  if (caches.length !== B || starts.length !== B) bad(`${B} sequences but ${caches.length} caches and ${starts.length} starts`)
  const [V, C] = stack.embed.shape
  const L = stack.layers.length
  const w = stack.kvHeads * stack.headDim
  for (let b = 0; b < B; b++) {
    const T = cu[b + 1] - cu[b]
    if (!(T >= 1)) bad(`sequence ${b} has ${T} new tokens; every sequence needs at least one`)
    const c = caches[b]
    if (c.k.length !== L || c.v.length !== L) bad(`cache ${b} has ${c.k.length} key / ${c.v.length} value layers for a ${L}-layer stack`)
    const cap = c.k[0].shape[0]
    for (let l = 0; l < L; l++)
      for (const t of [c.k[l], c.v[l]])
        if (t.shape.length !== 2 || t.shape[0] !== cap || t.shape[1] !== w) bad(`cache ${b} layer ${l} is [${t.shape}], want [${cap},${w}]`)
    if (!(starts[b] >= 0) || starts[b] + T > cap) bad(`KV cache full: ${starts[b]} + ${T} tokens > capacity ${cap}`)
    for (let j = 0; j < b; j++) if (caches[j].k[0] === c.k[0]) bad(`sequences ${j} and ${b} share one KV cache`)
  }
  for (const id of ids) if (!(id >= 0 && id < V)) throw new EngineError('engine.token_id', `token id ${id} is outside the vocabulary [0, ${V})`)
  return { B, C }
}

/** forwardCached composed from be's ops (the reference; model.forward with caches does the same ops in the same order). */
export function forwardCachedReference(be: Backend, stack: DecoderStack, ids: Int32Array, cu: Int32Array, caches: readonly CacheTensors[], starts: Int32Array): Tensor {
  const { B } = checkForwardCached(stack, ids, cu, caches, starts)
  const H = stack.heads, KV = stack.kvHeads, D = stack.headDim, eps = stack.eps
  const N = ids.length
  const pos = new Int32Array(N)
  for (let b = 0; b < B; b++) for (let i = cu[b]; i < cu[b + 1]; i++) pos[i] = starts[b] + i - cu[b]
  let x = be.embedding(stack.embed, ids)
  stack.layers.forEach((lw: StackLayer, l) => {
    const h1 = be.rmsnorm(x, lw.inputNorm, eps)
    const q = be.linear(h1, lw.q, lw.qBias, lw.lora?.q)
    const k = be.linear(h1, lw.k, lw.kBias, lw.lora?.k)
    const v = be.linear(h1, lw.v, lw.vBias, lw.lora?.v)
    const qn = lw.qNorm ? be.rmsnorm(be.reshape(q, [N * H, D]), lw.qNorm, eps) : q
    const kn = lw.kNorm ? be.rmsnorm(be.reshape(k, [N * KV, D]), lw.kNorm, eps) : k
    const qr = be.rope(be.reshape(qn, [N, H, D]), pos, stack.ropeTheta)
    const kr = be.rope(be.reshape(kn, [N, KV, D]), pos, stack.ropeTheta)
    const parts: Tensor[] = []
    for (let b = 0; b < B; b++) {
      const o = cu[b], T = cu[b + 1] - cu[b], start = starts[b], S = start + T
      be.writeRows(caches[b].k[l], start, be.reshape(be.sliceRows(kr, o, o + T), [T, KV * D]))
      be.writeRows(caches[b].v[l], start, be.sliceRows(v, o, o + T))
      const ks = be.reshape(be.sliceRows(caches[b].k[l], 0, S), [S, KV, D])
      const vs = be.reshape(be.sliceRows(caches[b].v[l], 0, S), [S, KV, D])
      parts.push(be.attention(be.sliceRows(qr, o, o + T), ks, vs, start))
    }
    const attOwned = parts.length === 1 ? parts[0] : be.concatRows(parts)
    if (parts.length > 1) for (const p of parts) be.release(p)
    const oOut = be.linear(be.reshape(attOwned, [N, H * D]), lw.o, lw.oBias, lw.lora?.o)
    const x2 = be.add(x, oOut)
    const h2 = be.rmsnorm(x2, lw.postNorm, eps)
    const gate = be.linear(h2, lw.gate, undefined, lw.lora?.gate)
    const up = be.linear(h2, lw.up, undefined, lw.lora?.up)
    const act = be.swiglu(gate, up)
    const downOut = be.linear(act, lw.down, undefined, lw.lora?.down)
    const x3 = be.add(x2, downOut)
    for (const t of [oOut, downOut, x, h1, q, k, qr, kr, v, attOwned, x2, h2, gate, up, act]) be.release(t)
    if (qn !== q) be.release(qn)
    if (kn !== k) be.release(kn)
    x = x3
  })
  const last = be.concatRows(Array.from({ length: B }, (_, b) => be.sliceRows(x, cu[b + 1] - 1, cu[b + 1])))
  const hidden = be.rmsnorm(last, stack.norm, eps)
  be.release(last)
  be.release(x)
  return hidden
}

/** The reference of the backend op decodeSample: forwardCached over one new token per sequence, the head, sampleRows. */
export function decodeSampleReference(be: Backend, stack: DecoderStack, head: Tensor, ids: Int32Array, caches: readonly CacheTensors[], starts: Int32Array, params: RowSamplingParams, uniforms: Float64Array): SampledRows {
  const hidden = be.forwardCached(stack, ids, Int32Array.from({ length: ids.length + 1 }, (_, i) => i), caches, starts)
  const logits = be.linear(hidden, head)
  be.release(hidden)
  const out = be.sampleRows(logits, params, uniforms)
  be.release(logits)
  return out
}
