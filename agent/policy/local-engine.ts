// agent/policy/local-engine: a local model folder (+ optional PEFT adapter) as a Policy factory for evaluation — the
// in-process engine on the chosen backend, the model's tokenizer and chat template, token in / token out through a
// one-slot PolicyBatch per question (the same path the trainer samples through, so a scored adapter is scored in the
// exact token sequence it was trained on). Speaks any text protocol (hermes, search-r1): the env parses the text.
import { resolve } from 'node:path'
import type { Policy } from '../../gym'
import { AgentError } from '../../infra/errors'
import { Rng } from '../../infra/rng'
import { ChatCodec, chatTemplateOf, createBackend, loadLoraAdapter, loadModel, loadTokenizer, parseBackendName, SIMPLE_QWEN_TEMPLATE, type CausalLM } from '../../infra/engine'
import { PolicyBatch } from './engine-policy'
import { EngineSampler } from './engine-sampler'

export interface LocalEngineOptions {
  model: string
  adapter?: string
  /** Engine backend name (auto | native | ts | cuda). */
  backend: string
  /** 0 = greedy. */
  temperature: number
  maxTokensPerTurn: number
  seed: number
}

export interface LocalEngine {
  model: CausalLM
  codec: ChatCodec
  /** A fresh policy for one question (its own sampling seed, derived from the run seed and the question id). */
  policyFor(qaId: string): Policy
}

export function openLocalEngine(o: LocalEngineOptions): LocalEngine {
  if (!(Number.isInteger(o.maxTokensPerTurn) && o.maxTokensPerTurn >= 1)) throw new AgentError('engine.args', `max tokens per turn must be a positive integer, got ${o.maxTokensPerTurn}`)
  if (!(o.temperature >= 0)) throw new AgentError('engine.args', `temperature must be ≥ 0, got ${o.temperature}`)
  const model = loadModel(resolve(o.model), createBackend(parseBackendName(o.backend)))
  if (o.adapter) model.adapter = loadLoraAdapter(resolve(o.adapter), model.backend, model.config)
  const tokenizer = loadTokenizer(resolve(o.model))
  const codec = new ChatCodec(tokenizer, chatTemplateOf(tokenizer, SIMPLE_QWEN_TEMPLATE))
  const sampler = new EngineSampler(model, { temperature: o.temperature, topP: 1, topK: 0, stopIds: tokenizer.special.stop })
  return {
    model,
    codec,
    policyFor(qaId) {
      const seed = Rng.derive(o.seed, 'local-engine', qaId).int(0, 2 ** 31 - 1)
      const batch = new PolicyBatch(codec, sampler, 1, { maxTokensPerTurn: o.maxTokensPerTurn, maxContext: model.config.maxPositionEmbeddings, seed })
      const p = batch.policy(0)
      return { name: `engine:${o.adapter ? 'adapter' : 'base'}`, act: p.act }
    },
  }
}
