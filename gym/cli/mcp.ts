// gym/cli/mcp: `searchgym gym mcp DIR [--qa ID | --split S --index N] [--options JSON] [--http --port P --token T]` —
// the gym as an MCP server (gym/mcp-server) over stdio (default) or streamable HTTP. Every flag is checked before the
// world opens (a bad one is a one-line error); the SDK and hono (gym/mcp-server) load only when the command runs.
import type { ArgumentsCamelCase } from 'yargs'
import { announceStop, handler, runUntilSignal, type Command } from '../../infra/cli-util'
import { showValue } from '../../infra/show-value'
import { openHostWarning, tokenProblem } from '../../infra/http/host-guard'
import { GymError } from '../../infra/errors'
import { checkWorldContent, openWorld, type Stage } from '../../world'
import { openGymWorld } from '../open-gym-world'
import { resolveMcpOptions } from '../mcp-episode'

/** The env registry's longest idle time (a week): a stdio session is never expired in practice. */
const STDIO_IDLE_MS = 7 * 24 * 3600_000

interface McpArgs {
  dir?: string
  qa?: string
  split?: string
  index?: number
  options?: string
  http: boolean
  port: number
  host: string
  token?: string
  allowHost?: string[]
  maxSessions: number
  idleSeconds: number
  maxBodyBytes: number
}

function intFlag(flag: string, v: unknown, lo: number, hi: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi)
    throw new GymError('cli.bad_flag', `--${flag} must be an integer in [${lo}, ${hi}], got ${showValue(v)}`)
  return v
}

function optionsFlag(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined) return {}
  let v: unknown
  try {
    v = JSON.parse(raw)
  } catch {
    throw new GymError('cli.bad_flag', `--options must be a JSON object, e.g. --options '{"budgets":{"maxTurns":8}}'; got ${JSON.stringify(raw.slice(0, 80))}`)
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new GymError('cli.bad_flag', '--options must be a JSON object (the env options of the env API\'s create request)')
  return v as Record<string, unknown>
}

/** `gym mcp`; with `stages`, the world's content is checked against its hash before it is served (as `gym serve`). */
export const mcpCommandWith = (stages?: readonly Stage[]): Command => ({
  command: 'mcp [dir]',
  describe: 'serve a world as an MCP server: tools search, access, answer; the question as a prompt and a resource; one scored episode per session',
  builder: (y) =>
    y
      .positional('dir', { type: 'string', describe: 'world folder (worlds/<name>)' })
      .option('qa', { type: 'string', describe: 'the question every session plays, by id (default: --split and --index); over --http a session may name its own: /mcp?qa=ID or /mcp?split=S&index=N' })
      .option('split', { type: 'string', choices: ['train', 'bench'], describe: 'the split of the question, instead of --qa (default: train)' })
      .option('index', { type: 'number', describe: 'the question\'s position in --split, in the env API\'s order (GET /v1/qa), instead of --qa (default: 0)' })
      .option('options', {
        type: 'string',
        describe: 'env options as JSON, the env API\'s create "options" (budgets, reward, topK, episode, faults, ...), e.g. \'{"budgets":{"maxTurns":8}}\'',
      })
      .option('http', { type: 'boolean', default: false, describe: 'serve streamable HTTP at http://HOST:PORT/mcp instead of stdio' })
      .option('port', { type: 'number', default: 8001, describe: '--http: TCP port (0 = any free port; the URL is printed)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: '--http: interface to listen on (0.0.0.0: every interface; set --token then)' })
      .option('token', { type: 'string', describe: '--http: token required on every request, as Authorization: Bearer TOKEN (default: $SEARCHGYM_TOKEN)' })
      .option('allow-host', { type: 'string', array: true, describe: '--http: also accept requests whose Host is NAME (loopback names and --host always are; * accepts any)' })
      .option('max-sessions', { type: 'number', default: 256, describe: '--http: most MCP sessions (episodes) open at once' })
      .option('idle-seconds', { type: 'number', default: 600, describe: '--http: close a session (and its env) idle this long (stdio: the session lasts as long as the process)' })
      .option('max-body-bytes', { type: 'number', default: 1 << 20, describe: '--http: largest request body' })
      .example('searchgym gym mcp worlds/tiny', 'stdio: one episode of train question 0 (an MCP client starts this command)')
      .example('searchgym gym mcp worlds/tiny --split bench --index 3 --options \'{"budgets":{"maxTurns":8}}\'', 'bench question 3 under an 8-turn budget')
      .example('SEARCHGYM_TOKEN=secret searchgym gym mcp worlds/tiny --http --port 8001', 'streamable HTTP on http://127.0.0.1:8001/mcp, bearer token required; a session per episode'),
  handler: handler(async (raw: ArgumentsCamelCase) => {
    const a = raw as unknown as McpArgs
    if (!a.dir) throw new GymError('cli.missing_dir', 'give a world folder: searchgym gym mcp worlds/NAME (a tiny one: searchgym world build --preset tiny --out worlds/tiny)')
    const index = a.index === undefined ? 0 : intFlag('index', a.index, 0, Number.MAX_SAFE_INTEGER)
    if (a.qa !== undefined && (typeof a.qa !== 'string' || a.qa.trim() === '')) throw new GymError('cli.bad_flag', '--qa must be a question id')
    if (a.qa !== undefined && (a.split !== undefined || a.index !== undefined)) throw new GymError('cli.bad_flag', 'give either --qa or --split + --index, not both')
    const options = optionsFlag(a.options)
    const port = intFlag('port', a.port, 0, 65535)
    if (typeof a.host !== 'string' || a.host.trim() === '') throw new GymError('cli.bad_flag', '--host must be a host name or address, e.g. 127.0.0.1')
    const allowHosts = (a.allowHost ?? []).map(String)
    if (allowHosts.some((h) => h.trim() === '' || /[\s/]/.test(h.trim())))
      throw new GymError('cli.bad_flag', '--allow-host must be a host name or address without scheme or path, e.g. --allow-host gpu-node-3')
    const maxSessions = intFlag('max-sessions', a.maxSessions, 1, 1_000_000)
    const idle = a.idleSeconds
    if (typeof idle !== 'number' || !Number.isFinite(idle) || idle < 1 || idle > 7 * 24 * 3600)
      throw new GymError('cli.bad_flag', `--idle-seconds must be a number in [1, ${7 * 24 * 3600}], got ${String(idle)}`)
    const maxBodyBytes = intFlag('max-body-bytes', a.maxBodyBytes, 1024, 1 << 30)
    const token = a.token ?? process.env.SEARCHGYM_TOKEN ?? ''
    const bad = tokenProblem(token)
    if (bad) throw new GymError('cli.bad_flag', `--token ${a.token !== undefined ? '' : '($SEARCHGYM_TOKEN) '}${bad}`)
    const open = a.http ? openHostWarning(a.host, token, 'gym mcp --http') : undefined
    // The env options are checked before the world opens (resolveGymOptions needs no world).
    resolveMcpOptions(options)

    const log = (line: string) => process.stderr.write(`searchgym gym mcp: ${line}\n`)
    if (stages) {
      const w = openWorld(a.dir, { check: true })
      try {
        checkWorldContent(w, stages)
      } finally {
        w.close()
      }
    }
    const world = await openGymWorld(a.dir)
    let qa
    if (a.qa !== undefined) {
      qa = world.qa(a.qa)
      if (!qa) {
        await world.close()
        throw new GymError('cli.bad_flag', `no question with id ${JSON.stringify(a.qa.slice(0, 100))} in ${world.name}`)
      }
    } else {
      const split = a.split === 'bench' ? 'bench' : 'train'
      const list = world.listQa(split)
      if (index >= list.length) {
        await world.close()
        throw new GymError('cli.bad_flag', `--index ${index} is out of range: split ${split} of ${world.name} has ${list.length} questions`)
      }
      qa = list[index]
    }
    const serveOptions = { qa, options, maxSessions, idleMs: Math.round(idle * 1000) }
    // stdio: one session for the life of the process (a person may think for an hour between two calls).
    const stdioOptions = { ...serveOptions, maxSessions: 1, idleMs: STDIO_IDLE_MS }
    const { serveMcpStdio, startMcpHttp } = await import('../mcp-server')
    if (!a.http) {
      // stdout is the protocol's: every line of ours goes to stderr.
      log(`${world.name}, question ${qa.id} (${qa.type}, ${qa.hops} hops, ${qa.split}) on stdio`)
      const failure = await serveMcpStdio(world, stdioOptions, (l) => log(l))
      await world.close()
      // A transport closed by an error is a failed run: one line, exit 1 (the end of stdin is the normal end).
      if (failure) log(`stopped: ${failure}`)
      process.exit(failure ? 1 : 0)
    }
    const s = await startMcpHttp(world, { ...serveOptions, host: a.host, port, token, allowHosts, maxBodyBytes })
    if (open) process.stderr.write(`searchgym: warning: ${open}\n`)
    log(`${world.name}, question ${qa.id} (${qa.type}, ${qa.hops} hops, ${qa.split}) on ${s.url}${token ? ' (bearer token required)' : ''}`)
    announceStop('searchgym gym mcp')
    await runUntilSignal(async () => {
      await s.close()
      await world.close()
    })
  }),
})
