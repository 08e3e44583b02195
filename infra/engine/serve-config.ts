// infra/engine/serve-config: `model serve`'s knobs as one field table — the listener (port, host), the engine backend,
// the replies' defaults (seed, max_tokens, the base model's id), the request limits, the Host allow-list and the
// request log — with their defaults, bounds and help, once. The model folder, the adapter and the token (a secret: never
// in a config file) are the command's own flags. Knows no HTTP route.
import { problemCheck, type FieldTable } from '../fields'
import { allowHostProblem, bindHostProblem } from '../http/host-guard'
import { BACKEND_NAMES, type BackendName } from './create-backend'
import { DEFAULT_LIMITS } from './server/validate'

/** The largest prompt-character and body-byte limit (1 GiB). */
const MAX_LIMIT = 1 << 30

/** What `model serve` is configured by (serveModel()'s options less the folders, the token and the log). */
export interface ModelServeConfig {
  port: number
  host: string
  backend: BackendName
  seed: number
  /** The base model's id in /v1/models (unset: the folder's name). */
  name?: string
  maxTokens: number
  maxPromptChars?: number
  maxBodyBytes?: number
  allowHost: string[]
  quiet: boolean
}

export const MODEL_SERVE_FIELDS: FieldTable = [
  { key: 'port', type: 'int', default: 8000, min: 0, max: 65535, flag: 'port', help: 'TCP port (0 = any free port; the URL is printed)' },
  { key: 'host', type: 'string', default: '127.0.0.1', flag: 'host', help: 'interface to listen on', check: problemCheck(bindHostProblem) },
  { key: 'backend', type: 'enum', choices: BACKEND_NAMES, default: 'auto', flag: 'backend', help: 'engine backend (auto = native where it built, else ts)' },
  { key: 'seed', type: 'int', default: 0, aliases: ['seed'], help: 'seed of the per-request seeds drawn when a request sends none' },
  { key: 'name', type: 'string', optional: true, aliases: ['name'], help: 'model id of the base model (unset: the folder name)' },
  { key: 'maxTokens', type: 'int', default: DEFAULT_LIMITS.defaultMaxTokens, min: 1, aliases: ['max-tokens'], help: 'max_tokens when a request sends none' },
  { key: 'maxPromptChars', type: 'int', optional: true, min: 1, max: MAX_LIMIT, aliases: ['max-prompt-chars'], help: 'longest prompt text read, in characters; longer is a 400 before tokenizing (unset: context x 8)' },
  { key: 'maxBodyBytes', type: 'int', optional: true, min: 1, max: MAX_LIMIT, aliases: ['max-body-bytes'], help: 'largest request body (unset: from maxPromptChars, at most 64 MiB)' },
  {
    key: 'allowHost',
    type: 'list',
    default: [],
    aliases: ['allow-host'],
    help: 'also accept requests whose Host is one of these (loopback names and host are always accepted; * accepts any)',
    check: problemCheck(allowHostProblem),
  },
  { key: 'quiet', type: 'bool', default: false, aliases: ['quiet'], help: 'no per-request log lines' },
]
