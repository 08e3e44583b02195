// view/bundle: the page's one build step — esbuild bundles view/page/app.ts, minified, into view/page/dist/app.js,
// and sigma with graphology (from node_modules; no CDN; view/page/graph-lib.ts) into dist/graph.js, which the page
// imports only when it draws a graph, so the first render loads and parses one small script. Run at install
// (`npm run build:view`) and again by the viewer on start when a page source is newer than a bundle. Knows nothing of
// the API.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const PAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'page')
const DIST = join(PAGE_DIR, 'dist')
const BUNDLE = join(DIST, 'app.js')

/** The files the server sends: the HTML shell, the stylesheet, the page's bundle and the graph bundle. */
export const PAGE_FILES = {
  'index.html': join(PAGE_DIR, 'index.html'),
  'app.css': join(PAGE_DIR, 'app.css'),
  'app.js': BUNDLE,
  'graph.js': join(DIST, 'graph.js'),
} as const

function stale(): boolean {
  if (!existsSync(BUNDLE) || !existsSync(PAGE_FILES['graph.js'])) return true
  const built = Math.min(statSync(BUNDLE).mtimeMs, statSync(PAGE_FILES['graph.js']).mtimeMs)
  return readdirSync(PAGE_DIR).some((f) => f.endsWith('.ts') && statSync(join(PAGE_DIR, f)).mtimeMs > built)
}

/** Build the bundle when it is missing or older than a page source; returns whether it built. */
export async function ensurePageBundle(force = false): Promise<boolean> {
  if (!force && !stale()) return false
  const { build } = await import('esbuild')
  for (const [entry, out] of [['app.ts', BUNDLE], ['graph-lib.ts', PAGE_FILES['graph.js']]])
    await build({
      entryPoints: [join(PAGE_DIR, entry)],
      outfile: out,
      bundle: true,
      minify: true,
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
