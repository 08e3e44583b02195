// gym/cli/serve: `searchgym gym serve DIR [--port P] [--token T] [--host H] [--workers N] [--address-file DIR]` — the gym server over a built world
// (tests serve a real tiny world: `searchgym world build --preset tiny` takes seconds); runs until SIGINT/SIGTERM. Every limit flag is range-checked before anything
// starts: a server that would refuse or expire everything is a one-line error instead.
import { availableParallelism } from 'node:os'
import { basename, resolve } from 'node:path'
import type { ArgumentsCamelCase } from 'yargs'
import { announceStop, handler, renamedFlags, runUntilSignal, type Command } from '../../infra/cli-util'
import { showValue } from '../../infra/show-value'
import { openHostWarning, tokenProblem } from '../../infra/http/host-guard'
import { GymError } from '../../infra/errors'
import { checkWorldContent, ENGINE_NAMES, openWorld, RETRIEVE_UNITS, type EngineName, type RetrieveUnit, type Stage } from '../../world'
import { openGymWorld } from '../open-gym-world'
import { removeAddressFile, removeStaleAddressFiles, writeAddressFile } from '../address-file'
import { pathPrefixFor } from '../path-token'
import { DEFAULT_SERVER_OPTIONS, SERVER_OPTION_RANGES, startGymServer, statusOf, type SessionsFactory } from '../server'
import { ClusterEnvSessions, workerMaxEnvs } from '../cluster-sessions'
import { LocalEnvSessions } from '../env-sessions'
import { listenPeers } from '../worker-peers'
import { joinPrimary, reportStartFailure, startWorkers, workerPlan, workerPort } from './serve-workers'
import { oneLine } from '../../infra/errors'
import type { ClusterPlan } from '../cluster-sessions'

interface ServeArgs {
  dir?: string
  port: number
  host: string
  token?: string
  maxEnvs: number
  idleSeconds: number
  maxBatchQueries: number
  maxQueryChars: number
  maxBodyBytes: number
  maxTopk: number
  retrieveUnit: RetrieveUnit
  search?: string
  embedder?: string
  allowEngineMismatch: boolean
  addressFile?: string
  allowHost?: string[]
  searchThreads?: number
  maxRetrieveHits: number
  maxResponseBytes: number
  workers?: number
}

/** A flag's value must be an integer in [lo, hi] (yargs turns `--port abc` into NaN). */
function intFlag(flag: string, v: unknown, lo: number, hi: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi)
    throw new GymError('cli.bad_flag', `--${flag} must be an integer in [${lo}, ${hi}], got ${showValue(v)}`)
  return v
}

const range = (k: keyof typeof SERVER_OPTION_RANGES) => SERVER_OPTION_RANGES[k]

/** `gym serve`; with `stages` (the root CLI passes the world stages agent adds the oracle check to), the world's
 *  content is checked against its hash before it is served (checkWorldContent: a row edited in place is refused). */
export const serveCommandWith = (stages?: readonly Stage[]): Command => ({
  command: 'serve [dir]',
  describe: 'serve a world: env sessions, /v1/search, /v1/access, Search-R1 /retrieve, /health',
  builder: (y) =>
    renamedFlags(y, { engine: 'search' })
      .positional('dir', { type: 'string', describe: 'world folder (worlds/<name>)' })
      .option('port', { type: 'number', default: 8000, describe: 'TCP port (0 = any free port; the URL is printed)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'interface to listen on (0.0.0.0: every interface; set --token then)' })
      .option('token', {
        type: 'string',
        describe: 'token required on every route but /health (which without it says only {"status":"up"}), as Authorization: Bearer TOKEN or as the URL path prefix http://HOST:PORT/t/TOKEN/... (for engines that send no header) (default: $SEARCHGYM_TOKEN)',
      })
      .option('max-envs', { type: 'number', default: DEFAULT_SERVER_OPTIONS.maxEnvs, describe: 'most envs open at once' })
      .option('idle-seconds', { type: 'number', default: DEFAULT_SERVER_OPTIONS.envIdleMs / 1000, describe: 'close envs idle this long' })
      .option('max-batch-queries', {
        type: 'number',
        default: DEFAULT_SERVER_OPTIONS.maxBatchQueries,
        describe: '/retrieve: queries answered per call (the rest are answered [] with a note)',
      })
      .option('max-query-chars', {
        type: 'number',
        default: DEFAULT_SERVER_OPTIONS.maxQueryChars,
        describe: 'longest query; /retrieve cuts longer ones (with a note), /v1/search refuses them',
      })
      .option('max-topk', {
        type: 'number',
        default: DEFAULT_SERVER_OPTIONS.maxTopK,
        describe: 'largest topk a /retrieve call (or k a /v1/search call) may ask for; larger is a 400',
      })
      .option('retrieve-unit', {
        choices: [...RETRIEVE_UNITS],
        default: 'page',
        describe: '/retrieve hits: whole pages, or ~100-word passages (title as first line) like the corpora Search-R1/verl/ASearcher were built on',
      })
.option('max-retrieve-hits', {
        type: 'number',
        default: DEFAULT_SERVER_OPTIONS.maxRetrieveHits,
        describe: '/retrieve: most hits (queries x topk) one call may ask for; more is a 413 before any search',
      })
      .option('max-response-bytes', { type: 'number', default: DEFAULT_SERVER_OPTIONS.maxResponseBytes, describe: '/retrieve: largest answer in bytes (413 above)' })
      .option('search-threads', {
        type: 'number',
        describe: '/retrieve: threads searching batches off the event loop, each with its own index (default: cores - 1, 1 to 4, with --workers 1; 1 per worker otherwise; 0: none)',
      })
      .option('workers', {
        type: 'number',
        describe: 'worker processes answering on the one port, each over the read-only world, restarted when one exits (back-off 0.5 s doubling to 30 s); an env lives in the worker that built it and its steps are routed there (default: the machine\'s cores; 1: one process)',
      })
      .option('max-body-bytes', { type: 'number', default: DEFAULT_SERVER_OPTIONS.maxBodyBytes, describe: 'largest request body' })
      .option('search', { type: 'string', choices: [...ENGINE_NAMES], describe: 'search engine (as world build --search; default: the one the world was verified with)' })
      .option('embedder', { type: 'string', describe: 'dense/hybrid: embedder model directory (default: the one the world was built with)' })
      .option('allow-engine-mismatch', { type: 'boolean', default: false, describe: 'serve with an engine or embedder other than the one the world was verified with' })
      .option('allow-host', {
        type: 'string',
        array: true,
        describe: 'also accept requests whose Host is NAME (loopback names and --host are always accepted; * accepts any, e.g. behind a proxy)',
      })
      .option('address-file', {
        type: 'string',
        describe:
          'folder for an AReaL/ASearcher address file Host<ip>_IP<port>.txt (its $RAG_SERVER_ADDR_DIR); removed on exit; files of dead servers there are removed at start; with --token the line carries /t/TOKEN',
      })
      .example('searchgym gym serve worlds/paper --port 8000', 'envs, /v1/search, /v1/access, Search-R1 /retrieve on http://127.0.0.1:8000')
      .example('searchgym gym serve worlds/paper --workers 2', 'two worker processes on one port (default: one per core); one that exits is restarted; /health lists them, "degraded" while one is down')
      .example('SEARCHGYM_TOKEN=secret searchgym gym serve worlds/paper --host 0.0.0.0', 'every interface, bearer token required'),
  handler: handler(async (raw: ArgumentsCamelCase) => {
    const a = raw as unknown as ServeArgs
    if (!a.dir) throw new GymError('cli.missing_dir', 'give a world folder: searchgym gym serve worlds/NAME (a tiny one: searchgym world build --preset tiny --out worlds/tiny)')
    const dir = a.dir
    const port = intFlag('port', a.port, 0, 65535)
    if (typeof a.host !== 'string' || a.host.trim() === '') throw new GymError('cli.bad_flag', '--host must be a host name or address, e.g. 127.0.0.1')
    const maxEnvs = intFlag('max-envs', a.maxEnvs, ...range('maxEnvs'))
    const idle = a.idleSeconds
    const idleHi = range('envIdleMs')[1] / 1000
    if (typeof idle !== 'number' || !Number.isFinite(idle) || idle < 1 || idle > idleHi)
      throw new GymError('cli.bad_flag', `--idle-seconds must be a number in [1, ${idleHi}], got ${String(idle)}`)
    const maxBatchQueries = intFlag('max-batch-queries', a.maxBatchQueries, ...range('maxBatchQueries'))
    const maxQueryChars = intFlag('max-query-chars', a.maxQueryChars, ...range('maxQueryChars'))
    const maxBodyBytes = intFlag('max-body-bytes', a.maxBodyBytes, ...range('maxBodyBytes'))
    const maxTopK = intFlag('max-topk', a.maxTopk, ...range('maxTopK'))
    const maxRetrieveHits = intFlag('max-retrieve-hits', a.maxRetrieveHits, ...range('maxRetrieveHits'))
    const maxResponseBytes = intFlag('max-response-bytes', a.maxResponseBytes, ...range('maxResponseBytes'))
    const workers = a.workers === undefined ? availableParallelism() : intFlag('workers', a.workers, 1, 256)
    const plan = workerPlan()
    // Each worker keeps one search thread for big /retrieve batches by default: the workers already fill the cores.
    const defaultThreads = workers > 1 ? 1 : Math.max(1, Math.min(4, availableParallelism() - 1))
    const searchThreads = a.searchThreads === undefined ? defaultThreads : intFlag('search-threads', a.searchThreads, 0, 64)
    if (a.addressFile !== undefined && (typeof a.addressFile !== 'string' || a.addressFile.trim() === ''))
      throw new GymError('cli.bad_flag', '--address-file must be a folder, e.g. --address-file $RAG_SERVER_ADDR_DIR')
    const allowHosts = (a.allowHost ?? []).map(String)
    if (allowHosts.some((h) => h.trim() === '' || /[\s/]/.test(h.trim())))
      throw new GymError('cli.bad_flag', '--allow-host must be a host name or address without scheme or path, e.g. --allow-host gpu-node-3')
    const token = a.token ?? process.env.SEARCHGYM_TOKEN ?? ''
    const bad = tokenProblem(token)
    if (bad) throw new GymError('cli.bad_flag', `--token ${a.token !== undefined ? '' : '($SEARCHGYM_TOKEN) '}${bad}`)
    const log = (line: string) => process.stderr.write(`searchgym gym serve: ${line}\n`)
    // Said once, by the process that prints the URL, when it listens.
    const open = openHostWarning(a.host, token, 'gym serve')
    const warnOpen = () => open && process.stderr.write(`searchgym: warning: ${open}\n`)
    const writeAddress = (port: number): string | undefined => {
      if (!a.addressFile) return undefined
      for (const st of removeStaleAddressFiles(a.addressFile)) log(`removed the stale address file ${st.path} (its server, pid ${st.pid}, no longer runs)`)
      return writeAddressFile(a.addressFile, a.host, port, token ? pathPrefixFor(token) : '')
    }

    // Once, in the primary (or the only process): the workers open a world already checked.
    if (!plan && stages) {
      const w = openWorld(dir, { check: true })
      // Silent when it matches: a refusal below (engine mismatch, …) stays the only stderr line.
      try {
        checkWorldContent(w, stages)
      } finally {
        w.close()
      }
    }

    if (workers > 1 && !plan) {
      // The primary: no world of its own; the workers open it.
      const p = await startWorkers(workers, log)
      let addressFile: string | undefined
      try {
        addressFile = writeAddress(p.ready.port)
      } catch (e) {
        await p.stop()
        throw e
      }
      if (addressFile) process.once('exit', () => removeAddressFile(addressFile))
      const r = p.ready
      warnOpen()
      log(`${basename(resolve(dir))} (${r.qa} QA, ${workers} workers, ${r.searchThreads} search thread${r.searchThreads === 1 ? '' : 's'} each${a.retrieveUnit === 'passage' ? ', /retrieve serves passages' : ''}) on ${r.url}${addressFile ? ` (address file ${addressFile})` : ''}`)
      announceStop('searchgym gym serve')
      await runUntilSignal(async () => {
        if (addressFile) removeAddressFile(addressFile)
        await p.stop()
      })
    }

    const opened = await startOrReport(plan, async () => {
      const world = await openGymWorld(dir, { engine: a.search as EngineName | undefined, embedder: a.embedder, allowEngineMismatch: a.allowEngineMismatch, searchThreads })
      let cluster: ClusterEnvSessions | undefined
      const sessions: SessionsFactory | undefined = plan
        ? (w, o, envDefaults) => {
            const local = new LocalEnvSessions(w, envDefaults, workerMaxEnvs(o.maxEnvs, plan.index, plan.count), o.envIdleMs, `env_w${plan.index}_`)
            cluster = new ClusterEnvSessions(w, local, plan)
            return { sessions: cluster, registry: local.registry }
          }
        : undefined
      const s = await startGymServer(world, {
        host: a.host,
        port: workerPort() ?? port,
        token,
        maxTopK,
        retrieveUnit: a.retrieveUnit,
        maxEnvs,
        envIdleMs: Math.round(idle * 1000),
        maxBatchQueries,
        maxQueryChars,
        maxBodyBytes,
        maxRetrieveHits,
        maxResponseBytes,
        allowHosts,
        sessions,
      })
      return { world, s, cluster }
    })
    const { world, s, cluster } = opened
    if (plan && cluster) {
      const cs = cluster
      const peers = await listenPeers(plan.socketPath(plan.index), (h, p) => cs.serve(h, p), (e) => ({ ...statusOf(e), param: null }))
      const stopped = runUntilSignal(async () => {
        peers.close()
        await s.close()
        await world.close()
      })
      joinPrimary({ index: plan.index, url: s.url, port: s.port, qa: world.listQa().length, searchThreads: world.searchThreads }, (states) => cs.setWorkers(states))
      await stopped
    }
    let addressFile: string | undefined
    try {
      addressFile = writeAddress(s.port)
    } catch (e) {
      await s.close()
      await world.close()
      throw e
    }
    if (addressFile) process.once('exit', () => removeAddressFile(addressFile))
    warnOpen()
    log(`${world.name} (${world.listQa().length} QA, ${world.searchThreads} search thread${world.searchThreads === 1 ? '' : 's'}${a.retrieveUnit === 'passage' ? ', /retrieve serves passages' : ''}) on ${s.url}${addressFile ? ` (address file ${addressFile})` : ''}`)
    announceStop('searchgym gym serve')
    await runUntilSignal(async () => {
      if (addressFile) removeAddressFile(addressFile)
      await s.close()
      await world.close()
    })
  }),
})

/** `gym serve` without a content check (callers that have no stage list). */
export const serveCommand: Command = serveCommandWith()

/** Run a worker's start; a failure goes to the primary as its one line (not printed by every worker). */
async function startOrReport<T>(plan: ClusterPlan | undefined, start: () => Promise<T>): Promise<T> {
  if (!plan) return start()
  try {
    return await start()
  } catch (e) {
    return reportStartFailure(plan.index, oneLine(e))
  }
}
