// infra/test-fixture: the one door from a production process to a TEST FIXTURE. Tests that start a real process
// (`searchgym train`, `searchgym model serve`) set SEARCHGYM_TEST_FIXTURE to a module under the repository's tests/
// folder; the process loads it and asks it for a stand-in (a scripted sampler or reply generator). Unset — every user
// run — nothing loads, and no CLI flag reaches it. It knows no fixture: callers say which export they want.
import { resolve, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ConfigError } from './errors'

const TESTS_DIR = fileURLToPath(new URL('../tests', import.meta.url))

/** The module SEARCHGYM_TEST_FIXTURE names (a file under tests/), or undefined when it is unset. */
export async function loadTestFixture<T>(): Promise<Partial<T> | undefined> {
  const p = process.env.SEARCHGYM_TEST_FIXTURE
  if (!p) return undefined
  const abs = resolve(p)
  if (!abs.startsWith(TESTS_DIR + sep))
    throw new ConfigError('test.fixture', `SEARCHGYM_TEST_FIXTURE must name a module under ${TESTS_DIR} (test fixtures live there), got ${p}`)
  // A fixture is TypeScript, and the compiled CLI (dist/) runs without a loader for it: register tsx (a dependency)
  // first. Only a test ever gets here.
  if (/\.[cm]?ts$/.test(abs)) {
    const { register } = await import('tsx/esm/api')
    register()
  }
  return (await import(pathToFileURL(abs).href)) as Partial<T>
}
