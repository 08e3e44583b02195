// infra/engine/cuda/build: builds the CUDA sources of this folder — the emulated host-check program (g++ with
// emu/cuda_emu.h), nvcc compile-only for the target architectures, and the shared library of the binding (nvcc on a
// GPU machine, or g++ + emulation on any host). Results are cached under os.tmpdir() keyed by a hash of every
// source, so a test run compiles once. It does not run kernels or know the Backend interface.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { EngineError } from '../../errors'

export const CUDA_DIR = dirname(fileURLToPath(import.meta.url))
/** The architectures CI compiles for (A100, H100/H200). */
export const CUDA_ARCHS = ['sm_80', 'sm_90'] as const

/** Every kernel source, one concept per file. */
export function kernelSources(): string[] {
  return readdirSync(join(CUDA_DIR, 'kernels'))
    .filter((f) => f.endsWith('.cu'))
    .sort()
    .map((f) => join(CUDA_DIR, 'kernels', f))
}

function allSources(): string[] {
  const out: string[] = []
  for (const sub of ['kernels', 'emu', 'host', 'binding']) {
    const dir = join(CUDA_DIR, sub)
    if (!existsSync(dir)) continue
    for (const f of readdirSync(dir).sort()) if (/\.(cu|cuh|h|cpp)$/.test(f)) out.push(join(dir, f))
  }
  return out
}

/** sha256 (16 hex) over every source file's name and bytes. */
export function sourceHash(extra = ''): string {
  const h = createHash('sha256')
  for (const f of allSources()) h.update(f.slice(CUDA_DIR.length)).update('\0').update(readFileSync(f)).update('\0')
  h.update(extra)
  return h.digest('hex').slice(0, 16)
}

export function cacheDir(kind: string, extra = ''): string {
  return join(tmpdir(), 'searchgym-cuda', `${kind}-${sourceHash(extra)}`)
}

/** nvcc from $NVCC, $CUDA_HOME/bin, PATH or /usr/local/cuda/bin; null when none. */
export function findNvcc(): string | null {
  const cands = [process.env.NVCC, process.env.CUDA_HOME && join(process.env.CUDA_HOME, 'bin', 'nvcc')]
  for (const c of cands) if (c && existsSync(c)) return c
  const which = spawnSync('sh', ['-c', 'command -v nvcc'], { encoding: 'utf8' })
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim()
  return existsSync('/usr/local/cuda/bin/nvcc') ? '/usr/local/cuda/bin/nvcc' : null
}

function run(cmd: string, args: string[], what: string): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 })
  if (r.error) throw new EngineError('engine.cuda_build', `${what}: cannot run ${cmd}: ${r.error.message}`)
  if (r.status !== 0) {
    const tail = `${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-20).join('\n')
    throw new EngineError('engine.cuda_build', `${what} failed (${cmd} exit ${r.status}):\n${tail}`)
  }
}

/** Build into a fresh temp name, then rename: concurrent test workers never see a half-written file. */
function cached(file: string, build: (tmp: string) => void): { path: string; cached: boolean; seconds: number } {
  if (existsSync(file)) return { path: file, cached: true, seconds: 0 }
  mkdirSync(dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  const t0 = performance.now()
  try {
    build(tmp)
    renameSync(tmp, file)
  } finally {
    rmSync(tmp, { force: true })
  }
  return { path: file, cached: false, seconds: (performance.now() - t0) / 1000 }
}

export interface BuildResult {
  path: string
  cached: boolean
  /** Wall seconds of the compile (0 when cached). */
  seconds: number
}

/** The host-check program: host/check.cpp linked against the emulated library (every kernel through the emulation
 *  layer + the fp64 reference), so the kernels are compiled once per source hash for both uses. */
export function buildHostCheck(): BuildResult {
  const lib = buildLibrary('emu')
  const out = join(cacheDir('emu-check'), 'check')
  const r = cached(out, (tmp) =>
    run('g++', ['-std=c++17', '-O2', '-DSG_EMU', `-I${CUDA_DIR}`, join(CUDA_DIR, 'host', 'check.cpp'), lib.path,
      `-Wl,-rpath,${dirname(lib.path)}`, '-o', tmp], 'host-check build'),
  )
  return { ...r, seconds: r.seconds + lib.seconds }
}

/** nvcc compile-only of every kernel for the given architectures, in one translation unit per call (nvcc start-up
 *  dominates on a small CI machine). Returns the object file. */
export function compileKernels(archs: readonly string[] = CUDA_ARCHS, nvcc = findNvcc()): BuildResult {
  if (!nvcc) throw new EngineError('engine.cuda_build', 'nvcc not found (set NVCC or CUDA_HOME, or put it on PATH)')
  const dir = cacheDir('nvcc', archs.join(','))
  const obj = join(dir, 'kernels.o')
  return cached(obj, (tmp) => {
    mkdirSync(dir, { recursive: true })
    const unity = join(dir, 'all-kernels.cu')
    writeFileSync(unity, kernelSources().map((f) => `#include "${f}"\n`).join(''))
    const gencode = archs.flatMap((a) => ['-gencode', `arch=compute_${a.replace('sm_', '')},code=${a}`])
    run(nvcc, ['-std=c++17', '-O3', '-c', ...gencode, unity, '-o', tmp], `nvcc ${archs.join(' ')}`)
  })
}

/**
 * The binding's shared library (binding/sgcuda.cpp + kernels). mode 'device': nvcc, real kernels, cudart linked,
 * cuBLASLt opened at run time (a GPU machine). mode 'emu': g++ through the emulation layer, host memory (any host;
 * what the cuda backend's tests load here).
 */
export function buildLibrary(mode: 'device' | 'emu', archs: readonly string[] = ['sm_90']): BuildResult {
  const dir = cacheDir(`lib-${mode}`, archs.join(','))
  const lib = join(dir, 'libsgcuda.so')
  const binding = join(CUDA_DIR, 'binding', 'sgcuda.cpp')
  return cached(lib, (tmp) => {
    if (mode === 'emu') {
      run('g++', ['-std=c++17', '-O2', '-fPIC', '-shared', '-DSG_EMU', `-I${CUDA_DIR}`, '-x', 'c++', ...kernelSources(), binding,
        '-x', 'none', join(CUDA_DIR, 'host', 'reference.cpp'), '-o', tmp], 'emulated binding build')
      return
    }
    const nvcc = findNvcc()
    if (!nvcc) throw new EngineError('engine.cuda_build', 'nvcc not found (set NVCC or CUDA_HOME, or put it on PATH)')
    mkdirSync(dir, { recursive: true })
    const gencode = archs.flatMap((a) => ['-gencode', `arch=compute_${a.replace('sm_', '')},code=${a}`])
    run(nvcc, ['-std=c++17', '-O3', '-shared', '-Xcompiler', '-fPIC', ...gencode, `-I${CUDA_DIR}`, ...kernelSources(), '-x', 'cu',
      binding, '-o', tmp, '-ldl'], 'nvcc binding build')
  })
}
