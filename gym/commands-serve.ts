// gym/commands-serve: `searchgym gym serve DIR [--port P] [--token T] [--host H]` — the gym server over a built world
// (or the test fixture with --fixture); runs until SIGINT/SIGTERM.
import type { ArgumentsCamelCase } from 'yargs'
import { handler, type Command } from '../infra/cli-util'
import { GymError } from '../infra/errors'
import { ENGINE_NAMES, type EngineName } from '../world/search/engine-names'
import { openFixtureWorld } from './fixtures/fixture-world'
import { openGymWorld } from './open-gym-world'
import { startGymServer } from './server'

interface ServeArgs {
  dir?: string
  port: number
  host: string
  token?: string
  fixture: boolean
  maxEnvs: number
  idleSeconds: number
  engine?: string
  embedder?: string
  allowEngineMismatch: boolean
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
      .option('fixture', { type: 'boolean', default: false, describe: 'serve the built-in six-document test fixture instead of a world' })
      .option('max-envs', { type: 'number', default: 4096 })
      .option('idle-seconds', { type: 'number', default: 600, describe: 'close envs idle this long' })
      .option('engine', { type: 'string', choices: [...ENGINE_NAMES], describe: 'search engine (default: the one the world was verified with)' })
      .option('embedder', { type: 'string', describe: 'dense/hybrid: embedder model directory (default: the one the world was built with)' })
      .option('allow-engine-mismatch', { type: 'boolean', default: false, describe: 'serve with an engine or embedder other than the one the world was verified with' }),
  handler: handler(async (raw: ArgumentsCamelCase) => {
    const a = raw as unknown as ServeArgs
    if (!a.fixture && !a.dir) throw new GymError('cli.missing_dir', 'give a world folder (searchgym gym serve worlds/NAME) or --fixture')
    if (!Number.isInteger(a.port) || a.port < 0 || a.port > 65535) throw new GymError('cli.bad_port', `--port must be 0..65535, got ${a.port}`)
    const world = a.fixture
      ? openFixtureWorld()
      : await openGymWorld(a.dir as string, { engine: a.engine as EngineName | undefined, embedder: a.embedder, allowEngineMismatch: a.allowEngineMismatch })
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
