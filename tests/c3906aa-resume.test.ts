// tests/c3906aa-resume: run folders written by c3906aa — before the episode limits moved into gym.budgets — resume on
// this branch (issue 61: "old run folders resume, tested on folders written by c3906aa"). The folders under
// tests/fixtures/c3906aa were made by c3906aa's own CLI (made-by.json says how): four `train` folders (the limits at
// the top of the train config — fixed, hop-scaled, the defaults, and c3906aa's gym.budgets copied up to the top), two
// `bench run` folders (--max-turns) and an experiment's experiment.json and train run config.json (quick-smoke, its
// train and eval limits in the older spelling). The world and model are rebuilt here by this branch's CLI with the
// same presets and seeds — the same world content hash and model fingerprint c3906aa's inputs had — at the relative
// layout the folders recorded (ROOT/world, ROOT/model beside ROOT/RUN), so no recorded path is rewritten. Each folder
// is then run on with the new spelling (and the older one) and must be taken as the same run; a changed limit is
// refused (the control that the comparison is not lax).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli, type CliResult } from './helpers/cli-process'
import { folderFingerprint } from '../infra/recorded-path'

const LONG = 300_000
const FIX = fileURLToPath(new URL('./fixtures/c3906aa', import.meta.url))
const MADE = JSON.parse(readFileSync(join(FIX, 'made-by.json'), 'utf8')) as { world: { hash: string }; model: { fingerprint: string }; experiment: { worldHash: string } }
const root = mkdtempSync(join(tmpdir(), 'sg-c3906aa-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const world = join(root, 'world')
const model = join(root, 'model')
const replies = join(root, 'replies.json')
// `train` plays the scripted replies c3906aa's runs played (TEST FIXTURE: runCli starts the test-only entry for it).
const SCRIPTED = { SEARCHGYM_TEST_REPLIES: replies }
const ANOTHER = 'holds a run with another config'
let worldHash = ''

beforeAll(async () => {
  const w = await runCli(['world', 'build', '--preset', 'tiny', '--seed', '11', '--out', world, '--quiet'], LONG)
  expect(w.code).toBe(0)
  worldHash = /^hash\s+([0-9a-f]{64})$/m.exec(w.stdout)?.[1] ?? ''
  const m = await runCli(['model', 'init', '--preset', 'tiny', '--tokenizer', `world:${world}`, '--out', model, '--seed', '0'], LONG)
  expect(m.code).toBe(0)
  cpSync(join(FIX, 'replies.json'), replies)
}, LONG)

let n = 0
/** A fixture folder copied beside ROOT/world and ROOT/model (where its ../world and ../model point). */
function place(kind: 'train' | 'bench', name: string): string {
  const out = join(root, `${kind}-${name}-${++n}`)
  cpSync(join(FIX, kind, name), out, { recursive: true })
  return out
}

/** The c3906aa runs' train config in the new spelling, with `budgets` as gym.budgets (none: the defaults). */
function newConfig(budgets?: Record<string, number>): string {
  const file = join(root, `train-${++n}.json`)
  const gym = { reward: 'em+format', ...(budgets ? { budgets } : {}) }
  writeFileSync(file, JSON.stringify({ steps: 2, groupSize: 2, batchSize: 2, microBatch: 2, lora: { rank: 4, alpha: 8 }, evalEvery: 0, heldOut: 0, checkpointEvery: 1, refillRounds: 0, gym }))
  return file
}

const train = (out: string, config: string, steps: number): Promise<CliResult> =>
  runCli(['train', '--world', world, '--model', model, '--config', config, '--steps', String(steps), '--backend', 'ts', '--out', out, '--quiet'], LONG, SCRIPTED)

/** Accepted as the same run: exit 0 and no refusal (stderr shown on failure). */
function accepted(r: CliResult): void {
  expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr.trim() }).toEqual({ code: 0, stderr: '' })
}
function refused(r: CliResult, msg: string): void {
  expect(r.code).not.toBe(0)
  expect(r.stderr).toContain(msg)
}
const steps = (dir: string) => readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { step: number }).step)

it("rebuilt inputs are c3906aa's: the world's content hash and the model folder's fingerprint", () => {
  expect(worldHash).toBe(MADE.world.hash)
  // c3906aa's bench run recorded the world it ran on by content.
  expect((JSON.parse(readFileSync(join(FIX, 'bench', 'oracle', 'config.json'), 'utf8')) as { worldId: string }).worldId).toBe(MADE.world.hash)
  expect(folderFingerprint(model)).toBe(MADE.model.fingerprint)
})

describe('train folders written by c3906aa', () => {
  it('old-keys (maxTurns 2, maxTokensPerTurn 16 at the top): the new spelling resumes from its step-1 checkpoint; config.json kept as c3906aa wrote it', async () => {
    const out = place('train', 'old-keys')
    const r = await train(out, newConfig({ maxTurns: 2, maxResponseTokens: 16 }), 1)
    accepted(r)
    expect(r.stdout).toMatch(/^train: 1 steps \(resumed from step 1\)/)
    expect(readFileSync(join(out, 'config.json'), 'utf8')).toBe(readFileSync(join(FIX, 'train', 'old-keys', 'config.json'), 'utf8'))
  }, LONG)

  it('old-keys: another limit is refused (maxTurns 3; maxResponseTokens 17), the folder untouched', async () => {
    const out = place('train', 'old-keys')
    refused(await train(out, newConfig({ maxTurns: 3, maxResponseTokens: 16 }), 1), ANOTHER)
    refused(await train(out, newConfig({ maxTurns: 2, maxResponseTokens: 17 }), 1), ANOTHER)
    expect(readFileSync(join(out, 'config.json'), 'utf8')).toBe(readFileSync(join(FIX, 'train', 'old-keys', 'config.json'), 'utf8'))
  }, LONG)

  it("old-keys: a larger --steps in the new spelling goes on from c3906aa's checkpoint (adapter and optimizer moments) to step 2", async () => {
    const out = place('train', 'old-keys')
    const r = await train(out, newConfig({ maxTurns: 2, maxResponseTokens: 16 }), 2)
    accepted(r)
    expect(r.stdout).toMatch(/^train: 2 steps \(resumed from step 1\)/)
    expect(steps(out)).toEqual([1, 2])
    // Step 1's line is c3906aa's, kept.
    expect(readFileSync(join(out, 'metrics.jsonl'), 'utf8').split('\n')[0]).toBe(readFileSync(join(FIX, 'train', 'old-keys', 'metrics.jsonl'), 'utf8').split('\n')[0])
  }, LONG)

  it('old-keys: the very config file c3906aa was given (the older spelling) still resumes it', async () => {
    const out = place('train', 'old-keys')
    const r = await train(out, join(FIX, 'train-configs', 'old-keys.json'), 1)
    accepted(r)
    expect(r.stdout).toMatch(/^train: 1 steps \(resumed from step 1\)/)
  }, LONG)

  // [folder, its limits in the new spelling, a config one limit away]. These folders keep config.json alone (no
  // checkpoint): accepted means the run starts over in them (exit 0, step 1 run), refused means the one-line error.
  const cases: [string, Record<string, number> | undefined, Record<string, number> | undefined][] = [
    ['hop-scaled', { maxTurns: 2, turnsPerHop: 3, maxResponseTokens: 16 }, { maxTurns: 2, maxResponseTokens: 16 }],
    ['default-limits', undefined, { maxResponseTokens: 16 }],
    ['gym-budgets', { maxTurns: 2, maxResponseTokens: 16 }, { maxTurns: 3, maxResponseTokens: 16 }],
  ]
  it.each(cases)('%s: the new spelling is the same run; one limit changed is refused', async (name, same, other) => {
    const out = place('train', name)
    refused(await train(out, newConfig(other), 1), ANOTHER)
    const r = await train(out, newConfig(same), 1)
    accepted(r)
    expect(r.stdout).toMatch(/^train: 1 steps/)
    expect(steps(out)).toEqual([1])
  }, LONG)

  it.each(['hop-scaled', 'gym-budgets'])('%s: the config file c3906aa was given still names the same run', async (name) => {
    const r = await train(place('train', name), join(FIX, 'train-configs', `${name}.json`), 1)
    accepted(r)
    expect(r.stdout).toMatch(/^train: 1 steps/)
  }, LONG)
})

describe('bench run folders written by c3906aa with --max-turns', () => {
  const oracle = (out: string, limit: string[]) =>
    runCli(['bench', 'run', world, '--policy', 'oracle', '--limit', '2', '--set', 'concurrency=1', '--set', 'bootstrap=50', ...limit, '--out', out, '--quiet'], LONG)
  it('oracle (--max-turns 4): resumes with --set gym.budgets.maxTurns=4 and with --max-turns 4; maxTurns 5 is refused', async () => {
    const a = place('bench', 'oracle')
    const r = await oracle(a, ['--set', 'gym.budgets.maxTurns=4'])
    accepted(r)
    expect(r.stdout).toMatch(/ran 0, resumed 2\b/)
    const b = place('bench', 'oracle')
    const o = await oracle(b, ['--max-turns', '4'])
    accepted(o)
    expect(o.stdout).toMatch(/ran 0, resumed 2\b/)
    refused(await oracle(place('bench', 'oracle'), ['--set', 'gym.budgets.maxTurns=5']), 'holds a run with a different gym')
  }, LONG)

  it('engine (--max-tokens 8 --max-turns 2): resumes with --set gym.budgets.maxTurns=2; maxTurns 3 is refused', async () => {
    const engine = (out: string, turns: number) =>
      runCli(['bench', 'run', world, '--policy', 'engine', '--model', model, '--limit', '2', '--set', 'backend=ts', '--set', 'protocol=search-r1', '--set', 'maxTokens=8', '--set', `gym.budgets.maxTurns=${turns}`,
        '--set', 'split=train', '--set', 'concurrency=1', '--set', 'bootstrap=50', '--set', 'allowLost=true', '--out', out, '--quiet'], LONG)
    const r = await engine(place('bench', 'engine'), 2)
    accepted(r)
    expect(r.stdout).toMatch(/ran 0, resumed 2\b/)
    refused(await engine(place('bench', 'engine'), 3), 'holds a run with a different gym')
  }, LONG)
})

describe('an experiment folder written by c3906aa (quick-smoke: train.maxTurns / maxTokensPerTurn, eval.maxTurns / maxTokens)', () => {
  const fresh = join(root, 'exp-fresh')
  const NEW_FILE = 'curriculum/experiments/quick-smoke.json'
  const OLD_FILE = join(FIX, 'experiment', 'quick-smoke.json')
  const exp = (file: string, out: string, ...more: string[]) => runCli(['experiment', 'run', file, '--out', out, '--quiet', ...more], LONG)
  let k = 0
  /** This branch's fresh folder with c3906aa's experiment.json and train run config.json in place. */
  const c3906aaFolder = (): string => {
    const out = join(root, `exp-${++k}`)
    cpSync(fresh, out, { recursive: true })
    cpSync(join(FIX, 'experiment', 'experiment.json'), join(out, 'experiment.json'))
    cpSync(join(FIX, 'experiment', 'runs', 'trained-s0', 'config.json'), join(out, 'runs', 'trained-s0', 'config.json'))
    return out
  }

  beforeAll(async () => {
    accepted(await exp(NEW_FILE, fresh))
  }, LONG)

  it("this branch's run of quick-smoke is c3906aa's but for the limits' spelling (same world; experiment.json equal once the limits are taken out)", () => {
    const worldId = (JSON.parse(readFileSync(join(fresh, 'bench', 'start@held-out', 'config.json'), 'utf8')) as { worldId: string }).worldId
    expect(worldId).toBe(MADE.experiment.worldHash)
    type Spec = { train: Record<string, unknown> & { gym?: Record<string, unknown> }; eval: Record<string, unknown> }
    const old = JSON.parse(readFileSync(join(FIX, 'experiment', 'experiment.json'), 'utf8')) as Spec
    const now = JSON.parse(readFileSync(join(fresh, 'experiment.json'), 'utf8')) as Spec
    const { maxTurns, turnBudget, turnsPerHop, maxTokensPerTurn, ...oldTrain } = old.train
    const { maxTurns: evalTurns, maxTokens, ...oldEval } = old.eval
    expect({ maxTurns, turnBudget, turnsPerHop, maxTokensPerTurn, evalTurns, maxTokens }).toEqual({ maxTurns: 2, turnBudget: 'fixed', turnsPerHop: 2, maxTokensPerTurn: 16, evalTurns: 2, maxTokens: 16 })
    const { gym: trainGym, ...nowTrain } = now.train
    const { gym: evalGym, ...nowEval } = now.eval
    expect({ trainGym, evalGym }).toEqual({ trainGym: { budgets: { maxTurns: 2, maxResponseTokens: 16 } }, evalGym: { budgets: { maxTurns: 2, maxResponseTokens: 16 } } })
    expect({ ...old, train: oldTrain, eval: oldEval }).toEqual({ ...now, train: nowTrain, eval: nowEval })
  })

  it('resumes with the new file: every phase found done', async () => {
    const r = await exp(NEW_FILE, c3906aaFolder())
    accepted(r)
    expect(r.stdout).toMatch(/0 phases run, 8 found done/)
  }, LONG)

  it("resumes with c3906aa's own file (the older spelling)", async () => {
    const r = await exp(OLD_FILE, c3906aaFolder())
    accepted(r)
    expect(r.stdout).toMatch(/0 phases run, 8 found done/)
  }, LONG)

  it("a larger train.steps lengthens c3906aa's train run from its checkpoint", async () => {
    const out = c3906aaFolder()
    const r = await exp(NEW_FILE, out, '--set', 'train.steps=3')
    accepted(r)
    expect(steps(join(out, 'runs', 'trained-s0'))).toEqual([1, 2, 3])
  }, LONG)

  it('another limit is refused', async () => {
    refused(await exp(NEW_FILE, c3906aaFolder(), '--set', 'train.gym.budgets.maxTurns=3'), 'holds another experiment')
  }, LONG)
})
