// agent/train/backend: the ONE place the trainer picks an engine backend by name (`--backend`): infra/engine's
// createBackend (ts | native | cuda | auto; auto = native where it built, else ts).
import { createBackend, parseBackendName, BACKEND_NAMES, type Backend } from '../../infra/engine'

export { BACKEND_NAMES }

export function openBackend(name: string): Backend {
  return createBackend(parseBackendName(name))
}
