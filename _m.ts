import { openWorld, contentHash } from './world'
import { CHECKED_WORLD_STAGES } from './agent'
const w = openWorld(process.argv[2])
const t0 = performance.now()
const h = contentHash(w.db, CHECKED_WORLD_STAGES)
const ms = performance.now() - t0
console.log(JSON.stringify({ ms: Math.round(ms), same: h === w.hash, hash: h.slice(0, 12) }))
w.close()
