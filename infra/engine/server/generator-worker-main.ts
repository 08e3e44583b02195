// infra/engine/server/generator-worker-main: runs inside a worker thread — loads the model folder (+ adapter) and
// answers {generate} and {score} messages with EngineChatGenerator, so sampling never stalls the HTTP event loop.
// Knows nothing of HTTP; the other side is worker-generator.ts.
import { parentPort, workerData } from 'node:worker_threads'
import { createBackend } from '../create-backend'
import { loadLoraAdapter } from '../lora'
import { loadModel } from '../model'
import { loadTokenizer } from '../tokenizer'
import { EngineChatGenerator } from './engine-generator'
import type { WorkerData, WorkerReply, WorkerRequest } from './worker-generator'

const port = parentPort
if (!port) throw new Error('generator-worker-main runs in a worker thread only')
const data = workerData as WorkerData
let engine: EngineChatGenerator
try {
  const model = loadModel(data.dir, createBackend(data.backend ?? 'auto'))
  if (data.adapterDir) model.adapter = loadLoraAdapter(data.adapterDir, model.backend, model.config)
  engine = new EngineChatGenerator(model, loadTokenizer(data.dir))
  port.postMessage({ kind: 'ready', backend: model.backend.name } satisfies WorkerReply)
} catch (e) {
  port.postMessage({ kind: 'failed', message: (e as Error).message, code: (e as { code?: string }).code } satisfies WorkerReply)
  process.exit(0)
}
// The server writes a job's id here when its client leaves; sampling checks it before every decode step.
const cancel = new Int32Array(data.cancel)
port.on('message', (m: WorkerRequest) => {
  const stop = () => Atomics.load(cancel, 0) === m.id + 1
  const run =
    m.kind === 'generate'
      ? engine.generateUntil(m.params, stop).then((v) => {
          if (stop()) throw Object.assign(new Error('the client disconnected; its generation was stopped'), { code: 'client_gone' })
          return v
        })
      : engine.score(m.promptIds, m.completionIds, m.useAdapter)
  run.then(
    (value) => port.postMessage({ kind: 'result', id: m.id, value } satisfies WorkerReply),
    (e: Error) => port.postMessage({ kind: 'error', id: m.id, message: e.message, code: (e as { code?: string }).code } satisfies WorkerReply),
  )
})
