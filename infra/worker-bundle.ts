// infra/worker-bundle: the entry URL of a worker thread. A worker that loads its TypeScript through tsx pays ~2.7 s of
// CPU per start (module resolution through the loader hooks, for ~170 modules), a third of the oracle check's worker
// and most of a verification search worker; one esbuild bundle of the worker's own sources loads in ~1 s. The bundle
// is built once and kept under node_modules/.cache/searchgym-workers/, reused while none of its input files changed
// (size and mtime of every input, recorded beside it), rebuilt otherwise. Packages stay external (resolved from the
// repository's node_modules, as before); `import.meta.url` in a bundled file is that file's own URL, so relative paths
// (native addons, nested workers) resolve as they do unbundled. When no bundle can be made (esbuild missing, a
// read-only tree, SEARCHGYM_WORKER_BUNDLE=0), the worker starts from its tsx entry, as before, and says why once.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CACHE = join(ROOT, 'node_modules', '.cache', 'searchgym-workers')

interface Stamp {
  version: 1
  entry: string
  inputs: Record<string, [number, number]>
}

const building = new Map<string, Promise<URL>>()
let warned = false

/** The URL to start a worker from: a fresh bundle of `tsEntry` when one can be had, else `tsxEntry` (the .mjs that
 *  registers tsx and imports tsEntry). Cached per process and on disk. */
export function workerEntry(tsEntry: URL, tsxEntry: URL): Promise<URL> {
  const key = tsEntry.href
  let p = building.get(key)
  if (!p) {
    p = bundled(fileURLToPath(tsEntry)).then(
      (u) => u,
      (e: unknown) => {
        if (!warned && process.env.SEARCHGYM_WORKER_BUNDLE !== '0') {
          warned = true
          process.stderr.write(`worker threads load through tsx (no bundle: ${e instanceof Error ? e.message.split('\n')[0] : String(e)})\n`)
        }
        return tsxEntry
      },
    )
    building.set(key, p)
  }
  return p
}

function stampOf(file: string): [number, number] {
  const s = statSync(file)
  return [s.size, Math.floor(s.mtimeMs)]
}

function fresh(out: string, stampFile: string, entry: string): boolean {
  if (!existsSync(out) || !existsSync(stampFile)) return false
  try {
    const s = JSON.parse(readFileSync(stampFile, 'utf8')) as Stamp
    if (s.version !== 1 || s.entry !== entry) return false
    for (const [f, [size, mtime]] of Object.entries(s.inputs)) {
      const now = stampOf(join(ROOT, f))
      if (now[0] !== size || now[1] !== mtime) return false
    }
    return true
  } catch {
    return false
  }
}

/** The bundle of one worker entry (a .ts file): reused while its inputs are unchanged, else rebuilt. Throws when no
 *  bundle can be made. */
export async function bundled(entry: string): Promise<URL> {
  if (process.env.SEARCHGYM_WORKER_BUNDLE === '0') throw new Error('SEARCHGYM_WORKER_BUNDLE=0')
  const name = relative(ROOT, entry).replace(/[^A-Za-z0-9.-]+/g, '_').replace(/\.ts$/, '')
  const out = join(CACHE, `${name}.mjs`)
  const stampFile = join(CACHE, `${name}.json`)
  if (fresh(out, stampFile, entry)) return pathToFileURL(out)
  const esbuild = await import('esbuild')
  mkdirSync(CACHE, { recursive: true })
  const tmp = `${out}.${process.pid}.tmp`
  const r = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: tmp,
    write: true,
    metafile: true,
    logLevel: 'silent',
    banner: { js: `// bundled by infra/worker-bundle from ${relative(ROOT, entry)}; rebuilt when a source changes` },
    plugins: [
      {
        // Each bundled source keeps its own import.meta.url (paths relative to the file resolve as unbundled).
        name: 'own-import-meta-url',
        setup(b) {
          b.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
            const src = readFileSync(args.path, 'utf8')
            return { contents: src.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' }
          })
        },
      },
    ],
  })
  // Inputs are relative to absWorkingDir (the repository root).
  const inputs: Stamp['inputs'] = {}
  for (const f of Object.keys(r.metafile.inputs)) inputs[f] = stampOf(join(ROOT, f))
  renameSync(tmp, out)
  writeFileSync(`${stampFile}.${process.pid}.tmp`, JSON.stringify({ version: 1, entry, inputs } satisfies Stamp))
  renameSync(`${stampFile}.${process.pid}.tmp`, stampFile)
  return pathToFileURL(out)
}

export const WORKER_BUNDLE_DIR = CACHE
