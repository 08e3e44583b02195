// bench/perf/world-build: time the paper-preset world build — graph generation, document writing, and the full
// buildWorld into a fresh world file (graph + docs stages + content hash). Goal: < 20 s on the 2-core dev box.
// Usage: node bin/run-ts.mjs bench/perf/world-build.ts [preset] [seed]
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildWorld } from '../../world/build/build'
import { presetConfig } from '../../world/config'
import { generateDocs } from '../../world/docs/docs'
import { generateWorld } from '../../world/graph/graph'
import { perfArgs } from './perf-args'

const { positionals: pos } = perfArgs('node bin/run-ts.mjs bench/perf/world-build.ts [preset] [seed]', {})
const preset = pos[0] ?? 'paper'
const seed = Number(pos[1] ?? 11)
const config = { ...presetConfig(preset), seed }
const GOAL_S = 20

let t = performance.now()
const world = await generateWorld(config)
const graphS = (performance.now() - t) / 1000
t = performance.now()
const docs = generateDocs(world.entities, world.edges, config)
const docsS = (performance.now() - t) / 1000

const dir = join(mkdtempSync(join(tmpdir(), 'sg-bench-world-')), 'w')
t = performance.now()
const res = await buildWorld({ config, dir, quiet: true })
const buildS = (performance.now() - t) / 1000
const sizeMb = statSync(res.dbPath).size / 1e6
rmSync(join(dir, '..'), { recursive: true, force: true })

const words = docs.map((d) => d.text.split(/\s+/).length)
console.log(JSON.stringify({
  preset, seed,
  entities: world.entities.length, edges: world.edges.length, docs: docs.length,
  meanDocWords: Math.round(words.reduce((a, b) => a + b, 0) / words.length),
  graphSeconds: +graphS.toFixed(2), docsSeconds: +docsS.toFixed(2),
  buildWorldSeconds: +buildS.toFixed(2), worldFileMB: +sizeMb.toFixed(1),
  stages: Object.fromEntries(res.stages.map((s) => [s.name, +s.seconds.toFixed(2)])),
  hash: res.hash, goalSeconds: GOAL_S, ratioToGoal: +(buildS / GOAL_S).toFixed(3),
}, null, 2))
