// tests/readme-tour: README.md's "A tour" block, run as written — its own lines, read from the README, each a real
// `searchgym` process in a fresh folder — on a tiny world and the tiny random model. Every step must exit 0, the two
// servers must answer, and the local-model bench run must score every question (none lost to a context overflow or
// to the endpoint); the quick training finishes and prints its held-out before/after line. The only rewrites
// (tourCommands) are the ones a test needs: the tiny preset, free ports, 2 questions, `train --preset quick-smoke`
// (the same pipeline at its smallest size); a tour line the rewrites do not expect fails the test, so the README and this test cannot drift apart.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin/searchgym.mjs')

/** The command lines of README's first code block after "## A tour" (comments cut, blank lines dropped). */
export function readTourBlock(readme: string): string[] {
  const at = readme.indexOf('\n## A tour')
  if (at < 0) throw new Error('README.md has no "## A tour" section')
  const m = /```\n([\s\S]*?)```/.exec(readme.slice(at))
  if (!m) throw new Error('the tour section has no code block')
  return m[1]
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l.length > 0)
}

/** Split a command line into arguments (double quotes group; no other shell syntax is used in the tour). */
export function shellWords(line: string): string[] {
  const out: string[] = []
  for (const m of line.matchAll(/"([^"]*)"|(\S+)/g)) out.push(m[1] ?? m[2])
  return out
}

export interface TourStep {
  args: string[]
  /** gym serve / model serve: started, awaited until it listens, stopped at the end. */
  server?: 'gym' | 'model'
}

/** The tour's lines as test steps: `npx searchgym` → the CLI; paper → tiny; ports → 0; --limit 20 → 2; --preset quick → quick-smoke. */
export function tourCommands(lines: string[]): TourStep[] {
  return lines.map((line) => {
    const w = shellWords(line)
    if (w[0] !== 'npx' || w[1] !== 'searchgym') throw new Error(`a tour line that is not 'npx searchgym …': ${line}`)
    const args = w.slice(2).map((a) => (a === 'paper' ? 'tiny' : a))
    for (let i = 0; i < args.length - 1; i++) {
      if (args[i] === '--port') args[i + 1] = '0'
      if (args[i] === '--limit') args[i + 1] = '2'
      if (args[i] === '--preset' && args[i + 1] === 'quick') args[i + 1] = 'quick-smoke'
    }
    const server = args[0] === 'gym' && args[1] === 'serve' ? 'gym' : args[0] === 'model' && args[1] === 'serve' ? 'model' : undefined
    return server ? { args, server } : { args }
  })
}

interface Done {
  code: number | null
  stdout: string
  stderr: string
  ms: number
}

function run(cwd: string, args: string[], timeoutMs: number): Promise<Done> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now()
    const p = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, SEARCHGYM_QUIET: '1' } })
    let stdout = ''
    let stderr = ''
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => {
      p.kill('SIGKILL')
      reject(new Error(`searchgym ${args.join(' ')} did not finish in ${timeoutMs} ms; stderr: ${stderr.slice(-500)}`))
    }, timeoutMs)
    p.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, ms: Date.now() - t0 })
    })
  })
}

/** Start a server command and wait for the URL it prints (gym serve: stderr "… on URL"; model serve: stdout "listening on URL/v1"). */
function start(cwd: string, args: string[], timeoutMs: number): Promise<{ url: string; proc: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, SEARCHGYM_QUIET: '1' } })
    let text = ''
    const timer = setTimeout(() => {
      p.kill('SIGKILL')
      reject(new Error(`searchgym ${args.join(' ')} did not start in ${timeoutMs} ms: ${text.slice(-500)}`))
    }, timeoutMs)
    const look = (d: Buffer) => {
      text += d.toString()
      const m = /(?:listening on|\bon) (http:\/\/[^\s/]+)/.exec(text)
      if (m) {
        clearTimeout(timer)
        resolve({ url: m[1], proc: p })
      }
    }
    p.stdout.on('data', look)
    p.stderr.on('data', look)
    p.on('close', (code) => {
      clearTimeout(timer)
      reject(new Error(`searchgym ${args.join(' ')} exited with ${code} before listening: ${text.slice(-500)}`))
    })
  })
}

function stop(p: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (p.exitCode !== null || p.signalCode !== null) return done()
    p.once('close', () => done())
    p.kill('SIGTERM')
  })
}

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')

describe('the README tour', () => {
  test('the block is read and every line is understood (the rewrites see what they expect)', () => {
    const steps = tourCommands(readTourBlock(readme))
    expect(steps.length).toBeGreaterThanOrEqual(10)
    expect(steps.filter((s) => s.server).map((s) => s.server)).toEqual(['gym', 'model'])
    // The local-model run the must-show item is about, with a turn length the tiny model finishes.
    const local = steps.find((s) => s.args.includes('--policy') && s.args[s.args.indexOf('--policy') + 1] === 'openai')
    expect(local?.args).toEqual(expect.arrayContaining(['maxTokens=64', '--base-url', '--limit']))
    expect(readTourBlock('x\n## A tour\n\n```\nnpx searchgym world stats w   # c\n\n```\n')).toEqual(['npx searchgym world stats w'])
    expect(() => tourCommands(['ls worlds'])).toThrow(/not 'npx searchgym/)
  })

  test('runs end to end: every step exits 0, both servers answer, the local model scores every question', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sg-tour-'))
    const servers: ChildProcess[] = []
    const log: string[] = []
    try {
      let gymUrl = ''
      let modelUrl = ''
      let names: string[] = []
      let quick = ''
      for (const step of tourCommands(readTourBlock(readme))) {
        const args = step.args.map((a) => {
          if (a === '<a name from --list>') return names[0] ?? a
          if (a.startsWith('http://127.0.0.1:')) return `${modelUrl}/v1`
          return a
        })
        if (step.server) {
          const s = await start(cwd, args, 120_000)
          servers.push(s.proc)
          if (step.server === 'gym') gymUrl = s.url
          else modelUrl = s.url
          log.push(`${args.join(' ')} → listening on ${s.url}`)
          continue
        }
        const r = await run(cwd, args, 600_000)
        log.push(`${args.join(' ')} → exit ${r.code} in ${(r.ms / 1000).toFixed(1)} s`)
        if (r.code !== 0) throw new Error(`tour step failed: searchgym ${args.join(' ')} → exit ${r.code}\n${r.stderr.slice(-800)}\nsteps so far:\n${log.join('\n')}`)
        if (args[0] === 'train') quick = r.stdout
        if (args[0] === 'world' && args[1] === 'show' && args.includes('--list')) names = r.stdout.trim().split('\n').map((l) => l.split('\t')[0])
      }
      process.stdout.write(`README tour on the tiny world:\n  ${log.join('\n  ')}\n`)
      expect(names.length).toBeGreaterThan(0)
      // The two servers the tour starts answer on the URLs they printed.
      expect((await fetch(`${gymUrl}/health`)).status).toBe(200)
      const models = (await (await fetch(`${modelUrl}/v1/models`)).json()) as { data: { id: string }[] }
      expect(models.data.map((m) => m.id)).toContain('tiny-paper')
      // The local-model run scored every question: none lost to the endpoint, each ended by the env or its context.
      const recs = readFileSync(join(cwd, 'runs/tiny/trajectories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { status: string; stopReason: string | null; infra: { networkErrors: number } })
      expect(recs).toHaveLength(2)
      expect(recs.map((r) => r.status)).toEqual(['ok', 'ok'])
      for (const r of recs) expect(['answer', 'max_turns', 'max_tokens', 'context']).toContain(r.stopReason)
      const summary = JSON.parse(readFileSync(join(cwd, 'runs/tiny/summary.json'), 'utf8')) as { questions: number; endpoint: { failedQuestions: number } }
      expect([summary.questions, summary.endpoint.failedQuestions]).toEqual([2, 0])
      // compare paired both (the oracle run scored them too).
      expect(readFileSync(join(cwd, 'runs/compare/compare.md'), 'utf8')).toContain('`tiny`: 2 paired questions')
      // The quick training finished and printed its held-out result (whatever the numbers are).
      expect(quick).toMatch(/^held-out F1 \(\d+ questions\): start [\d.]+% → trained [\d.]+% after \d+ GRPO steps \(\d+ optimizer steps\); paired gain [+-][\d.]+ pp \[95% CI /m)
    } finally {
      for (const p of servers) await stop(p)
      rmSync(cwd, { recursive: true, force: true })
    }
  }, 1_800_000)
})
