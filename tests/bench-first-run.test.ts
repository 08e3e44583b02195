// tests/bench-first-run: the bench refuses what is not its input before it writes anything — `bench report` on a
// world folder (which also holds a config.json) or a missing folder, `bench run` on a split without questions —
// through the real CLI (one-line error, non-zero exit) and the library; and a context overflow from the endpoint
// ends the episode as truncated (stop reason `context`) and is scored, never lost to the endpoint.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { OpenAiPolicy } from '../agent/policy/openai'
import { runBench } from '../bench/run'
import { axisTicks, barChart } from '../bench/svg'
import type { BenchRunConfig } from '../bench/types'
import { scoreAnswer as scorer } from '../gym'
import { fixtureWorld, makeFixtureWorldData } from './fixtures/bench-fixture-world'

const dir = mkdtempSync(join(tmpdir(), 'bench-first-run-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function cli(...args: string[]) {
  return spawnSync(process.execPath, ['bin/searchgym.mjs', ...args], { encoding: 'utf8', env: { ...process.env, SEARCHGYM_QUIET: '1' } })
}

function config(over: Partial<BenchRunConfig> = {}): BenchRunConfig {
  return {
    world: 'fixture', worldId: 'fx', split: 'bench', policy: 'openai', model: 'm', baseURL: '', apiKeyEnv: 'X', protocol: 'hermes', limit: 2,
    concurrency: 1, seed: 0, timeoutMs: 10_000, maxRetries: 2, temperature: null, maxTokens: null, ragDocs: 3, prices: null, judge: null,
    gym: { budgets: { maxTurns: 8 } }, bootstrap: 100, ...over,
  }
}

test('bench report on a world folder fails with one line and writes nothing into it', () => {
  // What a world folder looks like to it: a config.json (the WorldConfig) and the world file.
  const world = join(dir, 'world-like')
  mkdirSync(world)
  writeFileSync(join(world, 'config.json'), JSON.stringify({ preset: 'small', seed: 11, graph: {} }))
  writeFileSync(join(world, 'world.db'), '')
  const before = readdirSync(world).sort()
  const r = cli('bench', 'report', world)
  expect(r.status).not.toBe(0)
  expect(r.stderr.trim().split('\n')).toHaveLength(1)
  expect(r.stderr).toMatch(/is not a bench run folder \(its config.json is not a bench run's/)
  expect(readdirSync(world).sort()).toEqual(before)
})

test('bench report on a missing folder fails and creates nothing', () => {
  const missing = join(dir, 'no-such-run')
  const r = cli('bench', 'report', missing)
  expect(r.status).not.toBe(0)
  expect(r.stderr).toMatch(/is not a bench run folder \(no such folder\)/)
  expect(existsSync(missing)).toBe(false)
})

test('a run on a split without questions fails before the run folder exists', async () => {
  const data = makeFixtureWorldData(2)
  const out = join(dir, 'runs', 'empty-split')
  const policy = new OpenAiPolicy({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', protocol: 'hermes' })
  await expect(runBench(out, config({ split: 'nope' }), { world: fixtureWorld('fx', data), policyFor: () => policy, scorer, quiet: true })).rejects.toThrow(
    /has no questions in split 'nope'; its splits: (train, )?bench/,
  )
  expect(existsSync(out)).toBe(false)
})

// A real HTTP server answering every chat request as `model serve` does once the conversation has outgrown the
// model: 400 context_length_exceeded (its exact message shape). It counts the requests it got.
function overflowServer(): Promise<{ server: Server; url: string; hits: () => number }> {
  let hits = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      hits++
      const message = "the prompt has 5903 tokens and max_tokens is 1024, but the model's context is 4096 tokens; shorten the messages or lower max_tokens"
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }))
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, hits: () => hits })))
}

test('a context overflow ends the episode as truncated (stop reason context), scored, not retried, not lost', async () => {
  const s = await overflowServer()
  try {
    const data = makeFixtureWorldData(2)
    const out = join(dir, 'runs', 'overflow')
    const policy = new OpenAiPolicy({ baseURL: s.url, model: 'm', protocol: 'hermes', maxRetries: 2, timeoutMs: 10_000 })
    const res = await runBench(out, config({ baseURL: s.url }), { world: fixtureWorld('fx', data), policyFor: () => policy, scorer, quiet: true })
    expect(res.summary.status).toEqual({ ok: 2, infra_error: 0, error: 0 })
    expect(res.summary.endpoint.failedQuestions).toBe(0)
    expect(res.summary.endpoint.retries).toBe(0)
    expect(res.summary.stopReasons).toEqual({ context: 2 })
    expect(res.summary.overall.f1.mean).toBe(0)
    // One request per question: a 400 is never retried.
    expect(s.hits()).toBe(2)
  } finally {
    await new Promise((r) => s.server.close(r))
  }
})

test('charts speak the report’s unit: one tick format per axis, percent accuracy, a note when nothing was scored', () => {
  expect(axisTicks([0, 20, 40, 60, 80, 100])).toEqual(['0', '20', '40', '60', '80', '100'])
  expect(axisTicks([-0.5, -0.25, 0, 0.25, 0.5])).toEqual(['-0.50', '-0.25', '0.00', '0.25', '0.50'])
  expect(axisTicks([-20, -10, 0, 10, 20])).toEqual(['-20', '-10', '0', '10', '20'])
  const empty = barChart({ title: 't', categories: ['1'], series: [{ name: 'F1', values: [Number.NaN] }], yMin: 0, yMax: 100, emptyNote: 'no question scored: all 3 lost' })
  expect(empty).toContain('no question scored: all 3 lost')
  expect(barChart({ title: 't', categories: ['1'], series: [{ name: 'F1', values: [40] }], yMin: 0, yMax: 100, emptyNote: 'x' })).not.toContain('>x<')
})
