// tests/engine-parity-plumbing: bench/parity/compare.ts against a reference directory laid out exactly like
// make_reference.py's, but produced by the engine itself (there is no PyTorch here). This checks the file layout,
// names and tolerance logic; the real PyTorch comparison is run on a machine with torch (bench/parity/README.md).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Rng } from '../infra/rng'
import { compareWithReference } from '../bench/parity/compare'
import { presetConfig } from '../infra/engine/config'
import { Learner } from '../infra/engine/learner'
import { createLoraAdapter, LORA_TARGETS, saveLoraAdapter } from '../infra/engine/lora'
import { createRandomModel, forward, logits, saveModel } from '../infra/engine/model'
import { type HostTensor, writeSafetensors } from '../infra/engine/safetensors'

const tmp = mkdtempSync(join(tmpdir(), 'engine-parity-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function fakeReference(dir: string, corruptGrad: boolean): void {
  const m = createRandomModel({ ...presetConfig('tiny', 97, [96], 95), tieWordEmbeddings: false }, new Rng(1), undefined, { std: 0.2 })
  const rng = new Rng(2)
  m.adapter = createLoraAdapter(m.backend, m.config, { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }, rng)
  for (const p of m.adapter.params())
    if (p.name.includes('lora_B')) m.backend.writeRows(p.tensor, 0, m.backend.fromHost(Float32Array.from({ length: p.tensor.shape[0] * p.tensor.shape[1] }, () => rng.normal(0, 0.1)), p.tensor.shape))
  mkdirSync(dir, { recursive: true })
  saveModel(m, join(dir, 'model'))
  saveLoraAdapter(join(dir, 'adapter'), m.adapter, m.backend, '')
  const sequences = [[95, 3, 17, 42, 8, 61], [95, 50, 2, 88]]
  const weights = sequences.map((s) => s.slice(1).map((_, t) => 0.5 * (t % 4)))
  const ref = new Map<string, HostTensor>()
  sequences.forEach((s, i) => {
    for (const [useLora, key] of [[false, 'base_logits'], [true, 'lora_logits']] as const) {
      const lg = logits(m, forward(m, [{ tokens: s }], { useLora }).hidden)
      ref.set(`${key}.${i}`, { shape: lg.shape.slice(), data: m.backend.toHost(lg) })
    }
  })
  const learner = new Learner(m)
  const fb = learner.forwardBackward(sequences.map((s, i) => ({ inputTokens: s.slice(0, -1), targetTokens: s.slice(1), mask: weights[i] })), { name: 'cross_entropy' })
  for (const p of m.adapter.params()) {
    const g = learner.gradient(p.name)!
    if (corruptGrad && p.name.includes('layers.1.mlp.up_proj.lora_A')) g[0] += 0.1 * Math.max(...g.map(Math.abs))
    ref.set(`grad.${p.name}`, { shape: p.tensor.shape.slice(), data: g })
  }
  writeSafetensors(join(dir, 'reference.safetensors'), ref)
  writeFileSync(join(dir, 'inputs.json'), JSON.stringify({ sequences, weights, loss: fb.loss }))
}

test('compare.ts passes on a matching reference and names the tensor that does not match', () => {
  fakeReference(join(tmp, 'good'), false)
  const good = compareWithReference(join(tmp, 'good'))
  expect(good.pass).toBe(true)
  expect(good.grads.tensors).toBe(2 * 7 * 2)
  fakeReference(join(tmp, 'bad'), true)
  const bad = compareWithReference(join(tmp, 'bad'))
  expect(bad.pass).toBe(false)
  expect(bad.grads.worstTensor).toContain('layers.1.mlp.up_proj.lora_A')
})
