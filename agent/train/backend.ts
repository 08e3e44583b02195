// agent/train/backend: the ONE place the trainer picks an engine backend by name (`--backend`). Today only the ts
// reference backend exists here; the merge wires this to infra/engine's createBackend (ts | native | cuda | auto).
import { ConfigError } from '../../infra/errors'
import { createTsBackend } from '../../infra/engine/ts-backend'
import type { Backend } from '../../infra/engine/backend'

export const BACKEND_NAMES = ['ts', 'native', 'cuda', 'auto'] as const

export function openBackend(name: string): Backend {
  if (name === 'ts' || name === 'auto') return createTsBackend()
  if (name === 'native' || name === 'cuda')
    throw new ConfigError('train.backend', `backend '${name}' is not available in this build; use --backend ts`)
  throw new ConfigError('train.backend', `unknown backend '${name}'; use one of: ${BACKEND_NAMES.join(', ')}`)
}
