// infra/engine/serve-model: `model serve` as a library call — load a model folder (+ optional PEFT adapter), its
// tokenizer and chat template, and put the OpenAI-compatible server on a port. The engine runs in a worker thread
// (server/worker-generator) so sampling never stalls the event loop; HTTP details live in server/ (app.ts and listen.ts,
// on hono, are imported when a model is served: the commands that import the engine and serve nothing skip them).
import { basename, resolve } from 'node:path'
import { EngineError } from '../errors'
import { chatTemplateOf, SIMPLE_QWEN_TEMPLATE } from './chat-template'
import { type BackendName, backendFallbackReason, createBackend } from './create-backend'
import { loadLoraAdapter } from './lora'
import { loadModel } from './model'
import { loadModelConfig, type ModelConfig } from './config'
import { WorkerChatGenerator } from './server/worker-generator'
import { ChatService } from './server/chat-service'
import { EngineChatGenerator } from './server/engine-generator'
import type { ForcedScorer } from './server/types'
import type { RunningServer } from './server/listen'
import type { ChatGenerator } from './server/types'
import { DEFAULT_LIMITS } from './server/validate'
import { loadTokenizer, type TextTokenizer } from './tokenizer'

export interface ServeModelOptions {
  dir: string
  adapterDir?: string
  port?: number
  host?: string
  /** Seed of the per-request seeds drawn when a request gives none. */
  seed?: number
  /** Name of the base model in /v1/models (default: the folder's name). */
  name?: string
  /** A stand-in generator instead of sampling: an injected dependency (tests inject canned replies carrying the model's
   *  real log-probs, in process or through the CLI's composition root); no flag reaches it. */
  generator?: (tokenizer: TextTokenizer, score: ForcedScorer) => ChatGenerator
  /** max_tokens when a request gives none. */
  defaultMaxTokens?: number
  maxN?: number
  /** Longest prompt text (characters) read before refusing; default maxContext x 8. */
  maxPromptChars?: number
  /** Largest request body; default from maxPromptChars (see server/app.ts). */
  maxBodyBytes?: number
  /** Extra Host names accepted besides loopback and --host (model serve --allow-host; '*': any). */
  allowHosts?: string[]
  /** Bearer token required on every route but /health (model serve --token); absent: no auth. */
  token?: string
  /** A line per request (method, status, tokens, ms). */
  log?: (line: string) => void
  /** Sample on the server's own thread instead of a worker (blocks the event loop while sampling; for debugging). */
  inProcess?: boolean
  /** Engine backend (default 'auto': native where it built, else ts with the reason logged). */
  backend?: BackendName
}

export interface ServedModel extends RunningServer {
  modelIds: string[]
  /** Whether a stand-in generator answers (not the model's sampling). */
  standIn: boolean
}

export async function serveModel(opts: ServeModelOptions): Promise<ServedModel> {
  const backendName = opts.backend ?? 'auto'
  let engine: EngineChatGenerator | WorkerChatGenerator
  let config: ModelConfig
  let tokenizer: ReturnType<typeof loadTokenizer>
  if (opts.inProcess) {
    const backend = createBackend(backendName)
    if (backendName === 'auto' && backend.name !== 'native') opts.log?.(`backend ts (${backendFallbackReason()})`)
    const model = loadModel(opts.dir, backend)
    if (opts.adapterDir) model.adapter = loadLoraAdapter(opts.adapterDir, model.backend, model.config)
    config = model.config
    tokenizer = loadTokenizer(opts.dir)
    engine = new EngineChatGenerator(model, tokenizer)
  } else {
    config = loadModelConfig(opts.dir)
    // The worker loads the weights while this thread loads the tokenizer.
    const started = WorkerChatGenerator.start({ dir: opts.dir, adapterDir: opts.adapterDir, backend: backendName })
    started.catch(() => undefined) // awaited below; a load error is thrown there
    try {
      tokenizer = loadTokenizer(opts.dir)
    } catch (e) {
      await started.then((w) => w.close(), () => undefined)
      throw e
    }
    engine = await started
    if (backendName === 'auto' && engine.backendName !== 'native') opts.log?.(`backend ts (${backendFallbackReason()})`)
  }
  const stopWorker = async () => {
    if (engine instanceof WorkerChatGenerator) await engine.close()
  }
  const model = { config }
  if (tokenizer.vocabSize > model.config.vocabSize) {
    await stopWorker()
    throw new EngineError(
      'engine.vocab_mismatch',
      `${opts.dir}: the tokenizer has ${tokenizer.vocabSize} ids but the model only ${model.config.vocabSize} embedding rows; the tokenizer does not belong to this model`,
    )
  }
  const template = chatTemplateOf(tokenizer, SIMPLE_QWEN_TEMPLATE)
  const stand = opts.generator
  const generator: ChatGenerator = stand ? stand(tokenizer, engine.score) : engine
  const service = new ChatService({
    modelId: opts.name ?? basename(resolve(opts.dir)),
    ...(opts.adapterDir ? { adapterId: basename(resolve(opts.adapterDir)) } : {}),
    tokenizer,
    template,
    generator,
    maxContext: model.config.maxPositionEmbeddings,
    seed: opts.seed ?? 0,
    ...(opts.maxPromptChars !== undefined ? { maxPromptChars: opts.maxPromptChars } : {}),
  })
  const log = opts.log
  const { createServerApp } = await import('./server/app')
  const { listen } = await import('./server/listen')
  const app = createServerApp(service, {
    bindHost: opts.host ?? '127.0.0.1',
    ...(opts.allowHosts ? { allowHosts: opts.allowHosts } : {}),
    ...(opts.token ? { token: opts.token } : {}),
    ...(opts.maxBodyBytes !== undefined ? { maxBodyBytes: opts.maxBodyBytes } : {}),
    limits: { maxN: opts.maxN ?? DEFAULT_LIMITS.maxN, defaultMaxTokens: opts.defaultMaxTokens ?? DEFAULT_LIMITS.defaultMaxTokens },
    onRequest: log
      ? (i) => log(`${i.path} ${i.status} ${i.promptTokens ?? '-'}+${i.completionTokens ?? '-'} tokens ${i.ms.toFixed(0)} ms`)
      : undefined,
  })
  const server = await listen(app, { port: opts.port, host: opts.host }).catch(async (e: unknown) => {
    await stopWorker()
    throw e
  })
  const close = async () => {
    await server.close()
    await stopWorker()
  }
  return { ...server, close, modelIds: service.modelIds(), standIn: stand !== undefined }
}
