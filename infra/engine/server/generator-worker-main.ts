// infra/engine/server/generator-worker-main: runs inside a worker thread — loads the model folder (+ adapter) and
// answers {generate} and {score} calls (infra/worker-serve) with EngineChatGenerator, so sampling never stalls the HTTP event loop.
// Knows nothing of HTTP; the other side is worker-generator.ts.
import { serveWorker } from '../../worker-serve'
import { createBackend } from '../create-backend'
import { loadLoraAdapter } from '../lora'
import { loadModel } from '../model'
import { loadTokenizer } from '../tokenizer'
import { EngineChatGenerator } from './engine-generator'
import type { WorkerData, WorkerRequest } from './worker-generator'

serveWorker<WorkerData, WorkerRequest, unknown>((data) => {
  const model = loadModel(data.dir, createBackend(data.backend ?? 'auto'))
  if (data.adapterDir) model.adapter = loadLoraAdapter(data.adapterDir, model.backend, model.config)
  const engine = new EngineChatGenerator(model, loadTokenizer(data.dir))
  // The server writes a job's number + 1 here when its client leaves; sampling checks it before every decode step.
  const cancel = new Int32Array(data.cancel)
  return {
    readyValue: { backend: model.backend.name },
    handle(m) {
      if (m.kind === 'score') return engine.score(m.promptIds, m.completionIds, m.useAdapter)
      const stop = () => Atomics.load(cancel, 0) === m.job + 1
      return engine.generateUntil(m.params, stop).then((v) => {
        if (stop()) throw Object.assign(new Error('the client disconnected; its generation was stopped'), { code: 'client_gone' })
        return v
      })
    },
  }
})
