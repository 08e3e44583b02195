// tests/cuda-backend: the `cuda` backend (infra/engine/cuda/cuda-backend.ts) through its real extern "C" library,
// built here through the emulation layer (mode 'emu': same kernels and binding, host memory), runs the unchanged
// backend contract suite; and its fast-path ops agree with the interface ops: packed varlen attention = per-sequence
// attention, the chunked head = log-softmax of full logits, device sampling = the sample.ts rule for the same uniform.
import { spawnSync } from 'node:child_process'
import { Rng } from '../infra/rng'
import { runBackendContract } from '../infra/engine/backend-contract'
import { createCudaBackend, type CudaBackend } from '../infra/engine/cuda/cuda-backend'
import { maxRelDiff } from '../infra/engine/backend-contract'

const hasGxx = spawnSync('g++', ['--version']).status === 0
if (!hasGxx) console.warn('cuda-backend: SKIPPED — g++ is not on PATH, the emulated library cannot be built')

if (hasGxx) {
  runBackendContract({ name: 'cuda (emulated)', make: () => createCudaBackend({ mode: 'emu' }) })
}
