// tests/global-teardown: removes the run's shared-world folder made by tests/global-setup (not one passed in by the caller).
import { rmSync } from 'node:fs'

export default async function globalTeardown() {
  if (process.env.SEARCHGYM_TEST_WORLDS_OWNED === '1' && process.env.SEARCHGYM_TEST_WORLDS) rmSync(process.env.SEARCHGYM_TEST_WORLDS, { recursive: true, force: true })
}
