// tests/bench-bounds: every numeric flag of `bench run` is bounded and refused in one line before any work (issue 47:
// --bootstrap -1 ran every question and then crashed, --bootstrap 1e9 grew to 7.9 GB, --timeout-ms -5 was accepted).
// The world given does not exist: a refusal about the number proves it came before the world was opened.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runFromArgs, type RunArgs } from '../bench/cli/run'
import { checkRunNumbers } from '../bench/run'
import { BenchError } from '../infra/errors'
import { runCli } from './helpers/cli-process'

const dir = mkdtempSync(join(tmpdir(), 'sg-bench-bounds-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const base = { world: join(dir, 'no-such-world'), split: 'bench', policy: 'oracle', apiKeyEnv: 'X', concurrency: 2, protocol: 'hermes', out: join(dir, 'run'), seed: 0, timeoutMs: 1000, maxRetries: 0, ragDocs: 3, judgeApiKeyEnv: 'X', bootstrap: 50, retryErrors: false, quiet: true } as RunArgs

test.each([
  [{ bootstrap: -1 }, '--bootstrap must be an integer in [1, 100000], got -1'],
  [{ bootstrap: 1e9 }, '--bootstrap must be an integer in [1, 100000], got 1000000000'],
  [{ bootstrap: NaN }, '--bootstrap must be an integer in [1, 100000], got NaN'],
  [{ timeoutMs: -5 }, '--timeout-ms must be an integer in [1, 86400000], got -5'],
  [{ maxRetries: 1e6 }, '--max-retries must be an integer in [0, 100], got 1000000'],
  [{ concurrency: 0 }, '--concurrency must be an integer in [1, 1024], got 0'],
  [{ seed: -3 }, '--seed must be an integer in [0, 4294967295], got -3'],
  [{ ragDocs: 0 }, '--rag-docs must be an integer in [1, 100], got 0'],
  [{ limit: 2.5 }, '--limit must be an integer in [1, 10000000], got 2.5'],
  [{ temperature: -1 }, '--temperature must be a number in [0, 10], got -1'],
  [{ maxTokens: 0 }, '--max-tokens must be an integer in [1, 1000000], got 0'],
])('%j is refused before the world is opened', async (over, message) => {
  const err = await runFromArgs({ ...base, ...over } as RunArgs).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(BenchError)
  expect((err as Error).message).toBe(message)
  expect(existsSync(join(dir, 'run'))).toBe(false)
})

test('values inside the bounds pass (unset ones are not checked)', () => {
  expect(() => checkRunNumbers({ bootstrap: 1000, timeoutMs: 120_000, maxRetries: 0, temperature: 0.7, limit: null, maxTokens: undefined })).not.toThrow()
})

test('the CLI prints the refusal as one line, exits 1 and writes nothing', async () => {
  const out = join(dir, 'cli-run')
  const r = await runCli(['bench', 'run', join(dir, 'no-such-world'), '--policy', 'oracle', '--set', 'bootstrap=-1', '--out', out])
  expect(r.code).toBe(1)
  expect(r.stderr).toBe('searchgym: error: bootstrap (--set) must be an integer in [1, 100000], got -1\n')
  expect(existsSync(out)).toBe(false)
})
