// gym/cli/serve-worker: one worker of `gym serve --workers N` — its world and server on the shared port with cluster
// env sessions (an env lives in the worker that built it; its peers reach it over a socket), joined to the primary;
// a failure to start goes to the primary as its one line. Runs until SIGINT/SIGTERM.
import { oneLine } from '../../infra/errors'
import { runUntilSignal } from '../../infra/cli-util'
import { statusOf, type SessionsFactory } from '../server'
import { ClusterEnvSessions, workerMaxEnvs, type ClusterPlan } from '../cluster-sessions'
import { LocalEnvSessions } from '../env-sessions'
import { listenPeers } from '../worker-peers'
import { joinPrimary, reportStartFailure, workerPort } from './serve-workers'
import { openServer, type ServeSetup } from './serve-setup'

export async function serveWorker(setup: ServeSetup, plan: ClusterPlan): Promise<never> {
  let cluster: ClusterEnvSessions | undefined
  const sessions: SessionsFactory = (w, o, envDefaults) => {
    const local = new LocalEnvSessions(w, envDefaults, workerMaxEnvs(o.maxEnvs, plan.index, plan.count), o.envIdleMs, `env_w${plan.index}_`)
    cluster = new ClusterEnvSessions(w, local, plan)
    return { sessions: cluster, registry: local.registry }
  }
  let opened: Awaited<ReturnType<typeof openServer>>
  try {
    opened = await openServer(setup, workerPort() ?? setup.c.port, sessions)
  } catch (e) {
    return reportStartFailure(plan.index, oneLine(e))
  }
  const { world, s } = opened
  const cs = cluster!
  const peers = await listenPeers(plan.socketPath(plan.index), (h, p) => cs.serve(h, p), (e) => ({ ...statusOf(e), param: null }))
  const stopped = runUntilSignal(async () => {
    peers.close()
    await s.close()
    await world.close()
  })
  joinPrimary({ index: plan.index, url: s.url, port: s.port, qa: world.listQa().length, searchThreads: world.searchThreads }, (states) => cs.setWorkers(states))
  return stopped
}
