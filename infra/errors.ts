// infra/errors: the root error class and the per-package subclasses. Errors say what was wrong and what to do.
export class SearchGymError extends Error {
  /** Stable machine-readable code, e.g. 'config.unknown_key'. */
  readonly code: string
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = new.target.name
    this.code = code
  }
}
export class ConfigError extends SearchGymError {}
export class StoreError extends SearchGymError {}
export class WorldError extends SearchGymError {}
export class SearchError extends SearchGymError {}
export class GymError extends SearchGymError {}
export class AgentError extends SearchGymError {}
export class EngineError extends SearchGymError {}
export class BenchError extends SearchGymError {}

/** One line for a user: the message of a SearchGymError, or the first line of anything else. */
export function oneLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err)
  return msg.split('\n')[0]
}
