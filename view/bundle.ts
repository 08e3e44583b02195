// view/bundle: the page's one build step — esbuild bundles view/page/app.ts, minified, into view/page/dist/app.js,
// with sigma and graphology (from node_modules; no CDN) split into chunks loaded only by the pages that draw a graph
// (dist/chunk-*.js), so the first render parses a small script. Run at install (`npm run build:view`) and again by the viewer
// on start when a page source is newer than the bundle. Knows nothing of the API.
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const PAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'page')
const DIST = join(PAGE_DIR, 'dist')
const BUNDLE = join(DIST, 'app.js')

/** A chunk file of the bundle by its name (chunk-HASH.js), or null for any other name or a missing file. */
export function chunkFile(name: string): string | null {
  if (!/^chunk-[A-Za-z0-9_-]{1,64}\.js$/.test(name)) return null
  const f = join(DIST, name)
  return existsSync(f) ? f : null
}

/** The files the server sends: the HTML shell, the stylesheet and the bundle. */
export const PAGE_FILES = {
  'index.html': join(PAGE_DIR, 'index.html'),
  'app.css': join(PAGE_DIR, 'app.css'),
  'app.js': BUNDLE,
} as const

function stale(): boolean {
  if (!existsSync(BUNDLE)) return true
  const built = statSync(BUNDLE).mtimeMs
  return readdirSync(PAGE_DIR).some((f) => f.endsWith('.ts') && statSync(join(PAGE_DIR, f)).mtimeMs > built)
}

/** Build the bundle when it is missing or older than a page source; returns whether it built. */
export async function ensurePageBundle(force = false): Promise<boolean> {
  if (!force && !stale()) return false
  const { build } = await import('esbuild')
  if (existsSync(DIST)) for (const f of readdirSync(DIST)) if (/^chunk-.*\.js$/.test(f)) rmSync(join(DIST, f))
  await build({
    entryPoints: [join(PAGE_DIR, 'app.ts')],
    outdir: DIST,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    splitting: true,
    minify: true,
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    sourcemap: false,
    logLevel: 'error',
  })
  return true
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await ensurePageBundle(true)
  process.stdout.write(`view: page bundled → ${BUNDLE}\n`)
}
