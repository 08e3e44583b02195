// infra/engine/cli/model-serve: `searchgym model serve DIR` — the model folder, adapter and token as flags, the knobs
// from the field table (serve-config: --config, --set, --port, --host, --backend, the old flags as aliases) →
// serveModel(); prints the base URL and runs until SIGINT/SIGTERM. Thin.
import type { Argv, Command } from '../../cli-util'
import { announceStop, handler } from '../../cli-util'
import { EngineError } from '../../errors'
import { fieldArgs, fieldOptions, identityOptions } from '../../field-args'
import { serveModel, type ServeModelOptions } from '../serve-model'
import { MODEL_SERVE_FIELDS, type ModelServeConfig } from '../serve-config'

interface ServeArgs {
  dir: string
  adapter?: string
  token?: string
}

/** What the composition root may inject into `model serve` (tests: a stand-in generator; see serveModel's `generator`). */
export interface ModelServeDeps {
  generator?: ServeModelOptions['generator']
}

export const modelServeCommand = (deps: ModelServeDeps = {}): Command => ({
  command: 'serve <dir>',
  describe: 'serve a model folder as an OpenAI-compatible API (/v1/chat/completions, /v1/models, /health)',
  builder: (y: Argv) =>
    fieldOptions(
      identityOptions(y.positional('dir', { type: 'string', describe: 'Hugging Face model folder (config.json, *.safetensors, tokenizer.json)' }), ['adapter'], {
        adapter: 'PEFT LoRA adapter folder; served under its folder name (the base stays available under its own)',
      })
        .option('token', { type: 'string', describe: 'bearer token required on every route but /health (OpenAI clients send it as their api key)' })
        .example('searchgym model serve models/tiny-paper --port 8001', 'an OpenAI-compatible /v1/chat/completions')
        .example('searchgym model serve models/tiny-tiny --adapter runs/grpo/adapter', 'the model with a trained adapter')
        .example('searchgym model serve models/tiny-tiny --set maxTokens=256 --set quiet=true', 'shorter default replies, no request log'),
      MODEL_SERVE_FIELDS,
    ),
  handler: handler(async (argv: Record<string, unknown>) => {
    const a = argv as unknown as ServeArgs
    // Every knob typed and bounded by the table (named as given) before the model loads.
    const { config: c } = fieldArgs<ModelServeConfig>(MODEL_SERVE_FIELDS, argv)
    if (a.token !== undefined && (typeof a.token !== 'string' || a.token.trim() === '')) throw new EngineError('engine.cli', '--token must be a non-empty string')
    const s = await serveModel({
      backend: c.backend,
      dir: a.dir,
      adapterDir: a.adapter,
      port: c.port,
      host: c.host,
      seed: c.seed,
      name: c.name,
      defaultMaxTokens: c.maxTokens,
      maxPromptChars: c.maxPromptChars,
      maxBodyBytes: c.maxBodyBytes,
      allowHosts: c.allowHost,
      ...(a.token ? { token: a.token } : {}),
      log: c.quiet ? undefined : (line) => process.stderr.write(`model serve: ${line}\n`),
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
