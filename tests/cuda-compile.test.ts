// tests/cuda-compile: nvcc compiles every kernel of infra/engine/cuda for sm_80 and sm_90 (compile-only: CI has no
// GPU), once per source hash into a cache under os.tmpdir(); and the attention kernels' PTX uses tensor-core mma.
// Reports itself skipped, with the reason, where nvcc is missing.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CUDA_ARCHS, CUDA_DIR, compileKernels, findNvcc, kernelSources } from '../infra/engine/cuda/build'

const nvcc = findNvcc()
if (!nvcc) console.warn('cuda-compile: SKIPPED — nvcc not found (NVCC, CUDA_HOME/bin, PATH, /usr/local/cuda/bin)')
const maybe = nvcc ? describe : describe.skip

maybe('cuda kernels compile with nvcc', () => {
  test(`every kernel compiles for ${CUDA_ARCHS.join(' and ')}`, () => {
    const b = compileKernels(CUDA_ARCHS, nvcc)
    if (!b.cached) console.log(`cuda-compile: nvcc ${CUDA_ARCHS.join(',')} of ${kernelSources().length} files in ${b.seconds.toFixed(1)} s`)
    const obj = readFileSync(b.path).toString('latin1')
    for (const a of CUDA_ARCHS) expect(obj).toContain(`-arch ${a} `)
    // Every kernel file contributed its launcher.
    for (const name of ['sg_lora_fwd', 'sg_rmsnorm_fwd_bf16', 'sg_rmsnorm_bwd_bf16', 'sg_attention_fwd', 'sg_attention_bwd', 'sg_head_logprobs', 'sg_sample', 'sg_adamw', 'sg_gemm_bf16']) {
      expect(obj).toContain(name)
    }
  }, 600_000)

  test('attention forward and backward issue tensor-core mma instructions', () => {
    for (const f of ['attention_fwd.cu', 'attention_bwd.cu']) {
      const r = spawnSync(nvcc!, ['-std=c++17', '-ptx', '-arch=sm_80', join(CUDA_DIR, 'kernels', f), '-o', '-'], { encoding: 'utf8', maxBuffer: 64 << 20 })
      expect(r.status).toBe(0)
      expect(r.stdout).toMatch(/wmma\.mma\.sync\.aligned\.row\.col\.m16n16k16\.f32\.bf16\.bf16\.f32/)
    }
  }, 600_000)
})
