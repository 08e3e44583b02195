// infra/engine/cli/model-serve: `searchgym model serve DIR` — flags → serveModel(); prints the base URL and runs until
// SIGINT/SIGTERM. Thin.
import type { Argv, Command } from '../../cli-util'
import { announceStop, handler } from '../../cli-util'
import { BACKEND_NAMES, type BackendName, parseBackendName } from '../create-backend'
import { EngineError } from '../../errors'
import { serveModel, type ServeModelOptions } from '../serve-model'

interface ServeArgs {
  dir: string
  adapter?: string
  port: number
  host: string
  seed: number
  name?: string
  'max-tokens': number
  'max-prompt-chars'?: number
  'max-body-bytes'?: number
  quiet: boolean
  backend: string
  token?: string
  'allow-host'?: string[]
}

/** What the composition root may inject into `model serve` (tests: a stand-in generator; see serveModel's `generator`). */
export interface ModelServeDeps {
  generator?: ServeModelOptions['generator']
}

export const modelServeCommand = (deps: ModelServeDeps = {}): Command => ({
  command: 'serve <dir>',
  describe: 'serve a model folder as an OpenAI-compatible API (/v1/chat/completions, /v1/models, /health)',
  builder: (y: Argv) =>
    y
      .positional('dir', { type: 'string', describe: 'Hugging Face model folder (config.json, *.safetensors, tokenizer.json)' })
      .option('adapter', { type: 'string', describe: 'PEFT LoRA adapter folder; served under its folder name (the base stays available under its own)' })
      .option('port', { type: 'number', default: 8000, describe: 'TCP port (0 = any free port; the URL is printed)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'interface to listen on' })
      .option('seed', { type: 'number', default: 0, describe: 'seed of the per-request seeds drawn when a request sends none' })
      .option('name', { type: 'string', describe: 'model id of the base model (default: the folder name)' })
      .option('max-tokens', { type: 'number', default: 1024, describe: 'max_tokens when a request sends none' })
      .option('max-prompt-chars', { type: 'number', describe: 'longest prompt text read, in characters; longer is a 400 before tokenizing (default: context x 8)' })
      .option('max-body-bytes', { type: 'number', describe: 'largest request body (default: from --max-prompt-chars, at most 64 MiB)' })
      .option('token', { type: 'string', describe: 'bearer token required on every route but /health (OpenAI clients send it as their api key)' })
      .option('allow-host', {
        type: 'string',
        array: true,
        describe: 'also accept requests whose Host is NAME (loopback names and --host are always accepted; * accepts any)',
      })
      .option('quiet', { type: 'boolean', default: false, describe: 'no per-request log lines' })
      .option('backend', { type: 'string', default: 'auto', describe: `engine backend: ${BACKEND_NAMES.join(' | ')} (auto = native where it built, else ts)` })
      .example('searchgym model serve models/tiny-paper --port 8001', 'an OpenAI-compatible /v1/chat/completions')
      .example('searchgym model serve models/tiny-tiny --adapter runs/grpo/adapter', 'the model with a trained adapter'),
  handler: handler(async (argv: Record<string, unknown>) => {
    const a = argv as unknown as ServeArgs
    if (!Number.isInteger(a.port) || a.port < 0 || a.port > 65535) throw new EngineError('engine.cli', `--port must be an integer in [0, 65535], got ${a.port}`)
    if (!Number.isInteger(a.seed)) throw new EngineError('engine.cli', `--seed must be an integer, got ${a.seed}`)
    if (!Number.isInteger(a['max-tokens']) || a['max-tokens'] < 1) throw new EngineError('engine.cli', `--max-tokens must be a positive integer, got ${a['max-tokens']}`)
    if (typeof a.host !== 'string' || a.host.trim() === '') throw new EngineError('engine.cli', '--host must be a host name or address, e.g. 127.0.0.1')
    for (const f of ['max-prompt-chars', 'max-body-bytes'] as const) {
      const v = a[f]
      if (v !== undefined && (!Number.isInteger(v) || v < 1 || v > 1 << 30)) throw new EngineError('engine.cli', `--${f} must be an integer in [1, ${1 << 30}], got ${v}`)
    }
    if (a.token !== undefined && (typeof a.token !== 'string' || a.token.trim() === '')) throw new EngineError('engine.cli', '--token must be a non-empty string')
    const allowHosts = (a['allow-host'] ?? []).map(String)
    if (allowHosts.some((h) => h.trim() === '' || /[\s/]/.test(h.trim())))
      throw new EngineError('engine.cli', '--allow-host must be a host name or address without scheme or path, e.g. --allow-host gpu-node-3')
    const backend: BackendName = parseBackendName(a.backend)
    const s = await serveModel({
      backend,
      dir: a.dir,
      adapterDir: a.adapter,
      port: a.port,
      host: a.host,
      seed: a.seed,
      name: a.name,
      defaultMaxTokens: a['max-tokens'],
      maxPromptChars: a['max-prompt-chars'],
      maxBodyBytes: a['max-body-bytes'],
      allowHosts,
      ...(a.token ? { token: a.token } : {}),
      log: a.quiet ? undefined : (line) => process.stderr.write(`model serve: ${line}\n`),
      ...(deps.generator ? { generator: deps.generator } : {}),
    })
    process.stdout.write(
      `model serve: listening on ${s.url}/v1 (models: ${s.modelIds.join(', ')})${s.standIn ? ' [STAND-IN REPLIES: not sampling]' : ''}\n`,
    )
    announceStop('model serve')
    await new Promise<void>((done) => {
      const stop = () => {
        void s.close().then(done, done)
      }
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
  }),
})
