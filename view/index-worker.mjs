// view/index-worker.mjs: the indexing worker's entry when no bundle can be made — TypeScript loads through tsx (as in
// bin/searchgym.mjs), then index-worker-main.ts serves read jobs.
import { register } from 'tsx/esm/api'
register()
await import('./index-worker-main.ts')
