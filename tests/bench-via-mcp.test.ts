// tests/bench-via-mcp: `bench run --via mcp` through the real CLI on the run's tiny world — every episode played through
// `gym mcp` (a child per question, the SDK's client) and scored by it: the oracle gets the same per-question rewards
// and F1 as through `--via env` (1.0), a wrong-answer baseline 0; malformed turns are corrected by the client and end
// the episode at the same turn limit as the env; a bad --via is one line before any work.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { TrajectoryRecord } from '../bench/types'
import type { Qa } from '../world'
import { startReplayServer, type ReplayServer } from './fixtures/replay-server'
import { questionsOf } from './helpers/gold-answers'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

const run = promisify(execFile)
const dir = mkdtempSync(join(tmpdir(), 'bench-via-mcp-'))
const servers: ReplayServer[] = []
afterAll(async () => {
  for (const s of servers) await s.close()
  rmSync(dir, { recursive: true, force: true })
})
let world = ''
let qas: Qa[] = []
beforeAll(async () => {
  world = (await sharedTinyWorld()).dir
  qas = await questionsOf(world, 'bench', 3)
}, 300_000)

async function bench(out: string, ...args: string[]): Promise<TrajectoryRecord[]> {
  await run(process.execPath, ['bin/searchgym.mjs', 'bench', 'run', '--world', world, '--limit', '3', '--limit-mode', 'first', '--concurrency', '2', '--quiet', '--bootstrap', '50', '--out', join(dir, out), ...args], {
    env: { ...process.env, SEARCHGYM_QUIET: '1' },
  })
  return readFileSync(join(dir, out, 'trajectories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as TrajectoryRecord)
}

const byId = (recs: TrajectoryRecord[]) => new Map(recs.map((r) => [r.id, r]))
const episodeReward = (r: TrajectoryRecord) => r.turns.reduce((s, t) => s + t.reward, 0)

test('the oracle through --via mcp scores as through --via env: reward and F1 1.0 on every question', async () => {
  const [env, mcp] = await Promise.all([bench('oracle-env', '--policy', 'oracle', '--via', 'env'), bench('oracle-mcp', '--policy', 'oracle', '--via', 'mcp')])
  expect(mcp).toHaveLength(qas.length)
  const e = byId(env)
  for (const r of mcp) {
    expect(r.status).toBe('ok')
    expect(r.stopReason).toBe('answer')
    expect(r.f1).toBe(1)
    expect(episodeReward(r)).toBe(1)
    expect(r.f1).toBe(e.get(r.id)!.f1)
    expect(episodeReward(r)).toBe(episodeReward(e.get(r.id)!))
    // The gym server's own score: the final step carries its metrics and the gold it logs.
    expect(r.turns[r.turns.length - 1].metrics.f1).toBe(1)
    expect(r.turns[r.turns.length - 1].logs.gold).toBe(qas.find((q) => q.id === r.id)!.answer)
    // The question came from the server (its resource), in the run protocol's question message.
    expect(JSON.stringify(r.initial)).toContain(JSON.stringify(r.question).slice(1, -1))
  }
  const config = JSON.parse(readFileSync(join(dir, 'oracle-mcp', 'config.json'), 'utf8')) as { via?: string }
  expect(config.via).toBe('mcp')
}, 240_000)

test('a wrong-answer baseline through --via mcp scores 0', async () => {
  expect(qas.some((q) => q.answer === 'Paris' || q.aliases.includes('Paris'))).toBe(false)
  const model = await startReplayServer(() => ({ content: '<answer>Paris</answer>', usage: { prompt_tokens: 10, completion_tokens: 3 } }))
  servers.push(model)
  const recs = await bench('wrong-mcp', '--policy', 'closed-book', '--model', 'm', '--base-url', model.url, '--via', 'mcp')
  expect(recs).toHaveLength(qas.length)
  for (const r of recs) {
    expect(r).toMatchObject({ status: 'ok', stopReason: 'answer', prediction: 'Paris', f1: 0, em: 0 })
    expect(episodeReward(r)).toBe(0)
  }
}, 240_000)

test('malformed turns never reach the server: the client corrects them and counts them against the turn limit, as the env does', async () => {
  const model = await startReplayServer(() => ({ content: 'Let me think about it.', usage: { prompt_tokens: 10, completion_tokens: 5 } }))
  servers.push(model)
  const flags = ['--policy', 'openai', '--model', 'm', '--base-url', model.url, '--max-turns', '3']
  const [env, mcp] = await Promise.all([bench('rambler-env', ...flags, '--via', 'env'), bench('rambler-mcp', ...flags, '--via', 'mcp')])
  const e = byId(env)
  for (const r of mcp) {
    expect(r).toMatchObject({ status: 'ok', stopReason: 'max_turns', prediction: null, f1: 0 })
    expect(r.turns).toHaveLength(3)
    expect(r.turns.length).toBe(e.get(r.id)!.turns.length)
    expect(r.stopReason).toBe(e.get(r.id)!.stopReason)
    // The corrective note is the protocol's, the same text the env gives.
    expect(r.turns[0].observation).toEqual(e.get(r.id)!.turns[0].observation)
    expect(r.turns[2].metrics.malformed_turns).toBe(3)
    expect(episodeReward(r)).toBe(0)
  }
}, 240_000)

test('a bad via is a one-line error with a non-zero exit before any work', async () => {
  const out = join(dir, 'bad-via')
  const r = await runCli(['bench', 'run', '--world', world, '--policy', 'oracle', '--set', 'via=http', '--out', out])
  expect(r.code).not.toBe(0)
  expect(r.stderr.trim().split('\n')).toHaveLength(1)
  expect(r.stderr).toMatch(/via \(--set\) must be one of env, mcp, got "http"/)
  expect(existsSync(out)).toBe(false)
}, 60_000)
