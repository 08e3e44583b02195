// tests/global-setup: one scratch folder per jest run for shared real worlds (tests/helpers/shared-world builds the
// tiny world there through the real CLI on first use, once per run); removed by tests/global-teardown.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export default async function globalSetup() {
  if (!process.env.SEARCHGYM_TEST_WORLDS) {
    process.env.SEARCHGYM_TEST_WORLDS = mkdtempSync(join(tmpdir(), 'sg-test-worlds-'))
    process.env.SEARCHGYM_TEST_WORLDS_OWNED = '1'
  }
}
