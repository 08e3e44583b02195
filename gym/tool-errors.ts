// gym/tool-errors: the typed failures a tool backend may raise (injected faults or a failing engine); the env turns
// each into an observation and a metric, never an exception out of step().
import { GymError } from '../infra/errors'

export type ToolFaultKind = 'timeout' | 'rate_limited' | 'unavailable'

export class ToolFaultError extends GymError {
  readonly kind: ToolFaultKind
  constructor(kind: ToolFaultKind, message: string) {
    super(`tool.${kind}`, message)
    this.kind = kind
  }
}
