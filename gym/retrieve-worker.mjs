// gym/retrieve-worker.mjs: a retrieve worker thread's entry — TypeScript loads through tsx (as in bin/searchgym.mjs),
// then retrieve-worker-main.ts answers /retrieve slices on its own copy of a world's index.
import { register } from 'tsx/esm/api'
register()
await import('./retrieve-worker-main.ts')
