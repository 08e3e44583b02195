// tests/bench-baselines: closed-book and one-shot-RAG through the real CLI (child process) on the run's real tiny world
// against the replay fixture server (a "model" that knows gold answers), an LLM judge on a second endpoint, a price
// table → cost, and the gym's oracle; their reports render. Bad flags are one-line errors.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { RunSummary } from '../bench/metrics'
import type { TrajectoryRecord } from '../bench/types'
import type { Qa } from '../world'
import { startReplayServer, turnOf, questionOf, type ChatRequest, type ReplayServer } from './fixtures/replay-server'
import { qaIn, questionsOf } from './helpers/gold-answers'
import { sharedTinyWorld } from './helpers/shared-world'

const run = promisify(execFile)
const dir = mkdtempSync(join(tmpdir(), 'bench-baselines-'))
const servers: ReplayServer[] = []
afterAll(async () => {
  for (const s of servers) await s.close()
  rmSync(dir, { recursive: true, force: true })
})
let world = ''
let qas: Qa[] = []
beforeAll(async () => {
  world = (await sharedTinyWorld()).dir
  qas = await questionsOf(world, 'bench', 6)
  expect(qas).toHaveLength(6)
})

async function cli(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['bin/searchgym.mjs', 'bench', 'run', '--world', world, '--limit', '6', '--set', 'limitMode=first', '--quiet', '--set', 'bootstrap=200', ...args])
  return stdout
}

function load(out: string): { recs: TrajectoryRecord[]; summary: RunSummary; report: string } {
  return {
    recs: readFileSync(join(out, 'trajectories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as TrajectoryRecord),
    summary: JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary,
    report: readFileSync(join(out, 'report.md'), 'utf8'),
  }
}

it('closed-book: one model call per question, no tools, judged by a second endpoint, priced', async () => {
  // The "model" knows the answers of the even-numbered questions only (and says Paris, which no tiny-world answer is).
  expect(qas.some((q) => q.answer === 'Paris' || q.aliases.includes('Paris'))).toBe(false)
  const model = await startReplayServer((req: ChatRequest) => {
    const i = qas.indexOf(qaIn(qas, questionOf(req))!)
    return { content: `<answer>${i >= 0 && i % 2 === 0 ? qas[i].answer : 'Paris'}</answer>`, usage: { prompt_tokens: 100, completion_tokens: 10 } }
  })
  const judge = await startReplayServer((req: ChatRequest) => ({ content: (req.messages[1].content ?? '').includes('Predicted answer: Paris') ? 'INCORRECT' : 'CORRECT' }))
  servers.push(model, judge)
  const prices = join(dir, 'prices.json')
  writeFileSync(prices, JSON.stringify({ replay: { input: 1, output: 2 } }))
  const out = join(dir, 'closed')
  const stdout = await cli('--policy', 'closed-book', '--model', 'replay', '--base-url', model.url, '--out', out, '--set', `prices=${prices}`, '--set', 'judgeModel=judge', '--set', `judgeBaseUrl=${judge.url}`)
  expect(stdout).toContain('judge')
  const { recs, summary, report } = load(out)
  expect(model.requests).toHaveLength(6)
  expect(model.requests.every((r) => r.tools === undefined && r.messages[0].content?.includes('no tools'))).toBe(true)
  expect(summary.overall.em.mean).toBeCloseTo(0.5, 12)
  expect(summary.overall.judge!.mean).toBeCloseTo(0.5, 12)
  expect(summary.tools.toolCallsPerQuestion).toBe(0)
  expect(recs.every((r) => r.turns.length === 1)).toBe(true)
  // 6 × (100 × $1 + 10 × $2) / 1M
  expect(summary.cost!.total).toBeCloseTo((6 * 120) / 1e6, 12)
  expect(report).toContain('Judge % [95% CI]')
  expect(report).toContain('cost USD')
})

it('one-shot RAG: searches the question verbatim, opens the top documents, answers once from them', async () => {
  const model = await startReplayServer((req: ChatRequest) => {
    expect(turnOf(req)).toBe(0)
    return { content: `<answer>${qaIn(qas, req.messages[1].content ?? '')?.answer ?? 'unknown'}</answer>` }
  })
  servers.push(model)
  for (const protocol of ['openai', 'hermes']) {
    const out = join(dir, `rag-${protocol}`)
    await cli('--policy', 'one-shot-rag', '--model', 'replay', '--base-url', model.url, '--out', out, '--set', 'ragDocs=2', '--set', `protocol=${protocol}`)
    const { recs, summary, report } = load(out)
    expect(summary.overall.em.mean).toBe(1)
    expect(summary.tools.searchPerQuestion).toBe(1)
    expect(summary.tools.accessPerQuestion).toBe(2)
    const r = recs[0]
    // the search query is the question, verbatim
    const first = protocol === 'openai' ? JSON.parse(r.turns[0].tool_calls![0].function.arguments).query : JSON.parse(/<tool_call>(.*)<\/tool_call>/.exec(r.turns[0].text)![1]).arguments.query
    expect(first).toBe(r.question)
    expect(report).toContain('![accuracy by hops](charts/accuracy-by-hops.svg)')
  }
  // one model call per question and protocol: the tool turns are the policy's own
  expect(model.requests).toHaveLength(12)
})

it('oracle: every question solved with the env tools (F1 = 1.0), no endpoint needed', async () => {
  const out = join(dir, 'oracle')
  const stdout = await cli('--policy', 'oracle', '--out', out)
  expect(stdout).toContain('F1 100.0')
  const { summary } = load(out)
  expect(summary.overall.f1.mean).toBe(1)
  expect(summary.endpoint.requests).toBe(0)
})

it('bench report recomputes the summary; bad input is one line and a non-zero exit', async () => {
  const out = join(dir, 'oracle')
  const { stdout } = await run(process.execPath, ['bin/searchgym.mjs', 'bench', 'report', out, '--bootstrap', '50'])
  expect(stdout).toMatch(/6 questions, F1 100\.0/)
  expect((JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary).bootstrap.resamples).toBe(50)
  let err = ''
  try {
    await cli('--policy', 'openai', '--out', join(dir, 'nomodel'))
  } catch (e) {
    err = (e as { stderr: string }).stderr
  }
  expect(err.trim().split('\n')).toHaveLength(1)
  expect(err).toMatch(/--policy openai needs --model/)
  // the bench's old protocol names are refused with the gym's
  err = ''
  try {
    await cli('--policy', 'openai', '--model', 'm', '--base-url', 'http://127.0.0.1:9/v1', '--set', 'protocol=tools', '--out', join(dir, 'oldname'))
  } catch (e) {
    err = (e as { stderr: string }).stderr
  }
  expect(err.trim().split('\n')).toHaveLength(1)
  expect(err).toMatch(/protocol \(--set\) tools is now openai/)
})
