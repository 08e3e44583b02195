// agent/oracle/oracle-check-worker.mjs: the oracle-check worker thread's entry — TypeScript loads through tsx (as in
// bin/searchgym.mjs), then oracle-check-worker-main.ts checks its shard of questions.
import { register } from 'tsx/esm/api'
register()
await import('./oracle-check-worker-main.ts')
