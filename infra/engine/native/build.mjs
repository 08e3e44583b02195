// infra/engine/native/build.mjs: `npm ci` / `npm install` builds the native engine backend here (the package's
// install script). It runs node-gyp (npm's bundled copy, else one on PATH) on infra/engine/native/binding.gyp and
// records the outcome in infra/engine/native/build/status.json. A failed build (no compiler, no headers) never
// fails the install: it prints one line saying why, and createBackend('auto') then falls back to `ts` with that
// reason. SEARCHGYM_SKIP_NATIVE=1 skips the build. Usage: node infra/engine/native/build.mjs
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const statusFile = join(here, 'build', 'status.json')

function record(ok, reason) {
  mkdirSync(join(here, 'build'), { recursive: true })
  writeFileSync(statusFile, JSON.stringify({ ok, reason, node: process.version, at: new Date().toISOString() }, null, 2) + '\n')
}

function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ]
  for (const c of candidates) if (c && existsSync(c)) return [process.execPath, c]
  const which = spawnSync('sh', ['-c', 'command -v node-gyp'], { encoding: 'utf8' })
  return which.status === 0 && which.stdout.trim() ? [which.stdout.trim()] : undefined
}

if (process.env.SEARCHGYM_SKIP_NATIVE === '1') {
  record(false, 'skipped: SEARCHGYM_SKIP_NATIVE=1 at install time')
  console.log('searchgym: native engine backend not built (SEARCHGYM_SKIP_NATIVE=1); the ts backend will be used')
  process.exit(0)
}
const gyp = nodeGyp()
if (!gyp) {
  record(false, 'node-gyp not found (neither npm\'s bundled copy nor one on PATH)')
  console.log('searchgym: native engine backend not built: node-gyp not found; the ts backend will be used')
  process.exit(0)
}
const args = ['rebuild', `--directory=${here}`, '-j', 'max']
// Headers: npm's nodedir setting if any, else the ones installed beside this node binary (no download needed).
const prefix = dirname(dirname(process.execPath))
if (!process.env.npm_config_nodedir && existsSync(join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`)
const [cmd, ...pre] = gyp
const r = spawnSync(cmd, [...pre, ...args], { encoding: 'utf8', cwd: here })
if (r.status === 0) {
  record(true, 'built')
  console.log('searchgym: native engine backend built (infra/engine/native/build/Release/searchgym_native.node)')
} else {
  const out = `${r.stdout ?? ''}\n${r.stderr ?? ''}`
  const line = out.split('\n').find((l) => /error|not found|No such file/i.test(l))?.trim() ?? r.error?.message ?? `node-gyp exited with ${r.status}`
  record(false, `build failed: ${line}`)
  console.log(`searchgym: native engine backend not built (${line}); the ts backend will be used. Details: node infra/engine/native/build.mjs`)
  if (process.argv.includes('--verbose')) console.log(out)
}
