// tests/experiment: `searchgym experiment run` end to end through the real CLI on tiny worlds (curriculum/experiments/
// tiny.json: two training worlds and one never-trained evaluation world of the tiny preset, the tiny model, SFT on 4
// demonstrations, two arms × two seeds × two GRPO steps, two evaluation sets) — the uninterrupted run writes the
// report; a run SIGKILLed inside its first GRPO run (a real child process) resumes to the same report.json, report.md
// and SVGs, bit for bit, with the same run folders; the world pool routes every question to its own world; held-out
// worlds sharing a seed with a training world are refused; bad experiment files are one-line errors.
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkHeldOutWorlds, WorldPool } from '../curriculum'
import { runCli } from './helpers/cli-process'
import { holdAtPoint } from './helpers/hold'

const LONG = 600_000
const BIN = fileURLToPath(new URL('../bin/searchgym.mjs', import.meta.url))
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const root = mkdtempSync(join(tmpdir(), 'sg-experiment-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

// The shipped tiny experiment with its world cache in this test's folder (both experiments reuse the built worlds).
const tiny = JSON.parse(readFileSync(join(ROOT, 'curriculum/experiments/tiny.json'), 'utf8')) as Record<string, Record<string, unknown>>
const spec = join(root, 'tiny.json')
writeFileSync(spec, JSON.stringify({ ...tiny, worlds: { ...tiny.worlds, cache: join(root, 'worlds') } }))
const ref = join(root, 'ref')
const REPORT_FILES = ['report.json', 'report.md', 'curves.svg', 'gains.svg']
const RUNS = ['two-stage-s0', 'two-stage-s1', 'mixed-s0', 'mixed-s1']

interface Report {
  runsDone: number
  runsTotal: number
  sets: { set: string; questions: number; arms: { arm: string; seedF1: Record<string, number> }[]; between: unknown[] }[]
  curves: Record<string, { step: number }[]>
}

describe('searchgym experiment (tiny worlds, tiny model)', () => {
  it('runs two arms × two seeds × two steps end to end: worlds, start, runs, benches, one report', async () => {
    const r = await runCli(['experiment', 'run', spec, '--out', ref], LONG)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/experiment tiny: 21 phases run, 0 found done/)
    // Progress lines name the phase, its index and (once times are known) an ETA; train runs show their steps.
    expect(r.stderr).toMatch(/experiment tiny: \[9\/21\] train:two-stage-s0/)
    expect(r.stderr).toMatch(/two-stage-s0: step 2\/2/)
    expect(r.stderr).toMatch(/\(ETA \d+ s\)/)
    for (const f of REPORT_FILES) expect(existsSync(join(ref, f))).toBe(true)
    const rep = JSON.parse(readFileSync(join(ref, 'report.json'), 'utf8')) as Report
    expect([rep.runsDone, rep.runsTotal]).toEqual([4, 4])
    expect(rep.sets.map((s) => s.set)).toEqual(['unseen', 'searchgymbench'])
    expect(rep.sets[0].questions).toBe(6)
    expect(rep.sets[0].arms.map((a) => [a.arm, Object.keys(a.seedF1)])).toEqual([['two-stage', ['s0', 's1']], ['mixed', ['s0', 's1']]])
    expect(rep.sets[0].between).toHaveLength(1)
    expect(Object.keys(rep.curves).sort()).toEqual([...RUNS].sort())
    for (const run of RUNS) expect(rep.curves[run].map((m) => m.step)).toEqual([1, 2])
    const md = readFileSync(join(ref, 'report.md'), 'utf8')
    expect(md).toContain('| two-stage | s0 ')
    expect(md).toContain('gain vs start')
    expect(readFileSync(join(ref, 'curves.svg'), 'utf8')).toMatch(/^<svg/)
    // The evaluation world was never trained on: the unseen set's ids are its questions only.
    const unseen = JSON.parse(readFileSync(join(ref, 'eval', 'unseen.json'), 'utf8')) as { worlds: string[] }
    expect(unseen.worlds).toEqual([expect.stringMatching(/-s7$/)])
    // Every run trained from the shared start on both training worlds (a pool: ids WORLD/ID).
    const cfg = JSON.parse(readFileSync(join(ref, 'runs', 'mixed-s1', 'config.json'), 'utf8')) as { world: string[]; adapter: string; train: { seed: number } }
    expect(cfg.world.map((w) => w.slice(-3))).toEqual(['-s5', '-s6'])
    // The start is the last SFT phase's adapter (phase 1: the first turns alone, from the first phase's adapter).
    expect(cfg.adapter).toBe('../../start/phase-1/adapter') // relative to the run folder
    expect((JSON.parse(readFileSync(join(ref, 'start', 'phase-1', 'sft.json'), 'utf8')) as { turn: number; initAdapter: string })).toMatchObject({ turn: 1, initAdapter: '../adapter' })
    expect(cfg.train.seed).toBe(1)
    // At this size the start never writes a valid turn (every group is constant, so no GRPO update happens: the
    // update itself is covered by tests/train-cli.test.ts with its fixture sampler); the reward is the arm's em+format.
    const m = JSON.parse(readFileSync(join(ref, 'runs', 'mixed-s0', 'metrics.jsonl'), 'utf8').split('\n')[0]) as { rewardMean: number }
    expect(m.rewardMean).toBeCloseTo(-0.1, 9)
  }, LONG)

  it('an experiment SIGKILLed inside its first GRPO run resumes to the same report, bit for bit', async () => {
    const out = join(root, 'killed')
    // Held (holdAtPoint) inside two-stage-s0's step 2, after its metrics line and before its checkpoint.
    const p = spawn(process.execPath, [BIN, 'experiment', 'run', spec, '--out', out], { cwd: ROOT, env: { ...process.env, ...holdAtPoint('train-step-2') } })
    await new Promise<void>((resolve, reject) => {
      let err = ''
      p.stderr.on('data', (d: Buffer) => {
        err += d.toString()
        if (err.includes('test hold in stage train-step-2')) {
          p.kill('SIGKILL')
          resolve()
        }
      })
      p.on('exit', (code) => reject(new Error(`the experiment ended (code ${code}) before it could be killed: ${err.trim().split('\n').pop()}`)))
    })
    await new Promise((r) => p.on('close', r))
    const done = (JSON.parse(readFileSync(join(out, 'progress.json'), 'utf8')) as { done: string[] }).done
    expect(done).toContain('bench:start@unseen')
    expect(done).not.toContain('train:two-stage-s0')
    expect(existsSync(join(out, 'report.json'))).toBe(false)
    const r = await runCli(['experiment', 'run', spec, '--out', out], LONG)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/experiment tiny: 13 phases run, 8 found done/)
    for (const f of REPORT_FILES) expect(readFileSync(join(out, f)).equals(readFileSync(join(ref, f)))).toBe(true)
    for (const run of RUNS) {
      expect(readFileSync(join(out, 'runs', run, 'metrics.jsonl')).equals(readFileSync(join(ref, 'runs', run, 'metrics.jsonl')))).toBe(true)
      expect(readFileSync(join(out, 'runs', run, 'adapter', 'adapter_model.safetensors')).equals(readFileSync(join(ref, 'runs', run, 'adapter', 'adapter_model.safetensors')))).toBe(true)
    }
    // experiment report re-renders the same report from the folders alone.
    rmSync(join(out, 'report.md'))
    const rr = await runCli(['experiment', 'report', out])
    expect(rr.code).toBe(0)
    expect(readFileSync(join(out, 'report.md')).equals(readFileSync(join(ref, 'report.md')))).toBe(true)
  }, LONG)

  it('a world pool serves every question from its own world; held-out worlds may not share a seed with training worlds', async () => {
    const rep = JSON.parse(readFileSync(join(ref, 'runs', 'two-stage-s0', 'config.json'), 'utf8')) as { world: string[] }
    const [w5, w6] = rep.world.map((w) => resolve(ref, 'runs', 'two-stage-s0', w)) // recorded relative to the run folder
    const w7 = (JSON.parse(readFileSync(join(ref, 'eval', 'unseen.json'), 'utf8')) as { worlds: string[] }).worlds.map((n) => join(root, 'worlds', n))[0]
    const pool = await WorldPool.open([w5, w6])
    try {
      const qs = pool.listQa('train')
      const names = pool.members.map((m) => m.name)
      expect(new Set(qs.map((q) => q.id.split('/')[0]))).toEqual(new Set(names))
      for (const q of [qs[0], qs[qs.length - 1]]) {
        const m = pool.memberOf(q)
        expect(pool.worldFor(q)).toBe(m.gym)
        // Its first gold document is a page of its own world.
        expect(await m.gym.access(q.docs[0])).toBeDefined()
        expect(m.gym.qa(pool.localId(q))?.question).toBe(q.question)
      }
    } finally {
      await pool.close()
    }
    // bench run over a pool (repeated --world): the oracle solves questions of both worlds, each in its own world.
    const b = await runCli(['bench', 'run', '--world', w5, '--world', w6, '--split', 'bench', '--policy', 'oracle', '--concurrency', '1', '--out', join(root, 'bench-pool'), '--quiet'])
    expect(b.code).toBe(0)
    const recs = readFileSync(join(root, 'bench-pool', 'trajectories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; f1: number })
    expect(new Set(recs.map((r) => r.id.split('/')[0]))).toEqual(new Set([w5, w6].map((w) => w.split('/').pop())))
    expect(recs.every((r) => r.f1 === 1)).toBe(true)
    // train sft --worlds RECIPE: the recipe's worlds are the experiment's cached ones (same preset, config and seeds:
    // nothing is built), SFT plays demonstrations of both.
    const recipe = join(root, 'recipe.json')
    writeFileSync(recipe, JSON.stringify({ preset: 'tiny', seeds: [5, 6], cache: 'worlds' }))
    const sftOut = join(root, 'sft-pool')
    const sft = await runCli(['train', 'sft', '--worlds', recipe, '--model', join(ref, 'model'), '--out', sftOut, '--questions', '2', '--epochs', '1', '--batch', '2', '--lora-rank', '4', '--held-out', '4', '--backend', 'auto', '--quiet'])
    expect(sft.code).toBe(0)
    const sftInfo = JSON.parse(readFileSync(join(sftOut, 'sft.json'), 'utf8')) as { world: string[]; identity: { world: string[] } }
    expect(sftInfo.world).toEqual([w5, w6].map((w) => relative(sftOut, w)))
    expect(sftInfo.identity.world).toHaveLength(2)
    const held = JSON.parse(readFileSync(join(sftOut, 'heldout.json'), 'utf8')) as string[]
    expect(held.every((id) => /^tiny-[0-9a-f]{8}-s[56]\//.test(id))).toBe(true)
    expect(() => checkHeldOutWorlds([w5, w6], [w7])).not.toThrow()
    // A copy of a training world (same seed, same content) as an evaluation world is refused with one line.
    const copy = join(root, 'copy-s5')
    cpSync(w5, copy, { recursive: true })
    expect(() => checkHeldOutWorlds([w5, w6], [copy])).toThrow(/shares seed 5 with training world/)
  }, LONG)

  it('bad experiment files are one-line errors with a non-zero exit; another file in the same folder is refused', async () => {
    const write = (name: string, v: object) => {
      const f = join(root, name)
      writeFileSync(f, JSON.stringify(v))
      return f
    }
    const cases: [object, RegExp][] = [
      [{ ...tiny, armz: [] }, /unknown config key 'experiment.armz'/],
      [{ ...tiny, arms: [{ name: 'a', curriculum: 'two-stage', rewrd: 'f1' }] }, /unknown config key 'experiment.arms\[0\].rewrd'/],
      [{ ...tiny, worlds: { ...tiny.worlds, evalSeeds: [6] } }, /evalSeeds share seed 6 with trainSeeds/],
      [{ ...tiny, arms: [{ name: 'a', curriculum: 'four-stage' }] }, /unknown curriculum preset 'four-stage'/],
      [{ ...tiny, train: { ...tiny.train, stepz: 2 } }, /unknown config key 'experiment.train.stepz'/],
    ]
    for (const [v, msg] of cases) {
      const r = await runCli(['experiment', 'run', write('bad.json', v), '--out', join(root, 'bad')])
      expect(r.code).not.toBe(0)
      expect(r.stderr).toMatch(msg)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
    }
    expect(existsSync(join(root, 'bad'))).toBe(false)
    const other = await runCli(['experiment', 'run', write('other.json', { ...tiny, worlds: { ...tiny.worlds, cache: join(root, 'worlds') }, seeds: [0] }), '--out', ref])
    expect(other.code).not.toBe(0)
    expect(other.stderr).toMatch(/holds another experiment/)
  }, LONG)
})
