// infra/engine/server/generator-worker.mjs: the worker thread's entry — TypeScript loads through tsx (as in
// bin/searchgym.mjs), then generator-worker-main.ts serves generate/score calls off the server's event loop.
import { register } from 'tsx/esm/api'
register()
await import('./generator-worker-main.ts')
