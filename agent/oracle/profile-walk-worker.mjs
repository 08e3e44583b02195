// agent/oracle/profile-walk-worker.mjs: the profile-walk worker thread's entry — TypeScript loads through tsx (as in
// bin/searchgym.mjs), then profile-walk-worker-main.ts walks the chunks of questions it is sent.
import { register } from 'tsx/esm/api'
register()
await import('./profile-walk-worker-main.ts')
