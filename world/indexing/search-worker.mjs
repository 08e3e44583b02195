// world/indexing/search-worker.mjs: a search worker thread's entry — TypeScript loads through tsx (as in
// bin/searchgym.mjs), then search-worker-main.ts answers searchMany calls on its own copy of a world's index.
import { register } from 'tsx/esm/api'
register()
await import('./search-worker-main.ts')
