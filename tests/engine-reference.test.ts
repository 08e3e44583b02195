// tests/engine-reference: the engine against an independent reference — tests/fixtures/engine-reference/make_reference.py,
// a numpy float64 implementation written from the Hugging Face Qwen3/Qwen2/Llama modelling code and PEFT's LoRA, whose
// committed output (logits with the adapter off and on, a weighted log-likelihood loss and its gradient with respect to
// every LoRA tensor, by finite differences) is compared with the engine loading the same files. Black box: the test
// uses loadModel / forward / logits / Learner only. The engine computes in float32; the stated tolerances:
//   logits:  max |Δ| / max(1, max |ref|) ≤ 2e-5     loss: |Δ| / |ref| ≤ 1e-6      gradients: per tensor max |Δ| / max |ref| ≤ 1e-4
// (measured here: logits ≤ 3.2e-7, loss ≤ 3.4e-8, gradients ≤ 1.4e-6; bench/RESULTS.md "Engine reference")
// Regenerate the fixture (only when it should change): python3 tests/fixtures/engine-reference/make_reference.py
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Learner, forward, loadModel, logits, readSafetensors } from '../infra/engine'

const FIXTURE = fileURLToPath(new URL('./fixtures/engine-reference', import.meta.url))
const TOL = { logits: 2e-5, loss: 1e-6, grads: 1e-4 }

function relMax(ours: Float32Array, ref: Float32Array, floor = 0): number {
  if (ours.length !== ref.length) return Infinity
  let d = 0, m = floor
  for (let i = 0; i < ref.length; i++) {
    d = Math.max(d, Math.abs(ours[i] - ref[i]))
    m = Math.max(m, Math.abs(ref[i]))
  }
  return d / (m || 1)
}

describe.each(['qwen3', 'qwen2', 'llama'])('%s: engine vs the numpy reference', (arch) => {
  const dir = join(FIXTURE, arch)
  const inputs = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8')) as { sequences: number[][]; weights: number[][]; loss: number }
  const ref = readSafetensors(join(dir, 'reference.safetensors')).tensors
  const need = (name: string): Float32Array => {
    const t = ref.get(name)
    if (!t) throw new Error(`${dir}/reference.safetensors has no ${name}; rerun make_reference.py`)
    return t.data
  }

  it(`logits with the adapter off (loadModel) and on (PEFT adapter) within ${TOL.logits}`, () => {
    const plain = loadModel(join(dir, 'model'))
    const learner = Learner.fromDirectory(join(dir, 'model'), { adapterDir: join(dir, 'adapter') })
    const diffs: Record<string, number> = {}
    inputs.sequences.forEach((seq, i) => {
      diffs[`base.${i}`] = relMax(plain.backend.toHost(logits(plain, forward(plain, [{ tokens: seq }]).hidden)), need(`base_logits.${i}`), 1)
      const m = learner.model
      diffs[`lora.${i}`] = relMax(m.backend.toHost(logits(m, forward(m, [{ tokens: seq }], { useLora: true }).hidden)), need(`lora_logits.${i}`), 1)
      diffs[`loraOff.${i}`] = relMax(m.backend.toHost(logits(m, forward(m, [{ tokens: seq }], { useLora: false }).hidden)), need(`base_logits.${i}`), 1)
    })
    // The adapter must matter, or the LoRA comparison would be vacuous.
    expect(relMax(need('lora_logits.0'), need('base_logits.0'), 1)).toBeGreaterThan(100 * TOL.logits)
    const worst = Math.max(...Object.values(diffs))
    console.log(`${arch}: logits max rel diff ${worst.toExponential(2)} (tolerance ${TOL.logits})`)
    for (const [k, d] of Object.entries(diffs)) expect({ k, within: d <= TOL.logits, d }).toEqual({ k, within: true, d })
  })

  it(`loss within ${TOL.loss} and every LoRA gradient within ${TOL.grads}`, () => {
    const learner = Learner.fromDirectory(join(dir, 'model'), { adapterDir: join(dir, 'adapter') })
    const datums = inputs.sequences.map((s, i) => ({ inputTokens: s.slice(0, -1), targetTokens: s.slice(1), mask: inputs.weights[i] }))
    const fb = learner.forwardBackward(datums, { name: 'cross_entropy' })
    const lossRel = Math.abs(fb.loss - inputs.loss) / Math.abs(inputs.loss)
    const params = learner.model.adapter!.params()
    expect(params.length).toBe(28) // 7 targets × A, B × 2 layers
    let worst = 0, worstName = ''
    const bad: string[] = []
    for (const p of params) {
      const d = relMax(learner.gradient(p.name) ?? new Float32Array(0), need(`grad.${p.name}`))
      if (d > worst) [worst, worstName] = [d, p.name]
      if (!(d <= TOL.grads)) bad.push(`${p.name}: ${d.toExponential(2)}`)
    }
    console.log(`${arch}: loss ${fb.loss} vs ${inputs.loss} (rel ${lossRel.toExponential(2)}); grads worst ${worst.toExponential(2)} in ${worstName}`)
    expect(lossRel).toBeLessThanOrEqual(TOL.loss)
    expect(bad).toEqual([])
  })
})
