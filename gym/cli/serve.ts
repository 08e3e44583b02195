// gym/cli/serve: `searchgym gym serve DIR [--port P] [--token T] [--host H] [--workers N] [--address-file DIR] [--set KEY=VALUE]` — the gym
// server over a built world (tests serve a real tiny world: `searchgym world build --preset tiny` takes seconds); runs until SIGINT/SIGTERM. Every
// knob comes from the field table (serve-fields) and is range-checked there before anything starts: a server that would refuse or expire
// everything is a one-line error instead.
import { availableParallelism } from 'node:os'
import { basename, resolve } from 'node:path'
import type { ArgumentsCamelCase } from 'yargs'
import { announceStop, handler, renamedFlags, runUntilSignal, type Command } from '../../infra/cli-util'
import { fieldArgs, fieldOptions } from '../../infra/field-args'
import { GYM_SERVE_FIELDS, type GymServeConfig } from './serve-fields'
import { openHostWarning, tokenProblem } from '../../infra/http/host-guard'
import { GymError } from '../../infra/errors'
import { checkWorldContent, ENGINE_NAMES, openWorld, type EngineName, type Stage } from '../../world'
import { openGymWorld } from '../open-gym-world'
import { removeAddressFile, removeStaleAddressFiles, writeAddressFile } from '../address-file'
import { pathPrefixFor } from '../path-token'
import { startGymServer, statusOf, type SessionsFactory } from '../server'
import { ClusterEnvSessions, workerMaxEnvs } from '../cluster-sessions'
import { LocalEnvSessions } from '../env-sessions'
import { listenPeers } from '../worker-peers'
import { joinPrimary, reportStartFailure, startWorkers, workerPlan, workerPort } from './serve-workers'
import { oneLine } from '../../infra/errors'
import type { ClusterPlan } from '../cluster-sessions'

interface ServeArgs {
  dir?: string
  token?: string
  search?: string
  embedder?: string
}

/** `gym serve`; with `stages` (the root CLI passes the world stages agent adds the oracle check to), the world's
 *  content is checked against its hash before it is served (checkWorldContent: a row edited in place is refused). */
export const serveCommandWith = (stages?: readonly Stage[]): Command => ({
  command: 'serve [dir]',
  describe: 'serve a world: env sessions, /v1/search, /v1/access, Search-R1 /retrieve, /health',
  builder: (y) =>
    fieldOptions(
      renamedFlags(y, { engine: 'search' })
      .positional('dir', { type: 'string', describe: 'world folder (worlds/<name>)' })
      .option('token', {
        type: 'string',
        describe: 'token required on every route but /health (which without it says only {"status":"up"}), as Authorization: Bearer TOKEN or as the URL path prefix http://HOST:PORT/t/TOKEN/... (for engines that send no header) (default: $SEARCHGYM_TOKEN)',
      })
      .option('search', { type: 'string', choices: [...ENGINE_NAMES], describe: 'search engine (as world build --search; default: the one the world was verified with)' })
      .option('embedder', { type: 'string', describe: 'dense/hybrid: embedder model directory (default: the one the world was built with)' })
      .example('searchgym gym serve worlds/paper --port 8000', 'envs, /v1/search, /v1/access, Search-R1 /retrieve on http://127.0.0.1:8000')
      .example('searchgym gym serve worlds/paper --workers 2', 'two worker processes on one port (default: one per core); one that exits is restarted; /health lists them, "degraded" while one is down')
      .example('SEARCHGYM_TOKEN=secret searchgym gym serve worlds/paper --host 0.0.0.0', 'every interface, bearer token required')
      .example('searchgym gym serve worlds/paper --set maxEnvs=8192 --set idleSeconds=300', 'more envs at once, closed sooner when idle'),
      GYM_SERVE_FIELDS,
    ),
  handler: handler(async (raw: ArgumentsCamelCase) => {
    const a = raw as unknown as ServeArgs
    if (!a.dir) throw new GymError('cli.missing_dir', 'give a world folder: searchgym gym serve worlds/NAME (a tiny one: searchgym world build --preset tiny --out worlds/tiny)')
    const dir = a.dir
    // Every knob typed and range-checked by the table (named as given) before anything starts.
    const c = fieldArgs<GymServeConfig>(GYM_SERVE_FIELDS, raw as Record<string, unknown>).config
    const { port, maxEnvs, maxBatchQueries, maxQueryChars, maxBodyBytes, maxTopK, maxRetrieveHits, maxResponseBytes } = c
    const idle = c.idleSeconds
    const workers = c.workers ?? availableParallelism()
    const plan = workerPlan()
    // Each worker keeps one search thread for big /retrieve batches by default: the workers already fill the cores.
    const defaultThreads = workers > 1 ? 1 : Math.max(1, Math.min(4, availableParallelism() - 1))
    const searchThreads = c.searchThreads ?? defaultThreads
    const allowHosts = c.allowHost
    const host = c.host
    const token = a.token ?? process.env.SEARCHGYM_TOKEN ?? ''
    const bad = tokenProblem(token)
    if (bad) throw new GymError('cli.bad_flag', `--token ${a.token !== undefined ? '' : '($SEARCHGYM_TOKEN) '}${bad}`)
    const log = (line: string) => process.stderr.write(`searchgym gym serve: ${line}\n`)
    // Said once, by the process that prints the URL, when it listens.
    const open = openHostWarning(host, token, 'gym serve')
    const warnOpen = () => open && process.stderr.write(`searchgym: warning: ${open}\n`)
    const writeAddress = (port: number): string | undefined => {
      if (!c.addressFile) return undefined
      for (const st of removeStaleAddressFiles(c.addressFile)) log(`removed the stale address file ${st.path} (its server, pid ${st.pid}, no longer runs)`)
      return writeAddressFile(c.addressFile, host, port, token ? pathPrefixFor(token) : '')
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
      log(`${basename(resolve(dir))} (${r.qa} QA, ${workers} workers, ${r.searchThreads} search thread${r.searchThreads === 1 ? '' : 's'} each${c.retrieveUnit === 'passage' ? ', /retrieve serves passages' : ''}) on ${r.url}${addressFile ? ` (address file ${addressFile})` : ''}`)
      announceStop('searchgym gym serve')
      await runUntilSignal(async () => {
        if (addressFile) removeAddressFile(addressFile)
        await p.stop()
      })
    }

    const opened = await startOrReport(plan, async () => {
      const world = await openGymWorld(dir, { engine: a.search as EngineName | undefined, embedder: a.embedder, allowEngineMismatch: c.allowEngineMismatch, searchThreads })
      let cluster: ClusterEnvSessions | undefined
      const sessions: SessionsFactory | undefined = plan
        ? (w, o, envDefaults) => {
            const local = new LocalEnvSessions(w, envDefaults, workerMaxEnvs(o.maxEnvs, plan.index, plan.count), o.envIdleMs, `env_w${plan.index}_`)
            cluster = new ClusterEnvSessions(w, local, plan)
            return { sessions: cluster, registry: local.registry }
          }
        : undefined
      const s = await startGymServer(world, {
        host,
        port: workerPort() ?? port,
        token,
        maxTopK,
        retrieveUnit: c.retrieveUnit,
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
    log(`${world.name} (${world.listQa().length} QA, ${world.searchThreads} search thread${world.searchThreads === 1 ? '' : 's'}${c.retrieveUnit === 'passage' ? ', /retrieve serves passages' : ''}) on ${s.url}${addressFile ? ` (address file ${addressFile})` : ''}`)
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
