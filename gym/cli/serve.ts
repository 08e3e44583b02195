// gym/cli/serve: `searchgym gym serve DIR [--port P] [--token T] [--host H] [--workers N] [--address-file DIR] [--set KEY=VALUE]` — the gym
// server over a built world (tests serve a real tiny world: `searchgym world build --preset tiny` takes seconds); runs until SIGINT/SIGTERM. Every
// knob comes from the field table (serve-fields) and is range-checked there before anything starts: a server that would refuse or expire
// everything is a one-line error instead.
import { availableParallelism } from 'node:os'
import type { ArgumentsCamelCase } from 'yargs'
import { handler, renamedFlags, type Command } from '../../infra/cli-util'
import { fieldArgs, fieldOptions } from '../../infra/field-args'
import { GYM_SERVE_FIELDS, type GymServeConfig } from './serve-fields'
import { openHostWarning, tokenProblem } from '../../infra/http/host-guard'
import { GymError } from '../../infra/errors'
import { checkWorldContent, ENGINE_NAMES, openWorld, type EngineName, type Stage } from '../../world'
import { workerPlan } from './serve-workers'
import type { ServeSetup } from './serve-setup'
import { serveAlone } from './serve-alone'
import { servePrimary } from './serve-primary'
import { serveWorker } from './serve-worker'

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
    const workers = c.workers ?? availableParallelism()
    const plan = workerPlan()
    // Each worker keeps one search thread for big /retrieve batches by default: the workers already fill the cores.
    const defaultThreads = workers > 1 ? 1 : Math.max(1, Math.min(4, availableParallelism() - 1))
    const token = a.token ?? process.env.SEARCHGYM_TOKEN ?? ''
    const bad = tokenProblem(token)
    if (bad) throw new GymError('cli.bad_flag', `--token ${a.token !== undefined ? '' : '($SEARCHGYM_TOKEN) '}${bad}`)
    const open = openHostWarning(c.host, token, 'gym serve')
    const setup: ServeSetup = {
      dir,
      c,
      token,
      workers,
      searchThreads: c.searchThreads ?? defaultThreads,
      engine: a.search as EngineName | undefined,
      embedder: a.embedder,
      log: (line) => process.stderr.write(`searchgym gym serve: ${line}\n`),
      warnOpen: () => void (open && process.stderr.write(`searchgym: warning: ${open}\n`)),
    }
    // A worker: the primary checked the world and reports its failures.
    if (plan) return serveWorker(setup, plan)
    // Once, in the primary (or the only process): the workers open a world already checked.
    if (stages) {
      const w = openWorld(dir, { check: true })
      // Silent when it matches: a refusal below (engine mismatch, …) stays the only stderr line.
      try {
        checkWorldContent(w, stages)
      } finally {
        w.close()
      }
    }
    return workers > 1 ? servePrimary(setup) : serveAlone(setup)
  }),
})

/** `gym serve` without a content check (callers that have no stage list). */
export const serveCommand: Command = serveCommandWith()
