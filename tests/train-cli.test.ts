// tests/train-cli: `searchgym train` end to end through the real CLI on a tiny built world and a tiny random model
// (world tokenizer): a two-step GRPO run (the CI run) with the TEST FIXTURE sampler (scripted replies carrying the
// model's real log-probs, so groups have mixed rewards and real updates happen); a run SIGKILLed mid-step resumes
// from its checkpoint and ends with metrics.jsonl and adapter bytes equal to the uninterrupted run's — with the issue-34
// update keys on (an SFT-style start adapter as the KL reference, mini-batches × epochs, log-probs at T 0.8, overlong
// filtering), so the frozen reference, the shuffles and the filter are all part of what resume must reproduce; `train report`
// writes report.md with SVG curves; a larger --steps lengthens a finished run to what one longer run gives; bad input is a one-line error with a non-zero exit.
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cliEntry, runCli } from './helpers/cli-process'
import { Learner } from '../infra/engine/learner'
import { loadModel } from '../infra/engine/model'
import { scriptedRepliesEnv } from './fixtures/scripted-replies'
import { holdAtPoint } from './helpers/hold'

const LONG = 600_000
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const root = mkdtempSync(join(tmpdir(), 'sg-train-cli-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const world = join(root, 'world')
const model = join(root, 'model')
const cfgFile = join(root, 'ci.json')
const replies = join(root, 'replies.json')
const start = join(root, 'start-adapter')
// Every `train` this file starts plays the scripted replies (TEST FIXTURE: started from the test-only entry that injects
// them into the CLI, tests/fixtures/scripted-cli.mjs; no flag or env var of the product reaches it).
Object.assign(process.env, scriptedRepliesEnv(replies))
// CI size: 2 steps × 2 questions × N = 2, one turn of at most 16 tokens; em+format gives answered 0 / unanswered −0.1.
// The update keys of issue 34 at non-default values: unanswered episodes end on the turn budget and are filtered out;
// the answered ones train in mini-batches of 1 for 2 epochs, with a KL to the start adapter, at temperature 0.8.
const CI = {
  steps: 2, groupSize: 2, batchSize: 4, microBatch: 2, lora: { rank: 4, alpha: 8 }, evalEvery: 0, heldOut: 0, checkpointEvery: 1,
  klBeta: 0.01, klReference: 'start', ppoMiniBatch: 1, ppoEpochs: 2, temperature: 0.8, overlongFilter: true, refillRounds: 0, lr: 0.01, gym: { reward: 'em+format', budgets: { maxTurns: 1, maxResponseTokens: 16 } },
}

function trainArgs(out: string, curriculum = 'two-stage'): string[] {
  return ['train', '--world', world, '--model', model, '--adapter', start, '--curriculum', curriculum, '--out', out, '--config', cfgFile, '--quiet']
}

beforeAll(async () => {
  const b = await runCli(['world', 'build', '--preset', 'tiny', '--seed', '5', '--out', world, '--quiet'], 300_000)
  expect(b.code).toBe(0)
  const m = await runCli(['model', 'init', '--preset', 'tiny', '--tokenizer', `world:${world}`, '--out', model, '--seed', '0'], 300_000)
  expect(m.code).toBe(0)
  writeFileSync(cfgFile, JSON.stringify(CI))
  // A non-zero start adapter (one SFT-like step), as `train sft` would hand to GRPO.
  const l = new Learner(loadModel(model), { lora: { rank: 4, alpha: 8, targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] }, seed: 1 })
  l.forwardBackward([{ inputTokens: [1, 2, 3, 4, 5, 6], targetTokens: [2, 3, 4, 5, 6, 7] }], { name: 'cross_entropy' })
  l.optimStep({ lr: 0.05 })
  l.saveAdapter(start)
  writeFileSync(replies, JSON.stringify(['<answer>unknown</answer>', 'I am not sure.']))
}, LONG)

const lines = (f: string) => readFileSync(f, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number>)

describe('searchgym train (tiny world, tiny model, fixture sampler)', () => {
  const ref = join(root, 'ref')
  it('runs two GRPO steps end to end: metrics, timing, checkpoints, final adapter; the adapter moved', async () => {
    const r = await runCli(trainArgs(ref), 600_000)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^train: 2 steps, \d+ optimizer steps; adapter /)
    const m = lines(join(ref, 'metrics.jsonl'))
    expect(m.map((x) => x.step)).toEqual([1, 2])
    expect(m.reduce((a, x) => a + x.groupsKept, 0)).toBeGreaterThan(0)
    expect(m.some((x) => x.gradNorm > 0 && x.trainedTokens > 0)).toBe(true)
    for (const x of m) expect(x.all0 + x.all1 + x.constant + x.groupsKept).toBe(x.questions)
    // The update keys acted: unanswered (turn-budget) episodes filtered, several optimizer steps, a KL to the start.
    expect(m.some((x) => x.overlongFiltered > 0)).toBe(true)
    expect(m.some((x) => x.optimizerSteps > 1)).toBe(true)
    expect(m.some((x) => x.kl > 0)).toBe(true)
    expect(lines(join(ref, 'timing.jsonl')).map((x) => x.step)).toEqual([1, 2])
    expect(existsSync(join(ref, 'adapter', 'adapter_model.safetensors'))).toBe(true)
    expect(existsSync(join(ref, 'checkpoints', 'step-000002', 'optimizer.safetensors'))).toBe(true)
    const rep = await runCli(['train', 'report', ref])
    expect(rep.code).toBe(0)
    expect(readFileSync(join(ref, 'report.md'), 'utf8')).toContain('![reward (mean)](curve-rewardMean.svg)')
    expect(readFileSync(join(ref, 'curve-rewardMean.svg'), 'utf8')).toMatch(/^<svg/)
  }, LONG)

  it('a run SIGKILLed mid-step resumes to the same metrics.jsonl and adapter, bit for bit', async () => {
    const out = join(root, 'killed')
    const metrics = join(out, 'metrics.jsonl')
    // Held (holdAtPoint) right after step 2's metrics line is written and before its checkpoint: the kill
    // leaves a metrics line whose step has no checkpoint, which the resume must cut back.
    const p = spawn(process.execPath, [cliEntry(), ...trainArgs(out)], { cwd: ROOT, env: { ...process.env, ...holdAtPoint('train-step-2') } })
    const killedAt = await new Promise<number>((resolve, reject) => {
      let err = ''
      p.stderr.on('data', (d: Buffer) => {
        err += d.toString()
        if (err.includes('test hold in stage train-step-2')) {
          p.kill('SIGKILL')
          resolve(readFileSync(metrics, 'utf8').trim().split('\n').length)
        }
      })
      p.on('exit', (code) => reject(new Error(`the run ended (code ${code}) before it could be killed: ${err.trim().split('\n').pop()}`)))
    })
    await new Promise((r) => p.on('close', r))
    expect(killedAt).toBe(2)
    expect(existsSync(join(out, 'checkpoints', 'step-000002'))).toBe(false)
    expect(existsSync(join(out, 'adapter'))).toBe(false)
    const r = await runCli(trainArgs(out), 600_000)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('resumed from step 1')
    // Loud even under --quiet: the resume names its step.
    expect(r.stderr).toMatch(/^train: resuming from step 1 \(/m)
    expect(readFileSync(metrics)).toEqual(readFileSync(join(ref, 'metrics.jsonl')))
    expect(readFileSync(join(out, 'adapter', 'adapter_model.safetensors')).equals(readFileSync(join(ref, 'adapter', 'adapter_model.safetensors')))).toBe(true)
  }, LONG)

  it('a run SIGKILLed before its first checkpoint says "no checkpoint yet: starting over" and ends as the uninterrupted run', async () => {
    const out = join(root, 'killed-early')
    const p = spawn(process.execPath, [cliEntry(), ...trainArgs(out)], { cwd: ROOT, env: { ...process.env, ...holdAtPoint('train-step-1') } })
    await new Promise<void>((resolve, reject) => {
      let err = ''
      p.stderr.on('data', (d: Buffer) => {
        err += d.toString()
        if (err.includes('test hold in stage train-step-1')) {
          p.kill('SIGKILL')
          resolve()
        }
      })
      p.on('exit', (code) => reject(new Error(`the run ended (code ${code}) before it could be killed: ${err.trim().split('\n').pop()}`)))
    })
    await new Promise((r) => p.on('close', r))
    expect(existsSync(join(out, 'checkpoints', 'step-000001'))).toBe(false)
    const r = await runCli(trainArgs(out), 600_000)
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/^train: no checkpoint yet: starting over/m)
    expect(r.stdout).toMatch(/^train: 2 steps, \d+ optimizer steps; adapter /)
    expect(readFileSync(join(out, 'metrics.jsonl'))).toEqual(readFileSync(join(ref, 'metrics.jsonl')))
  }, LONG)

  it('train budgets: the oracle solves every stage-1 question within 16 turns, none within 2; hop-scaled budgets grow with hops', async () => {
    const write = (name: string, c: object) => {
      const f = join(root, name)
      writeFileSync(f, JSON.stringify(c))
      return f
    }
    const parse = (s: string) => [...s.matchAll(/^(\w+): oracle solves (\d+)\/(\d+)/gm)].map((m) => ({ stage: m[1], solved: Number(m[2]), total: Number(m[3]) }))
    const wide = await runCli(['train', 'budgets', '--world', world, '--config', write('b16.json', { gym: { budgets: { maxTurns: 16 } } }), '--out', join(root, 'b16-report.json')])
    expect(wide.code).toBe(0)
    const w = parse(wide.stdout)
    expect(w.map((x) => x.stage)).toEqual(['stage1', 'stage2'])
    expect(w[0].solved).toBe(w[0].total)
    const narrow = parse((await runCli(['train', 'budgets', '--world', world, '--config', write('b2.json', { gym: { budgets: { maxTurns: 2 } } })])).stdout)
    expect(narrow.every((x) => x.solved === 0)).toBe(true)
    const hop = parse((await runCli(['train', 'budgets', '--world', world, '--config', write('b2h.json', { gym: { budgets: { maxTurns: 2, turnsPerHop: 2 } } })])).stdout)
    expect(hop[0].solved).toBeGreaterThan(0)
    const rep = JSON.parse(readFileSync(join(root, 'b16-report.json'), 'utf8')) as { stages: { unsolved: unknown[]; solved: number; questions: number }[] }
    expect(rep.stages[1].unsolved).toHaveLength(rep.stages[1].questions - rep.stages[1].solved)
  }, LONG)

  it('bad input: unknown preset (even a prototype name), unknown config key, other config on resume — one line, exit ≠ 0', async () => {
    for (const [name, msg] of [
      ['toString', /unknown curriculum preset 'toString'/],
      ['__proto__', /unknown curriculum preset '__proto__'/],
      ['nope', /unknown curriculum preset 'nope'; use one of: two-stage/],
    ] as const) {
      const r = await runCli(trainArgs(join(root, `bad-${name}`), name))
      expect(r.code).not.toBe(0)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(msg)
    }
    const badCfg = join(root, 'bad.json')
    writeFileSync(badCfg, JSON.stringify({ ...CI, stepz: 3 }))
    const r = await runCli(['train', '--world', world, '--model', model, '--out', join(root, 'bad2'), '--config', badCfg])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/stepz/)
    const again = await runCli([...trainArgs(ref), '--steps', '2', '--no-access'])
    expect(again.code).not.toBe(0)
    expect(again.stderr.trim().split('\n')).toHaveLength(1)
    expect(again.stderr).toMatch(/another config/)
    const shorter = await runCli([...trainArgs(ref), '--steps', '1'])
    expect(shorter.code).not.toBe(0)
    expect(shorter.stderr.trim().split('\n')).toHaveLength(1)
    expect(shorter.stderr).toMatch(/holds a run of 2 steps; --steps 1 would shorten it/)
  }, LONG)

  it('a run folder copied with its inputs, or moved alone, still reports its world and start; moved alone it resumes with the same flags', async () => {
    // config.json and the adapter record paths relative to the run folder, never absolute; identity says what they held.
    const cfg = JSON.parse(readFileSync(join(ref, 'config.json'), 'utf8')) as { world: string; model: string; adapter: string; identity: { world: string } }
    expect(cfg).toMatchObject({ world: '../world', model: '../model', adapter: '../start-adapter' })
    expect(readFileSync(join(ref, 'config.json'), 'utf8')).not.toContain(root)
    expect(JSON.parse(readFileSync(join(ref, 'adapter', 'adapter_config.json'), 'utf8')).base_model_name_or_path).toBe('../../model')
    const hash = (JSON.parse((await runCli(['world', 'stats', world, '--json'])).stdout) as { hash: string }).hash
    expect(cfg.identity.world).toBe(hash)
    // Copied with its inputs to another root: the report resolves them from there.
    const other = mkdtempSync(join(tmpdir(), 'sg-train-moved-'))
    try {
      for (const d of ['world', 'model', 'start-adapter', 'ref']) cpSync(join(root, d), join(other, d), { recursive: true })
      expect((await runCli(['train', 'report', join(other, 'ref')])).code).toBe(0)
      const rep = readFileSync(join(other, 'ref', 'report.md'), 'utf8')
      expect(rep).toContain(`- World \`../world\`: content hash ${hash}`)
      expect(rep).toContain('- Model `../model`\n')
      expect(rep).toContain('- Start adapter `../start-adapter`\n')
      // Moved alone (one level deeper, away from its inputs): the report names what it started from by content hash; the
      // same flags resume it (its inputs recognised by content).
      const alone = join(other, 'deep', 'ref')
      cpSync(ref, alone, { recursive: true })
      expect((await runCli(['train', 'report', alone])).code).toBe(0)
      expect(readFileSync(join(alone, 'report.md'), 'utf8')).toContain(`- World \`../world\`: not found from here; the run started from a world with content hash ${hash}`)
      const r = await runCli([...trainArgs(alone), '--steps', '2'], LONG)
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(/^train: 2 steps \(resumed from step 2\)/)
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  }, LONG)

  it('config.json names no test fixture; a folder written before that (fixtureReplies recorded) resumes with the same flags', async () => {
    const cfg = JSON.parse(readFileSync(join(ref, 'config.json'), 'utf8')) as Record<string, unknown> & { identity: Record<string, unknown> }
    expect(Object.keys(cfg)).toEqual(['world', 'model', 'adapter', 'curriculum', 'backend', 'train', 'identity'])
    expect(Object.keys(cfg.identity)).toEqual(['world', 'model', 'adapter'])
    const old = join(root, 'old-folder')
    cpSync(ref, old, { recursive: true })
    // A folder of before identity: fixtureReplies and the absolute origin recorded.
    const { train, identity: _identity, ...head } = cfg
    writeFileSync(join(old, 'config.json'), JSON.stringify({ ...head, fixtureReplies: null, train, origin: { world, model, adapter: start, fixtureReplies: null } }, null, 2) + '\n')
    const r = await runCli(trainArgs(old), LONG)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^train: 2 steps \(resumed from step 2\)/)
  }, LONG)

  it('a larger --steps alone lengthens a finished run: metrics and adapter equal one run of that length', async () => {
    const ext = join(root, 'ext')
    cpSync(ref, ext, { recursive: true })
    const r = await runCli([...trainArgs(ext), '--steps', '3'], 600_000)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^train: 3 steps \(resumed from step 2\), \d+ optimizer steps; adapter /)
    const one = join(root, 'three')
    expect((await runCli([...trainArgs(one), '--steps', '3'], 600_000)).code).toBe(0)
    expect(lines(join(ext, 'metrics.jsonl')).map((x) => x.step)).toEqual([1, 2, 3])
    expect(readFileSync(join(ext, 'metrics.jsonl'), 'utf8')).toBe(readFileSync(join(one, 'metrics.jsonl'), 'utf8'))
    const bytes = (d: string) => readFileSync(join(d, 'adapter', 'adapter_model.safetensors'))
    expect(bytes(ext).equals(bytes(one))).toBe(true)
    expect(bytes(ext).equals(bytes(ref))).toBe(false)
    expect(readFileSync(join(ext, 'config.json'), 'utf8')).toBe(readFileSync(join(one, 'config.json'), 'utf8'))
  }, LONG)
})
