// tests/bench-engine-policy: `bench run --policy engine` — a local model folder (+ PEFT adapter) scored in process,
// token in / token out, in the search-r1 protocol on a chosen list of questions (--qa-ids); the oracle writes the
// search-r1 tags too (the SFT warm start's demonstrations). Real parts: the gym's oracle fixture world through the real
// Env, a tiny random model written by initModel with a tokenizer built from the fixture documents, a real adapter.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { scoreAnswer } from '../gym'
import { oraclePolicy } from '../agent'
import { initModel } from '../infra/engine/init-model'
import { Learner } from '../infra/engine/learner'
import { loadModel } from '../infra/engine/model'
import { LORA_TARGETS } from '../infra/engine/lora'
import { FIXTURE_DOCS, openFixtureWorld } from './fixtures/gym-fixture-world'
import { ORACLE_KNOWLEDGE, ORACLE_QA } from './fixtures/oracle-fixture'
import { configFromArgs, type RunArgs } from '../bench/cli/run'
import { gymBenchWorld } from '../bench/gym-world'
import { policyFactory } from '../bench/policies'
import { runBench } from '../bench/run'

const dir = mkdtempSync(join(tmpdir(), 'bench-engine-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const qa = ORACLE_QA.map((q) => ({ ...q, split: 'bench' as const }))
const world = () => gymBenchWorld('oracle-fixture', 'oracle-fixture', openFixtureWorld({ qa }), ORACLE_KNOWLEDGE)
const base = { world: 'oracle-fixture', split: 'bench', apiKeyEnv: 'X', concurrency: 2, out: '', seed: 0, timeoutMs: 1000, maxRetries: 0, ragDocs: 3, judgeApiKeyEnv: 'X', bootstrap: 200, retryErrors: false, quiet: true }

it('the oracle written in search-r1 tags solves every fixture question (F1 1.0) through the real search-r1 Env', async () => {
  const w = world()
  const config = { ...configFromArgs({ ...base, policy: 'oracle', protocol: 'openai' } as RunArgs, w.id), protocol: 'search-r1' as const }
  const res = await runBench(join(dir, 'oracle-r1'), config, { world: w, policyFor: (q) => oraclePolicy(q, ORACLE_KNOWLEDGE, undefined, 'search-r1'), scorer: scoreAnswer, quiet: true })
  expect(res.summary.overall.f1.mean).toBe(1)
  expect(res.summary.tools.formatValidRate).toBe(1)
  const rec = JSON.parse(readFileSync(join(dir, 'oracle-r1', 'trajectories.jsonl'), 'utf8').split('\n')[0])
  expect(rec.turns[0].text).toMatch(/^<search> .+ <\/search>$/)
  await w.close()
}, 120_000)

it('bench run --policy engine scores a local model + adapter in search-r1 on the --qa-ids questions only', async () => {
  const model = join(dir, 'model')
  initModel({ out: model, preset: 'tiny', arch: 'qwen3', seed: 1, tokenizer: { kind: 'texts', texts: FIXTURE_DOCS.map((d) => `${d.title}\n${d.text}`), vocabSize: 400 } })
  // A real adapter with non-zero B (a fresh one is the identity): one learner step on a short sequence.
  const learner = new Learner(loadModel(model), { lora: { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }, seed: 2 })
  learner.forwardBackward([{ inputTokens: [5, 6, 7, 8], targetTokens: [6, 7, 8, 9] }], { name: 'cross_entropy' })
  learner.optimStep({ lr: 0.05 })
  const adapter = join(dir, 'adapter')
  learner.saveAdapter(adapter)
  const ids = [qa[2].id, qa[0].id]
  writeFileSync(join(dir, 'ids.json'), JSON.stringify(ids))
  const w = world()
  const args = { ...base, policy: 'engine', protocol: 'search-r1', model, adapter, backend: 'ts', maxTokens: 12, temperature: 0, qaIds: join(dir, 'ids.json'), gym: { budgets: { maxTurns: 2 } } } as RunArgs
  const config = configFromArgs(args, w.id)
  expect(config).toMatchObject({ policy: 'engine', protocol: 'search-r1', adapter, backend: 'ts', qaIds: ids, baseURL: '' })
  const res = await runBench(join(dir, 'engine'), config, { world: w, policyFor: policyFactory(config, w), scorer: scoreAnswer, quiet: true })
  expect(res.summary.questions).toBe(2)
  const recs = readFileSync(join(dir, 'engine', 'trajectories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  expect(recs.map((r) => r.id).sort()).toEqual([...ids].sort())
  for (const r of recs) {
    expect(r.status).toBe('ok')
    expect(r.turns.length).toBeGreaterThan(0)
    expect(r.turns[0].completionTokens).toBeGreaterThan(0)
    // Token out: the exact sampled ids and their log-probs are kept in the record.
    expect(r.turns[0].tokens).toHaveLength(r.turns[0].completionTokens)
    expect(r.turns[0].logprobs).toHaveLength(r.turns[0].completionTokens)
  }
  // Greedy and seeded: the same run again gives the same text and log-probs.
  const again = await runBench(join(dir, 'engine-2'), config, { world: w, policyFor: policyFactory(config, w), scorer: scoreAnswer, quiet: true })
  expect(again.summary.overall.f1.mean).toBe(res.summary.overall.f1.mean)
  const texts = (d: string) => readFileSync(join(dir, d, 'trajectories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).sort((a, b) => (a.id < b.id ? -1 : 1)).map((r) => r.turns.map((t: { text: string }) => t.text).join('|'))
  expect(texts('engine-2')).toEqual(texts('engine'))
  const noAdapter = configFromArgs({ ...args, adapter: undefined }, w.id)
  await runBench(join(dir, 'engine-base'), noAdapter, { world: w, policyFor: policyFactory(noAdapter, w), scorer: scoreAnswer, quiet: true })
  // The adapter is on: the base model's log-probs of its own greedy tokens differ (the text may not, on a random model).
  const logprobs = (d: string) => readFileSync(join(dir, d, 'trajectories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).sort((a, b) => (a.id < b.id ? -1 : 1)).map((r) => r.turns.map((t: { logprobs: number[] }) => t.logprobs))
  expect(logprobs('engine-2')).toEqual(logprobs('engine'))
  expect(logprobs('engine-base')).not.toEqual(logprobs('engine'))
  await w.close()
}, 300_000)

it('refuses what it cannot do with a one-line error', () => {
  const w = { id: 'x' }
  expect(() => configFromArgs({ ...base, policy: 'openai', protocol: 'search-r1', model: 'm', baseUrl: 'http://x/v1' } as RunArgs, w.id)).toThrow(/search-r1 is spoken only by --policy engine/)
  expect(() => configFromArgs({ ...base, policy: 'engine', protocol: 'openai', model: 'm' } as RunArgs, w.id)).toThrow(/text protocol/)
  expect(() => configFromArgs({ ...base, policy: 'openai', protocol: 'hermes', model: 'm', baseUrl: 'http://x/v1', adapter: 'a' } as RunArgs, w.id)).toThrow(/options of --policy engine/)
  writeFileSync(join(dir, 'bad-ids.json'), '{"a": 1}')
  expect(() => configFromArgs({ ...base, policy: 'engine', protocol: 'search-r1', model: 'm', qaIds: join(dir, 'bad-ids.json') } as RunArgs, w.id)).toThrow(/non-empty JSON array/)
})
