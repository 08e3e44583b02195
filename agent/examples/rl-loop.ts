// agent/examples/rl-loop: the whole GRPO loop over the library API, top to bottom, in one file — no curriculum, no
// checkpoints, no metrics files (agent/train/loop.ts is the full version behind `searchgym train`).
//
// Usage: node bin/run-ts.mjs agent/examples/rl-loop.ts --world worlds/tiny --model models/tiny [--adapter DIR]
//        [--steps 3] [--questions 2] [--n 4] [--max-tokens 32] [--max-turns 4] [--lr 1e-4] [--seed 0]
import { episodeBudgets, makeEnv, openGymWorld, scoreAnswer } from '../../gym'
import { Rng } from '../../infra/rng'
import { ChatCodec } from '../../infra/engine'
import { chatTemplateOf, SIMPLE_QWEN_TEMPLATE } from '../../infra/engine'
import { Learner } from '../../infra/engine'
import { LORA_TARGETS, loadLoraAdapter } from '../../infra/engine'
import { loadModel } from '../../infra/engine'
import { loadTokenizer } from '../../infra/engine'
import { buildDatums } from '../grpo/datums'
import { scoreGroups } from '../grpo/groups'
import { grpoUpdate } from '../grpo/learn'
import { PolicyBatch } from '../policy/engine-policy'
import { EngineSampler } from '../policy/engine-sampler'
import { rolloutBatch } from '../rollout/group'

const arg = (k: string, d: string) => {
  const i = process.argv.indexOf(`--${k}`)
  return i >= 0 ? process.argv[i + 1] : d
}
const worldDir = arg('world', '')
const modelDir = arg('model', '')
if (!worldDir || !modelDir) {
  process.stderr.write('rl-loop: give --world DIR and --model DIR\n')
  process.exit(2)
}
const steps = Number(arg('steps', '3')), Q = Number(arg('questions', '2')), N = Number(arg('n', '4'))
const maxTokens = Number(arg('max-tokens', '32')), maxTurns = Number(arg('max-turns', '4')), lr = Number(arg('lr', '1e-4')), seed = Number(arg('seed', '0'))

// 1. The model with a LoRA adapter (new, or a warm start), its tokenizer and chat template (the chat codec).
const model = loadModel(modelDir)
const adapter = arg('adapter', '')
if (adapter) model.adapter = loadLoraAdapter(adapter, model.backend, model.config)
const learner = new Learner(model, { lora: { rank: 8, alpha: 16, targets: [...LORA_TARGETS] }, seed })
const tokenizer = loadTokenizer(modelDir)
const codec = new ChatCodec(tokenizer, chatTemplateOf(tokenizer, SIMPLE_QWEN_TEMPLATE))
const sampler = new EngineSampler(model, { temperature: 1, topP: 1, topK: 0, stopIds: tokenizer.special.stop })

// 2. The world's training questions through the gym.
const world = await openGymWorld(worldDir)
const train = world.listQa('train')

for (let step = 1; step <= steps; step++) {
  const rng = Rng.derive(seed, 'step', step)
  // 3. Q questions, N envs each; every env steps in one lockstep batch (token in, token out).
  const qas = Array.from({ length: Q }, () => rng.pick(train))
  const items = qas.flatMap((qa, qi) =>
    Array.from({ length: N }, (_, j) => ({ qa, env: makeEnv(world, qa, { protocol: 'hermes', budgets: episodeBudgets(qa, { maxTurns, maxResponseTokens: maxTokens, maxContextTokens: model.config.maxPositionEmbeddings }), episode: step * 1000 + qi * N + j }) })),
  )
  const batch = new PolicyBatch(codec, sampler, items.length, { maxTokensPerTurn: maxTokens, maxContext: model.config.maxPositionEmbeddings, seed: rng.int(0, 2 ** 31 - 1) })
  const rollouts = await rolloutBatch(items, batch, { scorer: scoreAnswer })

  // 4. Group advantages from terminal rewards; infra-failed episodes masked; constant groups dropped.
  const groups = scoreGroups(rollouts, N)

  // 5. One Datum per trajectory (loss only on sampled tokens), token-mean over the batch; one update.
  const scored = groups.kept.flatMap((g) => g.rollouts.map((r, i) => ({ seq: r.seq, advantage: g.advantages[i] })))
  const m = scored.length
    ? grpoUpdate(learner, buildDatums(scored, 'token-mean'), { loss: 'ppo', epsLow: 0.4, epsHigh: 0.4, klBeta: 0, microBatch: 16 }, { lr, gradClip: 1 })
    : null
  const reward = rollouts.reduce((a, r) => a + r.reward, 0) / rollouts.length
  process.stdout.write(
    `step ${step}: reward ${reward.toFixed(3)}, groups kept ${groups.kept.length}/${Q} (all-0 ${groups.all0}, all-1 ${groups.all1}, masked ${groups.masked})` +
      (m ? `, loss ${m.loss.toFixed(4)}, grad norm ${m.gradNorm.toFixed(4)}, tokens ${m.tokens}` : ', no update (no signal)') + '\n',
  )
}
await world.close()
