// tests/gym-reward-strict: the env option `reward` is as strict as every other option key over HTTP (issue 47): an
// object is not shallow-merged over the server's default spec, so a stray key is a 400 and {"terms":["em"]} cannot be
// scored as EM under the name "f1"; a spec name (or a spec exactly as parsed) still works.
import { openFixtureWorld } from './fixtures/gym-fixture-world'
import { startGymServer, type RunningGymServer } from '../gym/server'
import { parseRewardSpec } from '../gym/reward'

type J = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

let s: RunningGymServer
beforeAll(async () => {
  s = await startGymServer(openFixtureWorld(), { maxEnvs: 8 })
})
afterAll(() => s.close())

async function create(options: unknown): Promise<{ status: number; json: J }> {
  const res = await fetch(s.url + '/v1/envs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ qaId: 'fx-2', options }) })
  const json = (await res.json()) as J
  if (res.status === 201) await fetch(`${s.url}/v1/envs/${json.envId}/close`, { method: 'POST' })
  return { status: res.status, json }
}

test.each([
  [{ reward: { bogus: 1 } }],
  [{ reward: { terms: ['em'] } }],
  [{ reward: { name: 'f1', terms: ['em'] } }],
  [{ reward: { name: 'f1', terms: ['f1'], extra: true } }],
  [{ reward: ['f1'] }],
  [{ reward: 'f2' }],
])('options %j → 400 reward.unknown_spec, one line', async (options) => {
  const r = await create(options)
  expect(r.status).toBe(400)
  expect(r.json.error.code).toBe('reward.unknown_spec')
  expect(r.json.error.message).not.toMatch(/\n/)
})

test('a spec name, or a spec exactly as parsed, is accepted; budgets still merge one level down', async () => {
  expect((await create({ reward: 'em+format' })).status).toBe(201)
  expect((await create({ reward: { name: 'em', terms: ['em'] } })).status).toBe(201)
  expect((await create({ budgets: { maxTurns: 3 } })).status).toBe(201)
  expect(parseRewardSpec({ name: 'em+format', terms: ['em', 'format'] })).toEqual({ name: 'em+format', terms: ['em', 'format'] })
  expect(() => parseRewardSpec({ name: 'em+format', terms: ['format', 'em'] })).toThrow(/reward must be a spec name/)
})
