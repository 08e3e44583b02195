// tests/engine-profile-registry: a fourth engine is one module and one registerEngine call — registered here (a
// made-up trainer, "toy-rl", with its own TSV rows, observation format, prompt and launch commands), then `world export
// --format toy-rl --curriculum two-stage` and `gym check --format toy-rl` (the real commands, in process, on the run's
// tiny world) and the curriculum script pick it up and use its behaviour, not another engine's. A profile missing a
// member does not compile (the @ts-expect-error below is checked by tsc).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import yargs from 'yargs'
import type { Command } from '../infra/cli-util'
import { checkCommand } from '../agent/cli/check'
import { exportTuner } from '../agent/oracle/profile-check'
import { exportStager } from '../curriculum'
import { exportCommandWith } from '../world/cli/export'
import { qaExportFormats } from '../world/qa/export'
import { curriculumLaunch, engineProfile, engineProfileNames, observationText, registerEngine, unregisterEngine, type EngineProfile } from '../world'
import { sharedTinyWorld } from './helpers/shared-world'

const calls = { prompt: 0, render: 0, cut: 0, rows: 0 }

/** The whole fourth engine. */
const toy: EngineProfile = {
  name: 'toy-rl',
  title: 'ToyRL',
  obsUnit: 'chars',
  obsKeep: 'head',
  stock: { toolCalls: 12, topk: 3, obs: 6000, docChars: 0, context: 200_000, access: false },
  sources: { toolCalls: 'toy', topk: 'toy', obs: 'toy', docChars: 'toy', context: 'toy', access: 'toy' },
  render: '"== {title} ==\\n{text}" joined by "\\n"',
  stockTrainBatch: 64,
  ladder: { kind: 'context', contexts: [400_000] },
  prompt: (q) => {
    calls.prompt++
    return `TOY QUESTION: ${q}`
  },
  renderObservation(docs) {
    calls.render++
    const o = observationText()
    const blocks = docs.map((d, i) => {
      const lines = d.contents.split('\n')
      if (i > 0) o.push('\n')
      const head = o.push(`== ${lines[0]} ==\n`)
      return { url: d.url, title: lines[0], head, body: o.push(lines.slice(1).join('\n')) }
    })
    return { text: o.text(), blocks }
  },
  cutObservation(text, l, count) {
    calls.cut++
    const n = Math.min(text.length, l.obs)
    return { kept: [[0, n]], tokens: count(text.slice(0, n)) }
  },
  launchFlags: (l, b) => [`--batch ${b.train}`, `--max-calls ${l.toolCalls}`, `--context ${l.context}`],
  dataExt: 'tsv',
  async writeRows(path, qas, split) {
    calls.rows++
    writeFileSync(path, qas.map((q) => `${q.id}\t${split}\t${q.question}\t${q.answer}\n`).join(''))
  },
  writeExtras(outDir, limits) {
    writeFileSync(join(outDir, 'toy.yaml'), `topk: ${limits?.topk ?? 3}\n`)
    return { 'toy.yaml': 0 }
  },
  phaseData: () => [],
  launchSnippet: (plan) => `#!/bin/sh\n# toy launch (${plan.unit}, ${plan.trainRows} rows)\nDATA=\${DATA:-$(dirname "$0")}\ntoyrl train --data $DATA/train.tsv ${plan.flags.join(' ')}\n`,
  extraLaunches: () => ({}),
  curriculumLaunch: (c, plan) =>
    `#!/bin/sh\nDATA=\${DATA:-$(dirname "$0")}\n${c.stages.map((s, i) => `toyrl train --phase ${i + 1} --rows ${plan.phaseRows[i]} --data $DATA/stage${i + 1}-${s.name}.tsv${i > 0 ? ' --resume last' : ''} ${plan.flags.join(' ')}`).join('\n')}\n`,
}

// @ts-expect-error a profile without launchFlags (or any other member) does not compile
const incomplete: EngineProfile = (({ launchFlags: _, ...rest }) => rest)(toy)
void incomplete

/** Run one command in process; returns what it wrote to stdout. */
async function run(cmd: Command, args: string[]): Promise<string> {
  const write = process.stdout.write.bind(process.stdout)
  let out = ''
  process.stdout.write = ((s: string | Uint8Array) => ((out += String(s)), true)) as typeof process.stdout.write
  try {
    await yargs([]).command(cmd).strict().exitProcess(false).parseAsync(args)
  } finally {
    process.stdout.write = write
  }
  return out
}

describe('a fourth engine registered from one file', () => {
  let dir: string
  let out: string
  beforeAll(async () => {
    dir = (await sharedTinyWorld()).dir
    out = mkdtempSync(join(tmpdir(), 'toy-rl-'))
    registerEngine(toy)
  }, 300_000)
  afterAll(() => {
    unregisterEngine('toy-rl')
    rmSync(out, { recursive: true, force: true })
  })

  it('is known wherever engines are listed; a second registration of a name is refused', () => {
    expect(engineProfileNames()).toEqual(['search-r1', 'verl', 'asearcher', 'toy-rl'])
    expect(qaExportFormats()).toContain('toy-rl')
    expect(() => engineProfile('nope')).toThrow(/known: search-r1, verl, asearcher, toy-rl/)
    expect(() => registerEngine(toy)).toThrow(/already taken/)
    expect(() => registerEngine({ ...toy, name: 'jsonl' })).toThrow(/already taken/)
  })

  it('world export --format toy-rl --curriculum two-stage writes its rows, configs and launch scripts', async () => {
    const stdout = await run(exportCommandWith(exportTuner, exportStager), ['export', dir, '--format', 'toy-rl', '--curriculum', 'two-stage', '--out', out])
    // Its own data extension is counted as data (rows), its config by name.
    expect(stdout).toMatch(/\d+ train\.tsv, \d+ test\.tsv, toy\.yaml, \d+ stage1-stage1\.tsv, \d+ stage2-stage2\.tsv, launch-toy-rl-two-stage\.sh, launch-toy-rl\.sh/)
    expect(calls.rows).toBe(4)
    const train = readFileSync(join(out, 'train.tsv'), 'utf8').trim().split('\n')
    expect(train[0].split('\t')[1]).toBe('train')
    expect(readFileSync(join(out, 'toy.yaml'), 'utf8')).toBe('topk: 3\n')
    // The oracle ran through its render, cut and prompt for the tuning; its flags carry its own stock batch cap.
    expect(calls.render).toBeGreaterThan(0)
    expect(calls.cut).toBe(calls.render)
    expect(calls.prompt).toBeGreaterThan(0)
    const rec = JSON.parse(readFileSync(join(out, 'engine-profile.json'), 'utf8'))
    expect(rec.profile).toBe('toy-rl')
    expect(rec.batches.train).toBeLessThanOrEqual(64)
    const launch = readFileSync(join(out, 'launch-toy-rl.sh'), 'utf8')
    expect(launch).toContain(`toyrl train --data $DATA/train.tsv --batch ${rec.batches.train} --max-calls ${rec.shipped.limits.toolCalls}`)
    expect(launch).not.toMatch(/main_ppo|areal|gym serve/)
    expect(launch).not.toContain(out)
    const phases = readFileSync(join(out, 'launch-toy-rl-two-stage.sh'), 'utf8')
    const rows = [1, 2].map((i) => readFileSync(join(out, `stage${i}-stage${i}.tsv`), 'utf8').trim().split('\n').length)
    expect(phases).toContain(`toyrl train --phase 2 --rows ${rows[0] + rows[1]} --data $DATA/stage2-stage2.tsv --resume last`)
    const plan = { flags: toy.launchFlags(rec.shipped.limits, rec.batches), limits: rec.shipped.limits, batches: rec.batches, unit: 'page' as const, trainRows: rec.rows.train, worldHash: '', phaseRows: [rows[0], rows[0] + rows[1]] }
    expect(phases).toBe(curriculumLaunch(toy, exportStager('two-stage', 100), plan))
  }, 300_000)

  it('gym check --format toy-rl runs the oracle through its limits, render and prompt', async () => {
    const before = { ...calls }
    const stdout = await run(checkCommand, ['check', dir, '--format', 'toy-rl', '--limit', '12'])
    expect(stdout).toMatch(/^oracle under toy-rl limits \(toolCalls 12, topk 3, obs 6000, docChars 0, context 200000, access false\) on .*: \d+\/12 solvable/)
    expect(calls.prompt - before.prompt).toBe(12)
    expect(calls.render - before.render).toBeGreaterThan(0)
  }, 300_000)
})
