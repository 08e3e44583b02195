// bench/perf/copy-synthetic: can the engine + LoRA learn to COPY at all? A synthetic task with no gym, no protocol:
// sequences of L random word ids, a marker, then the id that stood at position P (fixed) — or, with --task after,
// the id that followed the one occurrence of a second marker (an induction head's job). Loss on the last token only;
// accuracy (greedy argmax = the copied id) on held-out random sequences. Separates "the engine/optimizer cannot
// learn attention-based copying" from "the search task is too hard for a small model".
//
// Usage: node bin/run-ts.mjs bench/perf/copy-synthetic.ts --model M [--steps 600] [--lr 1e-2] [--len 24] [--pos 5]
//          [--task fixed|after] [--words 3000] [--lora-rank 64] [--lora-embed] [--batch 32] [--backend auto]
import { createBackend, Learner, LORA_TARGETS, loadModel, parseBackendName, forward, targetLogprobs } from '../../infra/engine'
import { Rng } from '../../infra/rng'

const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`)
  return i >= 0 ? process.argv[i + 1] : d
}
const M = arg('model', '')
if (!M) {
  process.stderr.write('usage: copy-synthetic.ts --model M [--steps N] [--lr X] [--len L] [--pos P] [--task fixed|after]\n')
  process.exit(2)
}
const steps = Number(arg('steps', '600')), lr = Number(arg('lr', '1e-2')), L = Number(arg('len', '24')), P = Number(arg('pos', '5'))
const task = arg('task', 'fixed'), rank = Number(arg('lora-rank', '64')), B = Number(arg('batch', '32'))
const model = loadModel(M, createBackend(parseBackendName(arg('backend', 'auto'))))
const V = model.config.vocabSize
const learner = new Learner(model, { lora: { rank, alpha: 2 * rank, targets: [...LORA_TARGETS], embedTokens: process.argv.includes('--lora-embed') }, seed: 0 })
// Word ids from the middle of the vocabulary (past bytes/characters), two markers outside that range.
const words = Number(arg('words', '3000'))
const lo = 400, hi = Math.min(V - 3, lo + words - 1), MARK = V - 1, KEY = V - 2
function example(rng: Rng): { ids: number[]; answer: number } {
  const ids = Array.from({ length: L }, () => rng.int(lo, hi))
  if (task === 'after') {
    const k = rng.int(1, L - 2)
    ids[k - 1] = KEY
    return { ids: [...ids, MARK], answer: ids[k] }
  }
  return { ids: [...ids, MARK], answer: ids[P] }
}
const train = new Rng(1), held = Array.from({ length: 100 }, (_, i) => example(Rng.derive(2, 'held', i)))
const accuracy = (): number => {
  let ok = 0
  for (const e of held) {
    const f = forward(model, [{ tokens: e.ids }])
    const h = model.backend.sliceRows(f.hidden, e.ids.length - 1, e.ids.length)
    // argmax over the vocabulary through log-probs of every candidate word id (small V: fine for a probe)
    const cand = Int32Array.from({ length: hi - lo }, (_, j) => lo + j)
    const hh = model.backend.concatRows(Array.from({ length: cand.length }, () => h))
    const lp = targetLogprobs(model, hh, cand)
    let best = 0
    for (let j = 1; j < lp.length; j++) if (lp[j] > lp[best]) best = j
    if (cand[best] === e.answer) ok++
  }
  return ok / held.length
}
const t0 = performance.now()
process.stderr.write(`copy-synthetic: task ${task}, L ${L}, V ${V}, step 0 held-out accuracy ${accuracy().toFixed(3)}\n`)
for (let step = 1; step <= steps; step++) {
  const datums = Array.from({ length: B }, () => {
    const e = example(train)
    const seq = [...e.ids, e.answer]
    const T = seq.length - 1
    return { inputTokens: seq.slice(0, T), targetTokens: seq.slice(1), mask: Array.from({ length: T }, (_, i) => (i === T - 1 ? 1 / B : 0)) }
  })
  const r = learner.forwardBackward(datums, { name: 'cross_entropy' })
  learner.optimStep({ lr, gradClip: 1 })
  if (step % 100 === 0 || step === 1)
    process.stderr.write(`step ${step}/${steps} loss ${r.loss.toFixed(3)}${step % 200 === 0 ? ` held-out accuracy ${accuracy().toFixed(3)}` : ''} ${((performance.now() - t0) / 1000).toFixed(0)} s\n`)
}
process.stdout.write(JSON.stringify({ task, L, P, steps, lr, rank, accuracy: accuracy(), seconds: (performance.now() - t0) / 1000 }) + '\n')
