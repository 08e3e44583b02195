// gym/cli/serve-fields: `gym serve`'s knobs as one field table — the listener (port, host, worker processes), the
// server's limits (their defaults DEFAULT_SERVER_OPTIONS', their bounds SERVER_OPTION_RANGES', both in gym/server),
// the /retrieve unit and search threads, the Host allow-list and the ASearcher address file. The world folder, the
// token (also $SEARCHGYM_TOKEN) and the search engine are the command's own flags. Knows no process role.
import { problemCheck, type Field, type FieldTable } from '../../infra/fields'
import { allowHostProblem, bindHostProblem } from '../../infra/http/host-guard'
import { RETRIEVE_UNITS } from '../../world'
import { DEFAULT_SERVER_OPTIONS, SERVER_OPTION_RANGES } from '../server'

/** Type, default and bounds of one of the server's numeric options. */
function limit(k: 'maxEnvs' | 'maxBatchQueries' | 'maxQueryChars' | 'maxBodyBytes' | 'maxTopK' | 'maxRetrieveHits' | 'maxResponseBytes'): Pick<Field, 'type' | 'default' | 'min' | 'max'> {
  const [min, max] = SERVER_OPTION_RANGES[k]
  return { type: 'int', default: DEFAULT_SERVER_OPTIONS[k], min, max }
}

export interface GymServeConfig {
  port: number
  host: string
  /** Worker processes (unset: the machine's cores). */
  workers?: number
  retrieveUnit: (typeof RETRIEVE_UNITS)[number]
  addressFile?: string
  maxEnvs: number
  idleSeconds: number
  maxBatchQueries: number
  maxQueryChars: number
  maxTopK: number
  maxRetrieveHits: number
  maxResponseBytes: number
  maxBodyBytes: number
  /** /retrieve search threads (unset: cores − 1, 1 to 4, with one worker; 1 per worker otherwise). */
  searchThreads?: number
  allowEngineMismatch: boolean
  allowHost: string[]
}

export const GYM_SERVE_FIELDS: FieldTable = [
  { key: 'port', type: 'int', default: 8000, min: 0, max: 65535, flag: 'port', help: 'TCP port (0 = any free port; the URL is printed)' },
  { key: 'host', type: 'string', default: '127.0.0.1', flag: 'host', help: 'interface to listen on (0.0.0.0: every interface; set --token then)', check: problemCheck(bindHostProblem) },
  { key: 'workers', type: 'int', optional: true, min: 1, max: 256, flag: 'workers', help: "worker processes answering on the one port, each over the read-only world, restarted when one exits (back-off 0.5 s doubling to 30 s); an env lives in the worker that built it and its steps are routed there (unset: the machine's cores; 1: one process)" },
  { key: 'retrieveUnit', type: 'enum', choices: RETRIEVE_UNITS, default: 'page', flag: 'retrieve-unit', help: '/retrieve hits: whole pages, or ~100-word passages (title as first line) like the corpora Search-R1/verl/ASearcher were built on' },
  { key: 'addressFile', type: 'string', optional: true, flag: 'address-file', help: 'folder for an AReaL/ASearcher address file Host<ip>_IP<port>.txt (its $RAG_SERVER_ADDR_DIR); removed on exit; files of dead servers there are removed at start; with --token the line carries /t/TOKEN', check: (v, fail) => (v as string).trim() === '' && fail('must be a folder, e.g. --address-file $RAG_SERVER_ADDR_DIR') },
  { key: 'maxEnvs', ...limit('maxEnvs'), aliases: ['max-envs'], help: 'most envs open at once' },
  { key: 'idleSeconds', type: 'number', default: DEFAULT_SERVER_OPTIONS.envIdleMs / 1000, min: 1, max: SERVER_OPTION_RANGES.envIdleMs[1] / 1000, aliases: ['idle-seconds'], help: 'close envs idle this long' },
  { key: 'maxBatchQueries', ...limit('maxBatchQueries'), aliases: ['max-batch-queries'], help: '/retrieve: queries answered per call (the rest are answered [] with a note)' },
  { key: 'maxQueryChars', ...limit('maxQueryChars'), aliases: ['max-query-chars'], help: 'longest query; /retrieve cuts longer ones (with a note), /v1/search refuses them' },
  { key: 'maxTopK', ...limit('maxTopK'), aliases: ['max-topk'], help: 'largest topk a /retrieve call (or k a /v1/search call) may ask for; larger is a 400' },
  { key: 'maxRetrieveHits', ...limit('maxRetrieveHits'), aliases: ['max-retrieve-hits'], help: '/retrieve: most hits (queries x topk) one call may ask for; more is a 413 before any search' },
  { key: 'maxResponseBytes', ...limit('maxResponseBytes'), aliases: ['max-response-bytes'], help: '/retrieve: largest answer in bytes (413 above)' },
  { key: 'maxBodyBytes', ...limit('maxBodyBytes'), aliases: ['max-body-bytes'], help: 'largest request body' },
  { key: 'searchThreads', type: 'int', optional: true, min: 0, max: 64, aliases: ['search-threads'], help: '/retrieve: threads searching batches off the event loop, each with its own index (unset: cores - 1, 1 to 4, with one worker; 1 per worker otherwise; 0: none)' },
  { key: 'allowEngineMismatch', type: 'bool', default: false, aliases: ['allow-engine-mismatch'], help: 'serve with an engine or embedder other than the one the world was verified with' },
  {
    key: 'allowHost',
    type: 'list',
    default: [],
    aliases: ['allow-host'],
    help: 'also accept requests whose Host is one of these (loopback names and host are always accepted; * accepts any, e.g. behind a proxy)',
    check: problemCheck(allowHostProblem),
  },
]
