// tests/process-rewards-world: the step signals and the reward-hacking ordering on a REAL built world (the shared tiny
// world: its QA records' gold documents and evidence sentences, its BM25 search) — the world's own oracle (verified
// queries) reaches every hop of every question it solves and opens every gold page; averaged over training questions,
// oracle > wanderer > spammer, no-search under f1 (oracle = wanderer there), process and cost.
import { makeEnv, openGymWorld, scoreAnswer, type GymWorld, type Policy } from '../gym'
import { openWorld, type Qa } from '../world'
import { oraclePolicy } from '../agent/oracle/oracle'
import { worldOracleKnowledge } from '../agent/oracle/oracle-knowledge'
import type { OracleKnowledge } from '../agent/oracle/oracle-plan'
import { noSearchPolicy, searchTurn, spammerPolicy, wandererPolicy } from '../agent/policy/scripted'
import { runEpisode } from '../agent/rollout/episode'
import type { TrajectoryRecord } from '../agent/rollout/types'
import { sharedTinyWorld } from './helpers/shared-world'

const N = 8
let gym: GymWorld
let k: OracleKnowledge
let qas: Qa[]
let closeWorld: () => void

beforeAll(async () => {
  const { dir } = await sharedTinyWorld()
  gym = await openGymWorld(dir)
  const w = openWorld(dir)
  closeWorld = () => w.close()
  k = worldOracleKnowledge(w)
  qas = gym.listQa('train').filter((q) => q.docs.length > 0).slice(0, N)
}, 600_000)
afterAll(async () => {
  await gym?.close()
  closeWorld?.()
})

const POLICIES: Record<string, (qa: Qa) => Policy> = {
  oracle: (qa) => oraclePolicy(qa, k),
  // Two off-path searches first (words from no question), then the oracle.
  wanderer: (qa) => wandererPolicy(oraclePolicy(qa, k), [searchTurn('general overview'), searchTurn('list of topics')]),
  spammer: () => spammerPolicy({ rounds: 2 }),
  noSearch: () => noSearchPolicy('unknown'),
}

async function play(name: string, qa: Qa, reward: string): Promise<TrajectoryRecord & { reward: number }> {
  const env = makeEnv(gym, qa, { reward, budgets: { maxTurns: 60, maxResponseTokens: 1024, maxContextTokens: 100_000_000 } })
  const rec = await runEpisode(qa, env, POLICIES[name](qa), { scorer: scoreAnswer })
  return { ...rec, reward: rec.turns.reduce((a, t) => a + t.reward, 0) }
}

describe('step signals on the tiny world', () => {
  it(`the oracle solves ${N} training questions, opens every gold page once and reaches every hop of the evidence`, async () => {
    expect(qas).toHaveLength(N)
    for (const qa of qas) {
      const r = await play('oracle', qa, 'f1')
      expect({ id: qa.id, f1: r.f1 }).toEqual({ id: qa.id, f1: 1 })
      const sum = (key: 'gold_accessed' | 'gold_found' | 'redundant_access' | 'evidence_new') => r.turns.reduce((a, t) => a + (t.signals?.[key] ?? 0), 0)
      const hops = new Set(qa.evidence.filter((e) => e.hop >= 0).map((e) => e.hop)).size
      expect({ id: qa.id, accessed: sum('gold_accessed'), redundant: sum('redundant_access'), hop: r.turns.at(-1)!.signals!.hop_reached }).toEqual({
        id: qa.id,
        accessed: new Set(qa.docs).size,
        redundant: 0,
        hop: hops,
      })
      expect(sum('evidence_new')).toBe(new Set(qa.evidence.map((e) => e.sentence)).size)
    }
  }, 600_000)
})

describe('ordering on the tiny world (mean over questions)', () => {
  it.each(['f1', 'process', 'cost'])('%s', async (spec) => {
    const mean: Record<string, number> = {}
    for (const name of Object.keys(POLICIES)) {
      let s = 0
      for (const qa of qas) s += (await play(name, qa, spec)).reward
      mean[name] = s / qas.length
    }
    if (spec === 'f1') expect(mean.oracle).toBeCloseTo(mean.wanderer, 12)
    else expect(mean.oracle).toBeGreaterThan(mean.wanderer)
    expect(mean.wanderer).toBeGreaterThan(mean.spammer)
    expect(mean.wanderer).toBeGreaterThan(mean.noSearch)
    process.stderr.write(`tiny world, ${spec}: ${JSON.stringify(Object.fromEntries(Object.entries(mean).map(([n, v]) => [n, Number(v.toFixed(4))])))}\n`)
  }, 600_000)
})
