// tests/bench-turn-limit: a bench run has one turn limit, the env's budgets.maxTurns — `--max-turns N` maps to it
// (the oracle's 1000 and the gym's 16 are its defaults), a --gym-options value that disagrees is refused, and the
// episodes of a run with --max-turns 2 stop at two turns (the env truncates: stop reason max_turns).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { scoreAnswer } from '../gym'
import { ORACLE_BUDGETS } from '../agent'
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

it('--max-turns is the env budget: defaults, mapping and a disagreeing --gym-options refused', () => {
  expect(configFromArgs(args({}), 'w').gym).toEqual({ budgets: ORACLE_BUDGETS })
  expect(configFromArgs(args({ policy: 'openai', model: 'm', baseUrl: 'http://x/v1' }), 'w').gym).toBeNull()
  expect(configFromArgs(args({ maxTurns: 5 }), 'w').gym?.budgets).toEqual({ ...ORACLE_BUDGETS, maxTurns: 5 })
  expect(configFromArgs(args({ policy: 'openai', model: 'm', baseUrl: 'http://x/v1', maxTurns: 4 }), 'w').gym).toEqual({ budgets: { maxTurns: 4 } })
  expect(() => configFromArgs(args({ maxTurns: 5, gym: { budgets: { maxTurns: 6 } } }), 'w')).toThrow(/^--max-turns 5 and --gym-options: budgets\.maxTurns 6 set the same limit: give one$/)
  expect(() => configFromArgs(args({ maxTurns: 0 }), 'w')).toThrow(/--max-turns must be a positive integer/)
})

it('a run with --max-turns 2 stops every unanswered episode at two turns', async () => {
  const qa = ORACLE_QA.map((q) => ({ ...q, split: 'bench' as const }))
  const world = gymBenchWorld('oracle-fixture', 'oracle-fixture', openFixtureWorld({ qa }), ORACLE_KNOWLEDGE)
  const config = configFromArgs(args({ maxTurns: 2 }), world.id)
  await runBench(join(dir, 'two'), config, { world, policyFor: policyFactory(config, world), scorer: scoreAnswer, quiet: true })
  const records = loadTrajectories(join(dir, 'two', RUN_FILES.trajectories)).records
  expect(records.length).toBe(qa.length)
  for (const r of records) {
    expect(r.turns.length).toBeLessThanOrEqual(2)
    if (r.stopReason !== 'answer') expect(r.stopReason).toBe('max_turns')
  }
  expect(records.some((r) => r.stopReason === 'max_turns')).toBe(true)
})
