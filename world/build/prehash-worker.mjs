// world/build/prehash-worker.mjs: the content-hash worker's entry when no bundle can be made — TypeScript loads
// through tsx (as in bin/searchgym.mjs), then prehash-worker-main.ts hashes the sealed sections.
import { register } from 'tsx/esm/api'
register()
await import('./prehash-worker-main.ts')
