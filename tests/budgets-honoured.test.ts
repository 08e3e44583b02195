// tests/budgets-honoured: a gym.budgets given in an experiment file or a train config is the limit of its episodes,
// observed in real episodes through the real CLI (tests/fixtures/experiment-results.json's tiny sizes: one tiny
// training world, one never-trained world, a one-step SFT start, one arm, one GRPO step) — the evaluation's
// trajectories end on exactly that turn limit, the GRPO run records it and its episodes never pass it, a `train` run
// with the config's gym.budgets.maxTurns plays exactly that many turns; where a block spells one limit both ways (the
// older eval.maxTurns, train maxTurns, maxTokensPerTurn beside gym.budgets) with two values, it is a one-line refusal
// naming both, before any work.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli } from './helpers/cli-process'

const LONG = 300_000
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const root = mkdtempSync(join(tmpdir(), 'sg-budgets-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const fixture = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/experiment-results.json'), 'utf8')) as Record<string, Record<string, unknown>>
const write = (name: string, v: object) => {
  const f = join(root, name)
  writeFileSync(f, JSON.stringify(v))
  return f
}
// The limit under test: neither the gym's default (16), the train config's (16) nor the experiment's evaluation (14).
const LIMIT = 4
// The fixture's blocks with their own turn limit left out (their response limit kept): the experiment's is theirs.
const train = { ...fixture.train, gym: { budgets: { maxResponseTokens: 8 } } }
const evalBlock = { ...fixture.eval, gym: { budgets: { maxResponseTokens: 8 } } }
const EXP = {
  ...fixture,
  name: 'budgets',
  worlds: { ...fixture.worlds, cache: join(root, 'worlds') },
  gym: { budgets: { maxTurns: LIMIT } },
  train,
  arms: [{ name: 'two-stage', curriculum: 'two-stage', reward: 'em+format' }],
  seeds: [0],
  eval: evalBlock,
}
const out = join(root, 'exp')
const lines = <T>(f: string) => readFileSync(f, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T)
type Traj = { turns: unknown[]; stopReason: string | null }

describe('gym.budgets given is the limit of every episode', () => {
  it('an experiment file: its evaluation ends on exactly gym.budgets.maxTurns, its GRPO run records and keeps it', async () => {
    const r = await runCli(['experiment', 'run', write('exp.json', EXP), '--out', out], LONG)
    expect(r.stderr.split('\n').filter((l) => /error/i.test(l))).toEqual([])
    expect(r.code).toBe(0)
    const benches = readdirSync(join(out, 'bench'))
    expect(benches.length).toBeGreaterThan(0)
    for (const b of benches) {
      const cfg = JSON.parse(readFileSync(join(out, 'bench', b, 'config.json'), 'utf8')) as { gym: { budgets: { maxTurns: number } } }
      expect(cfg.gym.budgets.maxTurns).toBe(LIMIT)
      const recs = lines<Traj>(join(out, 'bench', b, 'trajectories.jsonl'))
      // A tiny random start never answers: every episode runs to the turn limit, and not one turn past it.
      for (const t of recs) expect(t.turns.length).toBeLessThanOrEqual(LIMIT)
      const cut = recs.filter((t) => t.stopReason === 'max_turns')
      expect(cut.length).toBeGreaterThan(0)
      for (const t of cut) expect(t.turns.length).toBe(LIMIT)
    }
    const run = JSON.parse(readFileSync(join(out, 'runs', 'two-stage-s0', 'config.json'), 'utf8')) as { train: Record<string, unknown> & { gym: { budgets: { maxTurns: number } } } }
    // One place: the run's gym.budgets (the experiment's limit, the train block's response limit); no top-level copy.
    expect([run.train.maxTurns, run.train.gym.budgets]).toEqual([undefined, { maxTurns: LIMIT, maxResponseTokens: 8 }])
    for (const m of lines<{ turns: number; truncationRate: number }>(join(out, 'runs', 'two-stage-s0', 'metrics.jsonl'))) expect(m.turns).toBeLessThanOrEqual(LIMIT)
  }, LONG)

  it('a train config: every episode plays exactly gym.budgets.maxTurns turns (the config sets no maxTurns)', async () => {
    const world = readdirSync(join(root, 'worlds')).find((n) => n.endsWith('-s5'))
    expect(world).toBeDefined()
    const cfg = write('train.json', { ...train, protocol: 'search-r1', gym: { topK: 3, observationCap: 2000, prompt: 'brief', accessByTitle: true, reward: 'em+format', budgets: { maxTurns: LIMIT } } })
    const dir = join(root, 'train')
    const r = await runCli(['train', '--world', join(root, 'worlds', world!), '--model', join(out, 'model'), '--config', cfg, '--out', dir, '--quiet'], LONG)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const m = lines<{ turns: number; truncationRate: number }>(join(dir, 'metrics.jsonl'))
    // Every episode was cut by the turn budget, after exactly LIMIT turns (a mean of LIMIT over episodes ≤ LIMIT each).
    for (const x of m) expect([x.turns, x.truncationRate]).toEqual([LIMIT, 1])
    expect((JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { train: { gym: { budgets: { maxTurns: number } } } }).train.gym.budgets.maxTurns).toBe(LIMIT)
  }, LONG)

  it('one limit spelt both ways in a block with two values is a one-line refusal naming both, before any work', async () => {
    const older = (at: string, old: string, now: string, a: number, b: number) =>
      new RegExp(`^searchgym: error: ${at}${old} \\(the older spelling of ${at}gym\\.budgets\\.${now}\\) ${a} and ${at}gym\\.budgets\\.${now} ${b} set one limit: give gym\\.budgets\\.${now} alone$`)
    const cases: [string[], RegExp][] = [
      [['experiment', 'run', write('e1.json', { ...EXP, eval: { ...evalBlock, maxTurns: 2, gym: { budgets: { maxTurns: 4 } } } }), '--out', join(root, 'bad')], older('experiment\\.eval\\.', 'maxTurns', 'maxTurns', 2, 4)],
      [['experiment', 'run', write('e2.json', { ...EXP, train: { ...train, maxTurns: 2, gym: { budgets: { maxTurns: 4 } } } }), '--out', join(root, 'bad')], older('experiment\\.train\\.', 'maxTurns', 'maxTurns', 2, 4)],
      [['experiment', 'run', write('e3.json', { ...EXP, train: { ...train, gym: { topK: 2 } } }), '--out', join(root, 'bad')], /^searchgym: error: experiment\.train\.gym holds budgets alone \(topK: set in experiment\.gym\)$/],
      [['train', '--world', 'nowhere', '--model', 'nowhere', '--out', join(root, 'bad'), '--config', write('t1.json', { maxTurns: 2, gym: { budgets: { maxTurns: 4 } } })], older('', 'maxTurns', 'maxTurns', 2, 4)],
      [['train', '--world', 'nowhere', '--model', 'nowhere', '--out', join(root, 'bad'), '--config', write('t3.json', { maxTokensPerTurn: 32, gym: { budgets: { maxResponseTokens: 8 } } })], older('', 'maxTokensPerTurn', 'maxResponseTokens', 32, 8)],
    ]
    for (const [args, msg] of cases) {
      const r = await runCli(args)
      expect(r.code).not.toBe(0)
      expect(r.stderr.trim()).toMatch(msg)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
    }
    expect(existsSync(join(root, 'bad'))).toBe(false)
  }, LONG)
})
