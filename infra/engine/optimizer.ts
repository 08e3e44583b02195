// infra/engine/optimizer: AdamW over named trainable tensors (the LoRA parameters), with global-norm gradient
// clipping and its state saved as safetensors (exp_avg / exp_avg_sq per parameter + the step in metadata).
// The arithmetic of one update lives in the backend (adamwStep); this file owns the bookkeeping.
import { EngineError } from '../errors'
import type { Backend, Tensor } from './backend'
import { type HostTensor, readSafetensors, writeSafetensors } from './safetensors'

export interface OptimParams {
  lr: number
  /** Default [0.9, 0.999]. */
  betas?: [number, number]
  /** Default 1e-8. */
  eps?: number
  /** Decoupled weight decay (default 0). */
  weightDecay?: number
  /** Clip the global gradient L2 norm to this value; 0 = off (default). */
  gradClip?: number
}

export class AdamW {
  step = 0
  private readonly m = new Map<string, Tensor>()
  private readonly v = new Map<string, Tensor>()

  constructor(private readonly backend: Backend) {}

  /** Apply one update to params from grads (same names); returns the gradient norm before clipping. */
  update(params: readonly { name: string; tensor: Tensor }[], grads: ReadonlyMap<string, Tensor>, p: OptimParams): { gradNorm: number; clipped: boolean } {
    const be = this.backend
    if (!(p.lr >= 0)) throw new EngineError('engine.optim', `lr must be >= 0, got ${p.lr}`)
    const [beta1, beta2] = p.betas ?? [0.9, 0.999]
    let sq = 0
    for (const { name } of params) {
      const g = grads.get(name)
      if (g) sq += be.sumSquares(g)
    }
    const gradNorm = Math.sqrt(sq)
    const clip = p.gradClip ?? 0
    const clipped = clip > 0 && gradNorm > clip
    if (clipped) for (const g of grads.values()) be.scaleInPlace(g, clip / gradNorm)
    this.step++
    for (const { name, tensor } of params) {
      const g = grads.get(name) ?? be.zeros(tensor.shape)
      if (!this.m.has(name)) {
        this.m.set(name, be.zeros(tensor.shape))
        this.v.set(name, be.zeros(tensor.shape))
      }
      be.adamwStep(tensor, g, this.m.get(name)!, this.v.get(name)!, {
        lr: p.lr, beta1, beta2, eps: p.eps ?? 1e-8, weightDecay: p.weightDecay ?? 0, step: this.step,
      })
    }
    return { gradNorm, clipped }
  }

  save(file: string): void {
    const tensors = new Map<string, HostTensor>()
    for (const [name, t] of this.m) tensors.set(`${name}.exp_avg`, { shape: t.shape.slice(), data: this.backend.toHost(t) })
    for (const [name, t] of this.v) tensors.set(`${name}.exp_avg_sq`, { shape: t.shape.slice(), data: this.backend.toHost(t) })
    writeSafetensors(file, tensors, { dtype: 'F32', metadata: { step: String(this.step), optimizer: 'adamw' } })
  }

  /** Restore from a file saved by save(); every moment must belong to one of the given params. */
  load(file: string, params: readonly { name: string; tensor: Tensor }[]): void {
    const { tensors, metadata } = readSafetensors(file)
    if (metadata.optimizer !== 'adamw') throw new EngineError('engine.optim_state', `${file} is not an AdamW state file`)
    const shapes = new Map(params.map((p) => [p.name, p.tensor.shape.join(',')]))
    this.m.clear()
    this.v.clear()
    for (const [key, h] of tensors) {
      const m = /^(.*)\.(exp_avg|exp_avg_sq)$/.exec(key)
      if (!m || shapes.get(m[1]) !== h.shape.join(','))
        throw new EngineError('engine.optim_state', `${file}: ${key} [${h.shape}] matches no parameter of this adapter`)
      ;(m[2] === 'exp_avg' ? this.m : this.v).set(m[1], this.backend.fromHost(h.data, h.shape))
    }
    this.step = Number(metadata.step ?? 0)
  }
}
