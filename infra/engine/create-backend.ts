// infra/engine/create-backend: createBackend(name) — the one place a backend is chosen. 'ts' is the reference,
// 'native' the C++ addon (an error saying why when it was not built), 'cuda' the CUDA library (cuda/; built and
// loaded on first use, an error naming the reason when it cannot start), 'auto' = native where it built, else ts
// (the reason is kept in backendFallbackReason(); auto never builds CUDA at start-up).
import { EngineError } from '../errors'
import type { Backend } from './backend'
import { createCudaBackend } from './cuda/cuda-backend'
import { loadNativeAddon } from './native/addon'
import { createNativeBackend } from './native/native-backend'
import { createTsBackend } from './ts-backend'

export type BackendName = 'ts' | 'native' | 'cuda' | 'auto'
export const BACKEND_NAMES: readonly BackendName[] = ['auto', 'native', 'ts', 'cuda']

export function createBackend(name: BackendName = 'auto'): Backend {
  switch (name) {
    case 'ts':
      return createTsBackend()
    case 'native':
      return createNativeBackend()
    case 'cuda':
      try {
        return createCudaBackend()
      } catch (err) {
        // createCudaBackend's message is cudaUnavailableReason(): one line that already names the reason.
        const reason = (err as Error).message.split('\n')[0].replace(/; use --backend native$/, '').replace(/^cuda backend unavailable:? ?/, '')
        throw new EngineError('engine.backend', `the cuda backend is not available${reason.startsWith('(') ? ' ' : ': '}${reason}; use --backend native`, { cause: err })
      }
    case 'auto':
      return loadNativeAddon().addon ? createNativeBackend() : createTsBackend()
    default:
      throw new EngineError('engine.backend', `unknown backend '${String(name)}'; use one of ${BACKEND_NAMES.join(', ')}`)
  }
}

/** Why 'auto' picks ts here (undefined when native is available). */
export function backendFallbackReason(): string | undefined {
  return loadNativeAddon().reason
}

/** Parse a --backend value (clear one-line error for anything else). */
export function parseBackendName(s: string): BackendName {
  if ((BACKEND_NAMES as readonly string[]).includes(s)) return s as BackendName
  throw new EngineError('engine.backend', `unknown backend '${s}'; use one of ${BACKEND_NAMES.join(', ')}`)
}
