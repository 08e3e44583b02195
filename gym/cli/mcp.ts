// gym/cli/mcp: `searchgym gym mcp DIR [--qa ID | --set split=S --set index=N] [--set gym=JSON] [--http --port P --token T]` —
// the gym as an MCP server (gym/mcp-server) over stdio (default) or streamable HTTP. Every knob comes from MCP_FIELDS
// and is checked before the world opens (a bad one is a one-line error); the SDK and hono (gym/mcp-server) load only
// when the command runs. The env options are the key gym, as in bench run (the old --options is its alias).
import type { ArgumentsCamelCase } from 'yargs'
import { announceStop, handler, runUntilSignal, type Command } from '../../infra/cli-util'
import { fieldArgs, fieldOptions } from '../../infra/field-args'
import { problemCheck, type FieldTable } from '../../infra/fields'
import { allowHostProblem, bindHostProblem, openHostWarning, tokenProblem } from '../../infra/http/host-guard'
import { GymError } from '../../infra/errors'
import { checkWorldContent, openWorld, type Stage } from '../../world'
import type { GymOptionsJson } from '../make-env'
import { openGymWorld } from '../open-gym-world'
import { resolveMcpOptions } from '../mcp-episode'

/** The env registry's longest idle time (a week): a stdio session is never expired in practice. */
const STDIO_IDLE_MS = 7 * 24 * 3600_000

interface McpArgs {
  dir?: string
  token?: string
}

interface McpConfig {
  qa?: string
  split?: 'train' | 'bench'
  index?: number
  gym: GymOptionsJson
  http: boolean
  port: number
  host: string
  allowHost: string[]
  maxSessions: number
  idleSeconds: number
  maxBodyBytes: number
}

function jsonText(t: string, name: string): unknown {
  try {
    return JSON.parse(t)
  } catch {
    throw new GymError('cli.bad_flag', `${name} must be a JSON object, e.g. '{"budgets":{"maxTurns":8}}'; got ${JSON.stringify(t.slice(0, 80))}`)
  }
}

/** `gym mcp`'s knobs, once (the world folder and the token are its own flags). */
export const MCP_FIELDS: FieldTable = [
  { key: 'qa', type: 'string', optional: true, flag: 'qa', help: 'the question every session plays, by id (unset: split and index); over --http a session may name its own: /mcp?qa=ID or /mcp?split=S&index=N', check: (v, fail) => (v as string).trim() === '' && fail('must be a question id') },
  { key: 'split', type: 'enum', choices: ['train', 'bench'], optional: true, aliases: ['split'], help: 'the split of the question, instead of qa (unset: train)' },
  { key: 'index', type: 'int', min: 0, max: Number.MAX_SAFE_INTEGER, optional: true, aliases: ['index'], help: "the question's position in split, in the env API's order (GET /v1/qa), instead of qa (unset: 0)" },
  { key: 'gym', type: 'json', default: {}, aliases: ['options'], parse: (t, name) => jsonText(t, name), help: 'env options, the env API\'s create "options" (budgets, reward, topK, episode, faults, ...), e.g. {"budgets":{"maxTurns":8}}; never protocol' },
  { key: 'http', type: 'bool', default: false, flag: 'http', help: 'serve streamable HTTP at http://HOST:PORT/mcp instead of stdio' },
  { key: 'port', type: 'int', min: 0, max: 65535, default: 8001, flag: 'port', help: 'http: TCP port (0 = any free port; the URL is printed)' },
  { key: 'host', type: 'string', default: '127.0.0.1', flag: 'host', help: 'http: interface to listen on (0.0.0.0: every interface; set --token then)', check: problemCheck(bindHostProblem) },
  { key: 'allowHost', type: 'list', default: [], aliases: ['allow-host'], help: 'http: also accept requests whose Host is one of these (loopback names and host always are; * accepts any)', check: problemCheck(allowHostProblem) },
  { key: 'maxSessions', type: 'int', min: 1, max: 1_000_000, default: 256, aliases: ['max-sessions'], help: 'http: most MCP sessions (episodes) open at once' },
  { key: 'idleSeconds', type: 'number', min: 1, max: 7 * 24 * 3600, default: 600, aliases: ['idle-seconds'], help: 'http: close a session (and its env) idle this long (stdio: the session lasts as long as the process)' },
  { key: 'maxBodyBytes', type: 'int', min: 1024, max: 1 << 30, default: 1 << 20, aliases: ['max-body-bytes'], help: 'http: largest request body' },
]

/** `gym mcp`; with `stages`, the world's content is checked against its hash before it is served (as `gym serve`). */
export const mcpCommandWith = (stages?: readonly Stage[]): Command => ({
  command: 'mcp [dir]',
  describe: 'serve a world as an MCP server: tools search, access, answer; the question as a prompt and a resource; one scored episode per session',
  builder: (y) =>
    fieldOptions(
      y
      .positional('dir', { type: 'string', describe: 'world folder (worlds/<name>)' })
      .option('token', { type: 'string', describe: '--http: token required on every request, as Authorization: Bearer TOKEN (default: $SEARCHGYM_TOKEN)' })
      .example('searchgym gym mcp worlds/tiny', 'stdio: one episode of train question 0 (an MCP client starts this command)')
      .example('searchgym gym mcp worlds/tiny --set split=bench --set index=3 --set \'gym={"budgets":{"maxTurns":8}}\'', 'bench question 3 under an 8-turn budget')
      .example('SEARCHGYM_TOKEN=secret searchgym gym mcp worlds/tiny --http --port 8001', 'streamable HTTP on http://127.0.0.1:8001/mcp, bearer token required; a session per episode'),
      MCP_FIELDS,
    ),
  handler: handler(async (raw: ArgumentsCamelCase) => {
    const a = raw as unknown as McpArgs
    if (!a.dir) throw new GymError('cli.missing_dir', 'give a world folder: searchgym gym mcp worlds/NAME (a tiny one: searchgym world build --preset tiny --out worlds/tiny)')
    // Every knob typed and bounded by the table (named as given) before the world opens.
    const { config: c, name } = fieldArgs<McpConfig>(MCP_FIELDS, raw as Record<string, unknown>)
    const index = c.index ?? 0
    if (c.qa !== undefined && (c.split !== undefined || c.index !== undefined)) throw new GymError('cli.bad_flag', `give either ${name('qa')} or ${name('split')} + ${name('index')}, not both`)
    const options = c.gym
    const { port, maxSessions, maxBodyBytes } = c
    const allowHosts = c.allowHost
    const idle = c.idleSeconds
    const token = a.token ?? process.env.SEARCHGYM_TOKEN ?? ''
    const bad = tokenProblem(token)
    if (bad) throw new GymError('cli.bad_flag', `--token ${a.token !== undefined ? '' : '($SEARCHGYM_TOKEN) '}${bad}`)
    const open = c.http ? openHostWarning(c.host, token, 'gym mcp --http') : undefined
    // The env options are checked before the world opens (resolveGymOptions needs no world).
    resolveMcpOptions(options, name('gym'))

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
    if (c.qa !== undefined) {
      qa = world.qa(c.qa)
      if (!qa) {
        await world.close()
        throw new GymError('cli.bad_flag', `no question with id ${JSON.stringify(c.qa.slice(0, 100))} in ${world.name}`)
      }
    } else {
      const split = c.split === 'bench' ? 'bench' : 'train'
      const list = world.listQa(split)
      if (index >= list.length) {
        await world.close()
        throw new GymError('cli.bad_flag', `${name('index')} ${index} is out of range: split ${split} of ${world.name} has ${list.length} questions`)
      }
      qa = list[index]
    }
    const serveOptions = { qa, options, maxSessions, idleMs: Math.round(idle * 1000) }
    // stdio: one session for the life of the process (a person may think for an hour between two calls).
    const stdioOptions = { ...serveOptions, maxSessions: 1, idleMs: STDIO_IDLE_MS }
    const { serveMcpStdio, startMcpHttp } = await import('../mcp-server')
    if (!c.http) {
      // stdout is the protocol's: every line of ours goes to stderr.
      log(`${world.name}, question ${qa.id} (${qa.type}, ${qa.hops} hops, ${qa.split}) on stdio`)
      const failure = await serveMcpStdio(world, stdioOptions, (l) => log(l))
      await world.close()
      // A transport closed by an error is a failed run: one line, exit 1 (the end of stdin is the normal end).
      if (failure) log(`stopped: ${failure}`)
      process.exit(failure ? 1 : 0)
    }
    const s = await startMcpHttp(world, { ...serveOptions, host: c.host, port, token, allowHosts, maxBodyBytes })
    if (open) process.stderr.write(`searchgym: warning: ${open}\n`)
    log(`${world.name}, question ${qa.id} (${qa.type}, ${qa.hops} hops, ${qa.split}) on ${s.url}${token ? ' (bearer token required)' : ''}`)
    announceStop('searchgym gym mcp')
    await runUntilSignal(async () => {
      await s.close()
      await world.close()
    })
  }),
})
