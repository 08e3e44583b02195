// view/cli/commands: `searchgym view [--world DIR] [--runs DIR...] [--port P] [--host H] [--allow-host NAME...]` —
// opens the world, the run folders and experiment folders (a missing or unfinished one is a one-line error before anything listens),
// serves the viewer, prints a URL a browser can open (and a warning when bound beyond loopback), and runs until
// SIGINT/SIGTERM. The run files are indexed in the background after the URL is printed.
import type { ArgumentsCamelCase } from 'yargs'
import { announceStop, handler, runUntilSignal, type Command } from '../../infra/cli-util'
import { ViewError } from '../errors'
import { openSources } from '../experiments'
import { startViewer } from '../server'
import { WorldData } from '../world-data'
import { CHECKED_WORLD_STAGES } from '../../agent'
import { checkWorldDir } from '../../world'

interface ViewArgs {
  world?: string
  runs?: string[]
  port: number
  host: string
  allowHost?: string[]
}

export const viewCommand: Command = {
  command: 'view',
  describe: 'a local web viewer: entities, documents and verification, questions, trajectories, training curves',
  builder: (y) =>
    y
      .option('world', { type: 'string', describe: 'a built world folder (worlds/<name>)' })
      .option('runs', { type: 'string', array: true, describe: 'bench run folders, training run folders and experiment folders (the --out of searchgym experiment run, or a folder holding several), several allowed' })
      .option('port', { type: 'number', default: 4173, describe: 'port to listen on (0: any free port)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to bind; only loopback unless you name another (a warning is printed then)' })
      .option('allow-host', { type: 'string', array: true, describe: "extra Host names the viewer answers to (behind a proxy or an SSH tunnel under another name; '*': any). Loopback names and the bound address always work" })
      .example('searchgym view --world worlds/tiny --runs runs/oracle runs/closed-book', 'browse a world and two bench runs on http://127.0.0.1:4173/')
      .example('searchgym view --runs runs/exp-tiny', 'an experiment: arms × seeds with CIs, curves per arm with seed bands, every run and bench')
      .example('searchgym view --runs runs/a --host 0.0.0.0 --allow-host gpu-box.lan', 'serve on every interface, reachable as http://gpu-box.lan:4173/'),
  handler: handler(async (raw: ArgumentsCamelCase) => {
    const a = raw as unknown as ViewArgs
    if (!Number.isInteger(a.port) || a.port < 0 || a.port > 65535) throw new ViewError('cli.bad_flag', `--port must be an integer in [0, 65535], got ${String(a.port)}`)
    if (typeof a.host !== 'string' || a.host.trim() === '') throw new ViewError('cli.bad_flag', '--host must be a host name or address, e.g. 127.0.0.1')
    if (a.world === undefined && !a.runs?.length) throw new ViewError('cli.nothing', 'give --world DIR, --runs DIR..., or both (e.g. searchgym view --world worlds/tiny --runs runs/oracle)')
    if (a.world !== undefined && (typeof a.world !== 'string' || a.world.trim() === '')) throw new ViewError('cli.bad_flag', '--world must be a world folder')
    const { runs, experiments } = openSources((a.runs ?? []).map(String))
    // The world's rows against its hash (an edited question is refused, not shown as the world's).
    if (a.world) checkWorldDir(a.world, CHECKED_WORLD_STAGES)
    const world = a.world ? WorldData.open(a.world) : null
    const v = await startViewer({ world, runs, experiments }, { host: a.host, port: a.port, allowHosts: (a.allowHost ?? []).map(String) })
    process.stdout.write(`searchgym view: ${v.url}\n`)
    if (v.warning) process.stderr.write(`searchgym view: ${v.warning}\n`)
    announceStop('searchgym view')
    await runUntilSignal(async () => {
      await v.close()
      world?.close()
    })
  }),
}

export function viewCommands(): Command[] {
  return [viewCommand]
}
