// tests/helpers/shared-world: one real tiny world per jest run, built through the real CLI (`searchgym world build
// --preset tiny`, oracle check included) the first time a test asks for it; every other test file and worker waits
// for that build (a lock folder) and reuses it. Read-only by convention: tests copy it before changing anything.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from './cli-process'

export interface SharedWorld {
  dir: string
  /** The content hash `world build` reported. */
  hash: string
}

const BUILD_TIMEOUT_MS = 300_000

/** The run's tiny world (preset tiny, seed 11), built by the CLI on first use. */
export async function sharedTinyWorld(): Promise<SharedWorld> {
  const root = process.env.SEARCHGYM_TEST_WORLDS ?? (process.env.SEARCHGYM_TEST_WORLDS = mkdtempSync(join(tmpdir(), 'sg-test-worlds-')))
  const dir = join(root, 'tiny')
  const doneFile = join(root, 'tiny.json')
  const lock = join(root, 'tiny.lock')
  let mine = false
  try {
    mkdirSync(lock)
    mine = true
  } catch {
    // another test file is building it
  }
  if (mine && !existsSync(doneFile)) {
    const r = await runCli(['world', 'build', '--preset', 'tiny', '--out', dir, '--quiet'], BUILD_TIMEOUT_MS)
    const hash = /^hash\s+([0-9a-f]{64})$/m.exec(r.stdout)?.[1]
    if (r.code !== 0 || !hash) throw new Error(`searchgym world build --preset tiny failed (exit ${r.code}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`)
    writeFileSync(doneFile, JSON.stringify({ dir, hash }))
  }
  const t0 = Date.now()
  while (!existsSync(doneFile)) {
    if (Date.now() - t0 > BUILD_TIMEOUT_MS) throw new Error(`the shared tiny world in ${dir} was not built within ${BUILD_TIMEOUT_MS / 1000} s`)
    await new Promise((r) => setTimeout(r, 200))
  }
  return JSON.parse(readFileSync(doneFile, 'utf8')) as SharedWorld
}
