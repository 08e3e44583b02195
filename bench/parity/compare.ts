// bench/parity/compare: the engine side of the PyTorch + PEFT parity check. Loads OUT/model and OUT/adapter
// written by make_reference.py and compares base logits, LoRA logits, the loss and every LoRA gradient against
// OUT/reference.safetensors (PyTorch in float64). Usage: node bin/run-ts.mjs bench/parity/compare.ts OUT [--backend ts|cuda]
// (cuda: the engine runs on infra/engine/cuda's backend — $SG_CUDA_LIB or a build of it — instead of ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Backend } from '../../infra/engine/backend'
import { createCudaBackend } from '../../infra/engine'
import { Learner } from '../../infra/engine/learner'
import { loadLoraAdapter } from '../../infra/engine/lora'
import { forward, logits, loadModel } from '../../infra/engine/model'
import { readSafetensors } from '../../infra/engine/safetensors'

/** Stated tolerances (the engine computes in float32; the reference is float64). */
export const PARITY_TOLERANCES = {
  /** max |Δlogit| / max(1, max |logit|) */
  logits: 1e-4,
  /** |Δloss| / |loss| */
  loss: 1e-5,
  /** per tensor: max |Δg| / max |g| */
  grads: 1e-3,
}

/** Above this vocabulary (the qwen3-* shapes) a run on another backend skips the CPU plain-loader check. */
const PLAIN_CHECK_MAX_VOCAB = 4096

export interface ParityReport {
  baseLogits: number
  loraLogits: number
  loss: { engine: number; reference: number; rel: number }
  grads: { worst: number; worstTensor: string; tensors: number }
  pass: boolean
}

function relMax(ours: Float32Array, ref: Float32Array, scaleFloor = 0): number {
  let d = 0, m = scaleFloor
  for (let i = 0; i < ref.length; i++) {
    d = Math.max(d, Math.abs(ours[i] - ref[i]))
    m = Math.max(m, Math.abs(ref[i]))
  }
  return ours.length === ref.length ? d / (m || 1) : Infinity
}

export function compareWithReference(dir: string, backend?: Backend): ParityReport {
  const inputs = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8')) as { sequences: number[][]; weights: number[][]; loss: number }
  const ref = readSafetensors(join(dir, 'reference.safetensors')).tensors
  const need = (name: string): Float32Array => {
    const t = ref.get(name)
    if (!t) throw new Error(`reference.safetensors has no ${name}; rerun make_reference.py`)
    return t.data
  }
  let learner: Learner
  if (backend) {
    const model = loadModel(join(dir, 'model'), backend)
    model.adapter = loadLoraAdapter(join(dir, 'adapter'), model.backend, model.config)
    learner = new Learner(model, { baseModelNameOrPath: join(dir, 'model') })
  } else {
    learner = Learner.fromDirectory(join(dir, 'model'), { adapterDir: join(dir, 'adapter') })
  }
  const m = learner.model
  let baseLogits = 0, loraLogits = 0
  inputs.sequences.forEach((seq, i) => {
    for (const [useLora, key] of [[false, 'base_logits'], [true, 'lora_logits']] as const) {
      const ours = m.backend.toHost(logits(m, forward(m, [{ tokens: seq }], { useLora }).hidden))
      const d = relMax(ours, need(`${key}.${i}`), 1)
      if (useLora) loraLogits = Math.max(loraLogits, d)
      else baseLogits = Math.max(baseLogits, d)
    }
  })
  // The plain loader (CPU backend) must agree with the learner's model on the base. Skipped for the qwen3-* shapes
  // on another backend: a CPU forward of 0.6B-4B parameters takes minutes, and the tiny shape checks the loader.
  if (!backend || m.config.vocabSize <= PLAIN_CHECK_MAX_VOCAB) {
    const plain = loadModel(join(dir, 'model'))
    baseLogits = Math.max(baseLogits, relMax(plain.backend.toHost(logits(plain, forward(plain, [{ tokens: inputs.sequences[0] }]).hidden)), need('base_logits.0'), 1))
  }
  const datums = inputs.sequences.map((s, i) => ({ inputTokens: s.slice(0, -1), targetTokens: s.slice(1), mask: inputs.weights[i] }))
  const fb = learner.forwardBackward(datums, { name: 'cross_entropy' })
  let worst = 0, worstTensor = '', tensors = 0
  for (const p of m.adapter!.params()) {
    const g = learner.gradient(p.name) ?? new Float32Array(0)
    const d = relMax(g, need(`grad.${p.name}`))
    tensors++
    if (d >= worst) {
      worst = d
      worstTensor = p.name
    }
  }
  const lossRel = Math.abs(fb.loss - inputs.loss) / Math.abs(inputs.loss)
  const T = PARITY_TOLERANCES
  return {
    baseLogits,
    loraLogits,
    loss: { engine: fb.loss, reference: inputs.loss, rel: lossRel },
    grads: { worst, worstTensor, tensors },
    pass: baseLogits <= T.logits && loraLogits <= T.logits && lossRel <= T.loss && worst <= T.grads,
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const dir = process.argv[2]
  // Without its reference (written by make_reference.py), say what to run first instead of an ENOENT stack trace.
  const needed = dir ? ['inputs.json', 'reference.safetensors'].filter((f) => !existsSync(join(dir, f))) : []
  if (!dir || needed.length > 0) {
    process.stderr.write(
      `parity compare: ${dir ? `${dir} has no ${needed.join(' or ')}` : 'give the reference folder'}; write it first on a machine with torch: python3 bench/parity/make_reference.py --out OUT (bench/parity/README.md), then node bin/run-ts.mjs bench/parity/compare.ts OUT\n`,
    )
    process.exit(2)
  }
  const flag = process.argv.indexOf('--backend')
  const backendName = flag > 0 ? process.argv[flag + 1] : 'ts'
  if (!dir || dir.startsWith('--') || (backendName !== 'ts' && backendName !== 'cuda')) {
    console.error('usage: node bin/run-ts.mjs bench/parity/compare.ts OUT [--backend ts|cuda]   (OUT written by make_reference.py)')
    process.exit(2)
  }
  const r = compareWithReference(dir, backendName === 'cuda' ? createCudaBackend() : undefined)
  console.log(`engine backend: ${backendName}`)
  writeFileSync(join(dir, 'compare.json'), JSON.stringify({ ...r, tolerances: PARITY_TOLERANCES }, null, 2) + '\n')
  const T = PARITY_TOLERANCES
  console.log(`base logits   max rel diff ${r.baseLogits.toExponential(2)} (tolerance ${T.logits})`)
  console.log(`LoRA logits   max rel diff ${r.loraLogits.toExponential(2)} (tolerance ${T.logits})`)
  console.log(`loss          engine ${r.loss.engine} vs torch ${r.loss.reference}: rel ${r.loss.rel.toExponential(2)} (tolerance ${T.loss})`)
  console.log(`LoRA grads    ${r.grads.tensors} tensors, worst max rel diff ${r.grads.worst.toExponential(2)} in ${r.grads.worstTensor} (tolerance ${T.grads})`)
  console.log(r.pass ? 'PARITY PASS' : 'PARITY FAIL')
  process.exit(r.pass ? 0 : 1)
}
