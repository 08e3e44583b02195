// infra/engine/native/build.mjs: `npm ci` / `npm install` builds the native engine backend here (the package's
// install script). It runs node-gyp (npm's bundled copy, else one on PATH) on infra/engine/native/binding.gyp and
// records the outcome in infra/engine/native/build/status.json. A failed build (no compiler, no headers) never
// fails the install: it prints one line saying why, and createBackend('auto') then falls back to `ts` with that
// reason. SEARCHGYM_SKIP_NATIVE=1 skips the build.
// Idempotent: skipped when the hash of the sources (binding.gyp, src/*, Node's version and platform) matches
// build/stamp.json and the addon is there (--force rebuilds). Atomic: node-gyp builds in a private copy
// (.build-PID/), and the finished addon is renamed over build/Release/searchgym_native.node — a command starting at any
// moment finds the old addon or the new one, never none (a failed build leaves the old one in place).
// Usage: node infra/engine/native/build.mjs [--force] [--verbose]
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const statusFile = join(here, 'build', 'status.json')
const stampFile = join(here, 'build', 'stamp.json')
const addonPath = join(here, 'build', 'Release', 'searchgym_native.node')

/** Write a file whole or not at all (temporary name, then rename). */
function writeAtomic(path, text) {
  mkdirSync(dirname(path), { recursive: true })
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, text)
  renameSync(tmp, path)
}

function record(ok, reason) {
  writeAtomic(statusFile, JSON.stringify({ ok, reason, node: process.version, at: new Date().toISOString() }, null, 2) + '\n')
}

/** What the addon is built from: binding.gyp, every file under src/, the Node version, platform and architecture. */
function sourcesHash() {
  const h = createHash('sha256')
  h.update(`${process.version} ${process.platform} ${process.arch}\n`)
  h.update(readFileSync(join(here, 'binding.gyp')))
  for (const f of readdirSync(join(here, 'src')).sort()) {
    h.update(`\n${f}\n`)
    h.update(readFileSync(join(here, 'src', f)))
  }
  return h.digest('hex')
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
const hash = sourcesHash()
if (!process.argv.includes('--force') && existsSync(addonPath)) {
  let stamp
  try {
    stamp = JSON.parse(readFileSync(stampFile, 'utf8'))
  } catch {
    stamp = undefined
  }
  if (stamp?.hash === hash) {
    console.log('searchgym: native engine backend up to date (sources unchanged since its build; --force rebuilds)')
    process.exit(0)
  }
}
const gyp = nodeGyp()
if (!gyp) {
  record(false, 'node-gyp not found (neither npm\'s bundled copy nor one on PATH)')
  console.log('searchgym: native engine backend not built: node-gyp not found; the ts backend will be used')
  process.exit(0)
}
// A private copy to build in: the addon in build/Release stays in place (and usable) until the new one is finished.
const work = join(here, `.build-${process.pid}`)
rmSync(work, { recursive: true, force: true })
mkdirSync(work)
cpSync(join(here, 'binding.gyp'), join(work, 'binding.gyp'))
cpSync(join(here, 'src'), join(work, 'src'), { recursive: true })
const args = ['rebuild', `--directory=${work}`, '-j', 'max']
// Headers: npm's nodedir setting if any, else the ones installed beside this node binary (no download needed).
const prefix = dirname(dirname(process.execPath))
if (!process.env.npm_config_nodedir && existsSync(join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`)
const [cmd, ...pre] = gyp
const r = spawnSync(cmd, [...pre, ...args], { encoding: 'utf8', cwd: work })
const built = join(work, 'build', 'Release', 'searchgym_native.node')
if (r.status === 0 && existsSync(built)) {
  mkdirSync(dirname(addonPath), { recursive: true })
  renameSync(built, addonPath)
  writeAtomic(stampFile, JSON.stringify({ hash, node: process.version, at: new Date().toISOString() }, null, 2) + '\n')
  record(true, 'built')
  console.log('searchgym: native engine backend built (infra/engine/native/build/Release/searchgym_native.node)')
} else {
  const out = `${r.stdout ?? ''}\n${r.stderr ?? ''}`
  const line = out.split('\n').find((l) => /error|not found|No such file/i.test(l))?.trim() ?? r.error?.message ?? `node-gyp exited with ${r.status}`
  const kept = existsSync(addonPath) ? '; the previous build stays in use' : '; the ts backend will be used'
  // The status says the last build failed only when no addon is left to use (addon.ts reads it to say why).
  if (!existsSync(addonPath)) record(false, `build failed: ${line}`)
  console.log(`searchgym: native engine backend not built (${line})${kept}. Details: node infra/engine/native/build.mjs --verbose`)
  if (process.argv.includes('--verbose')) console.log(out)
}
rmSync(work, { recursive: true, force: true })
