// bench/perf/harness-overhead: the bench harness's own CPU per model turn against a zero-latency OpenAI-compatible server
// (the replay fixture, in a separate process so its CPU is not counted). Goal: < 5 ms CPU per turn. The env's own
// step time is reported apart and subtracted for the harness figure (the env is the gym's cost, not the harness's).
// Usage: node bin/run-ts.mjs bench/perf/harness-overhead.ts [questions=300] [concurrency=8] [protocol=openai|hermes]
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { OpenAiPolicy } from '../../agent/policy/openai'
import { runBench } from '../run'
import type { BenchRunConfig } from '../types'
import { scoreAnswer } from '../../gym'
import { fixtureWorld, makeFixtureWorldData } from '../../tests/fixtures/bench-fixture-world'
import { chatProtocol } from '../types'
import { perfArgs } from './perf-args'

const { positionals: pos } = perfArgs('node bin/run-ts.mjs bench/perf/harness-overhead.ts [questions=300] [concurrency=8] [protocol=openai|hermes]', {})
const questions = Number(pos[0] ?? 300)
const concurrency = Number(pos[1] ?? 8)
const benchProtocol = pos[2] === 'hermes' ? 'hermes' : 'openai'
const protocol = chatProtocol(benchProtocol)

const child = spawn(process.execPath, ['bin/run-ts.mjs', 'tests/fixtures/replay-server-main.ts', protocol], { stdio: ['ignore', 'pipe', 'inherit'] })
const url = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve))
const dir = mkdtempSync(join(tmpdir(), 'harness-overhead-'))
const world = fixtureWorld('fixture', makeFixtureWorldData(questions))
const config: BenchRunConfig = {
  world: 'fixture', worldId: world.id, split: 'bench', policy: 'openai', model: 'replay', baseURL: url, apiKeyEnv: 'X', protocol: benchProtocol, limit: null,
  concurrency, seed: 0, timeoutMs: 30000, maxRetries: 2, temperature: null, maxTokens: null, ragDocs: 3, prices: null, judge: null, gym: { budgets: { maxTurns: 16 } }, bootstrap: 1000,
}

async function once(out: string, n: number) {
  const policy = new OpenAiPolicy({ baseURL: url, model: 'replay', protocol, seed: 0 })
  const w = fixtureWorld('fixture', makeFixtureWorldData(n))
  return runBench(out, { ...config, limit: n }, { world: w, policyFor: () => policy, scorer: scoreAnswer, quiet: true })
}

// Warm-up (JIT, connection pool), not measured.
await once(join(dir, 'warm'), 20)

const cpu0 = process.cpuUsage()
const t0 = performance.now()
const res = await once(join(dir, 'run'), questions)
const wallMs = performance.now() - t0
const cpu = process.cpuUsage(cpu0)
const turns = res.summary.tools.turnsPerQuestion * res.summary.questions

// The end-of-run summary (bootstrap CIs over every group) and report are part of the above; time them alone too.
const { summarize } = await import('../metrics')
const { loadTrajectories } = await import('../trajectory-log')
const recs = loadTrajectories(join(dir, 'run', 'trajectories.jsonl')).records
const s0 = process.cpuUsage()
summarize(recs, { resamples: 1000, seed: 0 })
const sCpu = process.cpuUsage(s0)

const cpuMs = (cpu.user + cpu.system) / 1000
// The env's step time (in-process, CPU-bound for an in-memory world) is the env's cost, not the harness's.
let envMs = 0
for (const r of recs) for (const t of r.turns) envMs += t.envMs
const harnessMs = cpuMs - envMs
const result = {
  questions: res.summary.questions,
  turns,
  concurrency,
  protocol,
  wallMs: Math.round(wallMs),
  cpuMs: Math.round(cpuMs),
  cpuUserMs: Math.round(cpu.user / 1000),
  cpuSystemMs: Math.round(cpu.system / 1000),
  cpuMsPerTurn: Number((cpuMs / turns).toFixed(3)),
  envStepMs: Math.round(envMs),
  harnessCpuMsPerTurn: Number((harnessMs / turns).toFixed(3)),
  wallMsPerTurn: Number((wallMs / turns).toFixed(3)),
  summaryCpuMs: Math.round((sCpu.user + sCpu.system) / 1000),
  goalMsPerTurn: 5,
  ratioToGoal: Number((harnessMs / turns / 5).toFixed(3)),
  em: res.summary.overall.em.mean,
}
process.stdout.write(JSON.stringify(result, null, 2) + '\n')
child.kill('SIGTERM')
rmSync(dir, { recursive: true, force: true })
