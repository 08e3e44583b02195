// tests/train-masking: prompt and tool-observation positions carry no loss (dLoss/dlogits there is exactly zero, and
// the advantages / old log-probs recorded there change nothing), and episodes hit by injected infrastructure faults
// (the gym's seeded 429s and timeouts) are masked out of GRPO — left out of their group's rewards and advantages and
// of the datums — not scored 0. Real
// parts: the gym's fixture world through the real Env with its fault wrapper, the turn loop, a tiny random model
// with a world tokenizer; the sampler is the TEST FIXTURE one (scripted search call / answer, real log-probs).
import { makeEnv, NO_FAULTS, scoreAnswer } from '../gym'
import { Rng } from '../infra/rng'
import { ChatCodec } from '../infra/engine/chat/codec'
import { chatTemplateOf, SIMPLE_QWEN_TEMPLATE } from '../infra/engine/chat-template'
import { presetConfig } from '../infra/engine/config'
import { Learner } from '../infra/engine/learner'
import { LORA_TARGETS } from '../infra/engine/lora'
import { createRandomModel } from '../infra/engine/model'
import { TextTokenizer } from '../infra/engine/tokenizer'
import { buildWorldTokenizer } from '../infra/engine/world-tokenizer'
import { PolicyBatch } from '../agent/policy/engine-policy'
import { FixtureSampler } from './fixtures/fixture-sampler'
import { rolloutBatch } from '../agent/rollout/group'
import { scoreGroups } from '../agent/grpo/groups'
import { buildDatums } from '../agent/grpo/datums'
import { makeFixtureWorldData } from './fixtures/bench-fixture-world'
import { openFixtureWorld } from './fixtures/gym-fixture-world'

const data = makeFixtureWorldData(4)
const files = buildWorldTokenizer(data.docs.map((d) => `${d.title}\n${d.text}`), { vocabSize: 600 })
const tok = new TextTokenizer(files.tokenizerJson, files.tokenizerConfig as never)
const codec = new ChatCodec(tok, chatTemplateOf(tok, SIMPLE_QWEN_TEMPLATE))
const model = createRandomModel(presetConfig('tiny', tok.vocabSize, tok.special.stop), new Rng(3))
const learner = new Learner(model, { lora: { rank: 2, alpha: 4, targets: [...LORA_TARGETS] }, seed: 3 })

it('an episode whose search hit an injected 429 or timeout is masked, not scored 0; the rest of its group still trains', async () => {
  const world = openFixtureWorld({ docs: data.docs, qa: data.qa })
  const qa = data.qa[0]
  const G = 6
  // Every episode searches first; faults hit about half of them (seeded per episode); the turn budget (1) ends the episode.
  const search = `<tool_call>\n{"name": "search", "arguments": {"query": "${qa.question.replace(/\?$/, '')}"}}\n</tool_call>`
  const sampler = new FixtureSampler(learner, codec, [search])
  const items = Array.from({ length: G }, (_, j) => ({
    qa,
    env: makeEnv(world, qa, { protocol: 'hermes', reward: 'em+format', budgets: { maxTurns: 1, maxResponseTokens: 256, maxContextTokens: 4096 }, episode: j, faults: { ...NO_FAULTS, seed: 1, searchRateLimit: 0.3, searchTimeout: 0.3, timeoutMs: 0 } }),
  }))
  const batch = new PolicyBatch(codec, sampler, G, { maxTokensPerTurn: 256, maxContext: 4096, seed: 0 })
  const rs = await rolloutBatch(items, batch, { scorer: scoreAnswer })
  const faulted = rs.filter((r) => r.infraFault !== null)
  const clean = rs.filter((r) => r.infraFault === null)
  expect(faulted.length).toBeGreaterThan(0)
  expect(clean.length).toBeGreaterThan(1)
  for (const r of faulted) expect(['search_rate_limited', 'search_timeout']).toContain(r.infraFault)
  // The faulted episodes' own reward is what a naive trainer would use (a score for a failure it did not cause).
  for (const r of faulted) expect(r.record.counts.toolRateLimited + r.record.counts.toolTimeouts).toBeGreaterThan(0)
  // Give the clean episodes different rewards so the group carries signal.
  clean.forEach((r, i) => (r.reward = i % 2))
  const g = scoreGroups(rs, G)
  expect(g.masked).toBe(faulted.length)
  expect(g.kept).toHaveLength(1)
  expect(g.kept[0].rollouts).toHaveLength(clean.length)
  expect(g.kept[0].rollouts.every((r) => r.infraFault === null)).toBe(true)
  expect(g.kept[0].rewards).toEqual(clean.map((r) => r.reward))
  // The datums hold only the clean episodes' sequences.
  const datums = buildDatums(g.kept[0].rollouts.map((r, i) => ({ seq: r.seq, advantage: g.kept[0].advantages[i] })), 'token-mean')
  expect(datums).toHaveLength(clean.length)
  // Control: scored as 0 instead, the same group would have had G rewards and different advantages.
  const naive = scoreGroups(rs.map((r) => ({ ...r, infraFault: null, reward: r.infraFault ? 0 : r.reward })), G)
  expect(naive.kept[0].rollouts).toHaveLength(G)
  await world.close()
}, 300_000)

it('prompt and tool-observation positions carry no loss: dLoss/dlogits there is exactly zero, and their advantages or old log-probs change nothing', async () => {
  const world = openFixtureWorld({ docs: data.docs, qa: data.qa })
  const qa = data.qa[1]
  // Two turns of a search call: prompt (mask 0), call (1), tool observation (0), call (1) — the trainer's own path:
  // PolicyBatch token sequences → buildDatums (search-r1: the shortest prompt, so the test stays fast).
  const search = `<search> ${qa.question.replace(/\?$/, '')} </search>`
  const items = [0, 1].map((j) => ({ qa, env: makeEnv(world, qa, { protocol: 'search-r1', topK: 1, observationCap: 200, budgets: { maxTurns: 2, maxResponseTokens: 256, maxContextTokens: 4096 }, episode: j }) }))
  const batch = new PolicyBatch(codec, new FixtureSampler(learner, codec, [search]), 2, { maxTokensPerTurn: 256, maxContext: 4096, seed: 0 })
  const rs = await rolloutBatch(items, batch, { scorer: scoreAnswer })
  await world.close()
  const datums = buildDatums([{ seq: rs[0].seq, advantage: 1.3 }, { seq: rs[1].seq, advantage: -0.7 }], 'token-mean')
  // Old log-probs off the current policy on the sampled tokens, so ratios differ from 1 and some clip.
  for (const d of datums) d.oldLogprobs = d.oldLogprobs!.map((x, t) => (d.mask![t] === 0 ? x : x + (t % 3) * 0.3 - 0.3))
  const loss = { name: 'ppo' as const, epsLow: 0.4, epsHigh: 0.4, klBeta: 0.01 }
  const V = model.config.vocabSize
  const g = learner.logitGradients(datums, loss)
  let prompt = 0, observation = 0, trained = 0
  datums.forEach((d, i) => {
    const first = d.mask!.findIndex((w) => w !== 0)
    expect(first).toBeGreaterThan(0)
    d.mask!.forEach((w, t) => {
      const row = g[i].subarray(t * V, (t + 1) * V)
      if (w === 0) {
        if (t < first) prompt++
        else observation++
        for (let v = 0; v < V; v++) if (row[v] !== 0) throw new Error(`datum ${i} position ${t} (mask 0) has dLoss/dlogits[${v}] = ${row[v]}`)
      } else {
        trained++
        expect(row.some((x) => x !== 0)).toBe(true)
      }
    })
  })
  expect(prompt).toBeGreaterThan(0)
  expect(observation).toBeGreaterThan(10) // the tool observation between the two calls (and its template tokens)
  expect(trained).toBeGreaterThan(0)

  // Anything recorded at mask-0 positions is never read: loss, LoRA gradients and dLoss/dlogits are bit-identical.
  const poisoned = datums.map((d) => ({
    ...d,
    advantages: d.advantages!.map((a, t) => (d.mask![t] === 0 ? 1e6 * (t % 2 ? 1 : -1) : a)),
    oldLogprobs: d.oldLogprobs!.map((x, t) => (d.mask![t] === 0 ? -50 + t : x)),
  }))
  const run = (ds: typeof datums) => {
    learner.zeroGrad()
    const r = learner.forwardBackward(ds, loss)
    const grads = model.adapter!.params().map((p) => learner.gradient(p.name) ?? new Float32Array(0))
    learner.zeroGrad()
    return { loss: r.loss, grads }
  }
  const base = run(datums)
  const same = run(poisoned)
  expect(same.loss).toBe(base.loss)
  expect(same.grads).toEqual(base.grads)
  expect(base.grads.some((x) => x.some((v) => v !== 0))).toBe(true)
  const g2 = learner.logitGradients(poisoned, loss)
  g2.forEach((x, i) => expect(Buffer.from(x.buffer).equals(Buffer.from(g[i].buffer))).toBe(true))
  // Control (the check can fail): the same change at one TRAINED position changes the loss and the gradients.
  const t0 = datums[0].mask!.findIndex((w) => w !== 0)
  const moved = run([{ ...datums[0], advantages: datums[0].advantages!.map((a, t) => (t === t0 ? a + 5 : a)) }, datums[1]])
  expect(moved.loss).not.toBe(base.loss)
  expect(moved.grads).not.toEqual(base.grads)
}, 300_000)
