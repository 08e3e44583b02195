// gym/cli/serve: `searchgym gym serve DIR [--port P] [--token T] [--host H]` — the gym server over a built world; runs
// until SIGINT/SIGTERM. (Tests serve a real tiny world: `searchgym world build --preset tiny` takes seconds.)
import type { ArgumentsCamelCase } from 'yargs'
import { handler, type Command } from '../../infra/cli-util'
import { GymError } from '../../infra/errors'
import { openGymWorld } from '../open-gym-world'
import { startGymServer } from '../server'

interface ServeArgs {
  dir?: string
  port: number
  host: string
  token?: string
  maxEnvs: number
  idleSeconds: number
}

export const serveCommand: Command = {
  command: 'serve [dir]',
  describe: 'serve a world: env sessions, /v1/search, /v1/access, Search-R1 /retrieve, /health',
  builder: (y) =>
    y
      .positional('dir', { type: 'string', describe: 'world folder (worlds/<name>)' })
      .option('port', { type: 'number', default: 8000 })
      .option('host', { type: 'string', default: '127.0.0.1' })
      .option('token', { type: 'string', describe: 'bearer token required on every route but /health (default: $SEARCHGYM_TOKEN)' })
      .option('max-envs', { type: 'number', default: 4096 })
      .option('idle-seconds', { type: 'number', default: 600, describe: 'close envs idle this long' }),
  handler: handler(async (raw: ArgumentsCamelCase) => {
    const a = raw as unknown as ServeArgs
    if (!a.dir) throw new GymError('cli.missing_dir', 'give a world folder: searchgym gym serve worlds/NAME (a tiny one: searchgym world build --preset tiny --out worlds/tiny)')
    if (!Number.isInteger(a.port) || a.port < 0 || a.port > 65535) throw new GymError('cli.bad_port', `--port must be 0..65535, got ${a.port}`)
    const world = await openGymWorld(a.dir)
    const s = await startGymServer(world, {
      host: a.host,
      port: a.port,
      token: a.token ?? process.env.SEARCHGYM_TOKEN ?? '',
      maxEnvs: a.maxEnvs,
      envIdleMs: Math.round(a.idleSeconds * 1000),
    })
    process.stderr.write(`searchgym gym serve: ${world.name} (${world.listQa().length} QA) on ${s.url}\n`)
    const stop = async () => {
      await s.close()
      await world.close()
      process.exit(0)
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    await new Promise(() => {})
  }),
}
