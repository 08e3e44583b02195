// tests/bench-turn-limit: a bench run has one turn limit, the env's gym.budgets.maxTurns (the oracle's 1000 and the
// gym's 16 are its defaults; the older --max-turns N is a spelling of it, and given beside another value of the key
// it is refused), and the episodes of a run with a limit of 2 stop at two turns (the env truncates: max_turns).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { scoreAnswer } from '../gym'
import { ORACLE_BUDGETS } from '../agent'
import { runCli } from './helpers/cli-process'
import { configFromArgs, type RunArgs } from '../bench/cli/run'
import { gymBenchWorld } from '../bench/gym-world'
import { policyFactory } from '../bench/policies'
import { runBench, RUN_FILES } from '../bench/run'
import { loadTrajectories } from '../bench/trajectory-log'
import { openFixtureWorld } from './fixtures/gym-fixture-world'
import { ORACLE_KNOWLEDGE, ORACLE_QA } from './fixtures/oracle-fixture'

const dir = mkdtempSync(join(tmpdir(), 'bench-turns-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const base = { world: 'oracle-fixture', split: 'bench', apiKeyEnv: 'X', concurrency: 2, protocol: 'hermes', out: '', seed: 0, timeoutMs: 1000, maxRetries: 0, ragDocs: 3, judgeApiKeyEnv: 'X', bootstrap: 50, retryErrors: false, quiet: true }
const args = (over: Partial<RunArgs>) => ({ ...base, policy: 'oracle', ...over }) as RunArgs

it('gym.budgets.maxTurns is the env budget: defaults, the oracle lifted but for what is given; --max-turns spells it', async () => {
  expect(configFromArgs(args({}), 'w').gym).toEqual({ budgets: ORACLE_BUDGETS })
  expect(configFromArgs(args({ policy: 'openai', model: 'm', baseUrl: 'http://x/v1' }), 'w').gym).toBeNull()
  expect(configFromArgs(args({ gym: { budgets: { maxTurns: 5 } } }), 'w').gym?.budgets).toEqual({ ...ORACLE_BUDGETS, maxTurns: 5 })
  expect(configFromArgs(args({ policy: 'openai', model: 'm', baseUrl: 'http://x/v1', gym: { budgets: { maxTurns: 4 } } }), 'w').gym).toEqual({ budgets: { maxTurns: 4 } })
  // The command line: the older flag lands in the key (one note), and given beside another value of it is refused.
  const cli = (argv: string[]) => runCli(['bench', 'run', 'nowhere', '--policy', 'oracle', '--out', join(dir, 'cli'), ...argv])
  const both = await cli(['--max-turns', '5', '--set', 'gym.budgets.maxTurns=6'])
  expect(both.code).not.toBe(0)
  expect(both.stderr).toMatch(/^searchgym: error: gym\.budgets\.maxTurns was given twice: --max-turns 5 and gym\.budgets\.maxTurns 6; give one$/m)
  const zero = await cli(['--set', 'gym.budgets.maxTurns=0'])
  expect(zero.stderr).toMatch(/budgets\.maxTurns must be an integer in \[1, 1000\], got 0/)
  const old = await cli(['--max-turns', '0'])
  expect(old.stderr).toMatch(/gym\.budgets\.maxTurns \(--max-turns\) must be an integer in \[1, 1000\], got 0/)
})

it('a run with --max-turns 2 stops every unanswered episode at two turns', async () => {
  const qa = ORACLE_QA.map((q) => ({ ...q, split: 'bench' as const }))
  const world = gymBenchWorld('oracle-fixture', 'oracle-fixture', openFixtureWorld({ qa }), ORACLE_KNOWLEDGE)
  const config = configFromArgs(args({ gym: { budgets: { maxTurns: 2 } } }), world.id)
  await runBench(join(dir, 'two'), config, { world, policyFor: policyFactory(config, world), scorer: scoreAnswer, quiet: true })
  const records = loadTrajectories(join(dir, 'two', RUN_FILES.trajectories)).records
  expect(records.length).toBe(qa.length)
  for (const r of records) {
    expect(r.turns.length).toBeLessThanOrEqual(2)
    if (r.stopReason !== 'answer') expect(r.stopReason).toBe('max_turns')
  }
  expect(records.some((r) => r.stopReason === 'max_turns')).toBe(true)
})
