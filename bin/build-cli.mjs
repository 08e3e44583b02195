#!/usr/bin/env node
// bin/build-cli: compile the `searchgym` CLI (cli.ts and every project module it reaches) into ES modules,
// dist/cli.mjs and its lazily loaded dist/chunks/ (+ source maps), with esbuild — so a command starts in Node's time, not tsx's. npm packages stay
// external (resolved from node_modules as before: native modules, koffi, onnxruntime-node) except yargs, which every
// command loads: it is bundled into the root (its ~45 small ES modules cost more to resolve and load one by one than
// their code costs to run). Each bundled file keeps its own import.meta.url, so paths relative to a source file (worker
// entries, the native addon, yargs' locales) resolve as unbundled.
// Idempotent: skipped when dist/cli.json's inputs (size + mtime of every source) still match. Atomic: written to a
// temporary name and renamed, so a starting command sees the old bundle or the new one, never half of one.
// bin/searchgym.mjs runs the bundle when it is fresh and falls back to tsx otherwise. Knows nothing of the commands.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const DIST = join(ROOT, 'dist')
export const BUNDLE = join(DIST, 'cli.mjs')
export const STAMP = join(DIST, 'cli.json')
/** The npm packages bundled into dist/cli.mjs (with what they import); every other package stays external. */
const BUNDLED = new Set(['yargs', 'yargs/helpers'])

const stampOf = (file) => {
  const s = statSync(file)
  return [s.size, Math.floor(s.mtimeMs)]
}

/** Why the bundle cannot be used ('' when it is fresh): missing, or a source changed since it was built. */
export function staleReason() {
  if (!existsSync(BUNDLE) || !existsSync(STAMP)) return 'no bundle (npm run build:cli)'
  let stamp
  try {
    stamp = JSON.parse(readFileSync(STAMP, 'utf8'))
  } catch {
    return 'unreadable dist/cli.json'
  }
  if (stamp.version !== 2 || stamp.node !== process.versions.node.split('.')[0]) return 'built by another version'
  // Every start runs this over ~300 files: ROOT + f, not join() (ROOT is absolute, ends with a separator and holds no
  // link: a '..' in f resolves as join would), and no exception for a missing file.
  for (const [f, [size, mtime]] of Object.entries(stamp.inputs)) {
    const now = statSync(ROOT + f, { throwIfNoEntry: false })
    if (now === undefined) return `${f} is gone`
    if (now.size !== size || Math.floor(now.mtimeMs) !== mtime) return `${f} changed since the bundle was built`
  }
  return ''
}

/** Build dist/cli.mjs unless it is fresh (force: always). Returns what it did, in words. */
export async function buildCli({ force = false } = {}) {
  if (!force && staleReason() === '') return 'dist/cli.mjs is up to date'
  const t0 = performance.now()
  const esbuild = await import('esbuild')
  mkdirSync(DIST, { recursive: true })
  const tmp = join(DIST, `.build-${process.pid}`)
  rmSync(tmp, { recursive: true, force: true })
  const r = await esbuild.build({
    entryPoints: { cli: join(ROOT, 'cli.ts') },
    absWorkingDir: ROOT,
    bundle: true,
    // One chunk per lazily imported package: `searchgym --help` loads the root and yargs, not better-sqlite3 or openai.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: tmp,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'error',
    banner: { js: '// built by bin/build-cli.mjs from cli.ts; do not edit (rebuilt at install, or: npm run build:cli)' },
    plugins: [
      {
        // npm packages stay external (loaded from node_modules at run time), but for yargs and what it imports.
        name: 'external-packages-but-yargs',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => {
            if (BUNDLED.has(args.path) || /[\\/]node_modules[\\/]/.test(args.importer)) return undefined
            return { path: args.path, external: true }
          })
        },
      },
      {
        // Each bundled source keeps its own import.meta.url (paths relative to the file resolve as unbundled).
        name: 'own-import-meta-url',
        setup(b) {
          b.onLoad({ filter: /\.[cm]?[tj]s$/ }, (args) => {
            const src = readFileSync(args.path, 'utf8')
            return { contents: src.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' }
          })
        },
      },
    ],
  })
  // The sources, the bundled packages' files, and this script (a change in how the bundle is made is a change too).
  const inputs = { 'bin/build-cli.mjs': stampOf(fileURLToPath(import.meta.url)) }
  for (const f of Object.keys(r.metafile.inputs)) inputs[f] = stampOf(join(ROOT, f))
  // Chunks first (content-hashed names: a chunk of the old bundle is never overwritten by different code), the entry
  // and its map last, then the stamp: a command starting meanwhile runs the old bundle or the new one, whole.
  mkdirSync(join(DIST, 'chunks'), { recursive: true })
  const outputs = readdirSync(join(tmp, 'chunks')).map((f) => join('chunks', f))
  for (const f of outputs) renameSync(join(tmp, f), join(DIST, f))
  renameSync(join(tmp, 'cli.mjs.map'), `${BUNDLE}.map`)
  renameSync(join(tmp, 'cli.mjs'), BUNDLE)
  const stampTmp = `${STAMP}.${process.pid}.tmp`
  writeFileSync(stampTmp, JSON.stringify({ version: 2, node: process.versions.node.split('.')[0], inputs }))
  renameSync(stampTmp, STAMP)
  rmSync(tmp, { recursive: true, force: true })
  // Chunks of older builds: removed once they are an hour old (a command started before the swap may still load one).
  const keep = new Set(outputs)
  for (const f of readdirSync(join(DIST, 'chunks'))) {
    const path = join(DIST, 'chunks', f)
    if (!keep.has(join('chunks', f)) && Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { force: true })
  }
  return `built dist/cli.mjs (+ ${outputs.filter((f) => f.endsWith('.mjs')).length} chunks) from ${Object.keys(inputs).length} sources in ${((performance.now() - t0) / 1000).toFixed(1)} s`
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    console.log(`build-cli: ${await buildCli({ force: process.argv.includes('--force') })}`)
  } catch (e) {
    // At install time (--install) a failed build never fails the install: the CLI then runs through tsx.
    const install = process.argv.includes('--install')
    console.error(`build-cli: ${install ? 'not built' : 'error'}: ${e instanceof Error ? e.message.split('\n')[0] : e}${install ? ' (searchgym will load its TypeScript through tsx)' : ''}`)
    process.exit(install ? 0 : 1)
  }
}
