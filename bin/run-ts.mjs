#!/usr/bin/env node
// bin/run-ts: run a TypeScript script of this project (benchmarks, examples): node bin/run-ts.mjs bench/x.ts [args]
import { register } from 'tsx/esm/api'
import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'
register()
const [script, ...rest] = process.argv.slice(2)
if (!script) {
  console.error('usage: node bin/run-ts.mjs SCRIPT.ts [args...]')
  process.exit(2)
}
process.argv = [process.argv[0], resolve(script), ...rest]
await import(pathToFileURL(resolve(script)).href)
