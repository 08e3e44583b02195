// tests/bench-oracle: the gym's real oracle (agent/oracle/oracle) through the bench over the gym's oracle fixture
// world and real Env: every question solved, F1 = 1.0, with the oracle's hermes (text) protocol and lifted turn budget.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { scoreAnswer } from '../gym'
import { openFixtureWorld } from './fixtures/gym-fixture-world'
import { ORACLE_KNOWLEDGE, ORACLE_QA } from './fixtures/oracle-fixture'
import { configFromArgs, type RunArgs } from '../bench/cli/run'
import { gymBenchWorld } from '../bench/gym-world'
import { policyFactory } from '../bench/policies'
import { runBench } from '../bench/run'

const dir = mkdtempSync(join(tmpdir(), 'bench-oracle-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it('the oracle scores F1 = 1.0 on every question of the oracle fixture world', async () => {
  const qa = ORACLE_QA.map((q) => ({ ...q, split: 'bench' as const }))
  const world = gymBenchWorld('oracle-fixture', 'oracle-fixture', openFixtureWorld({ qa }), ORACLE_KNOWLEDGE)
  const args = { world: 'oracle-fixture', split: 'bench', policy: 'oracle', apiKeyEnv: 'X', concurrency: 4, protocol: 'openai', out: '', seed: 0, timeoutMs: 1000, maxRetries: 0, ragDocs: 3, judgeApiKeyEnv: 'X', bootstrap: 200, retryErrors: false, quiet: true } as RunArgs
  const config = configFromArgs(args, world.id)
  expect(config.protocol).toBe('hermes')
  const res = await runBench(join(dir, 'oracle'), config, { world, policyFor: policyFactory(config, world), scorer: scoreAnswer, quiet: true })
  expect(res.summary.questions).toBe(qa.length)
  expect(res.summary.overall.f1.mean).toBe(1)
  expect(res.summary.tools.formatValidRate).toBe(1)
  expect(res.summary.endpoint.requests).toBe(0)
})
