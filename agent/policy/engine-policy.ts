// agent/policy/engine-policy: token-in/token-out policies over a token sampler (the in-process engine, or an inference
// server's /v1/completions). A PolicyBatch holds S slots (one per episode); every slot keeps the EXACT id sequence
// of its episode — prompt ids, sampled ids with the sampler's log-probs, and the chat template's continuation ids
// for tool observations — and nothing is decoded and re-encoded between turns. Slots step in lockstep: a batch is
// sampled when every live slot has asked, so the batch composition (and with seeded sampling, the result) does not
// depend on timing. Identical prompts (the N rollouts of one question at turn 1) share one prefill.
import type { ChatMessage, Policy, AssistantTurn } from '../../gym'
import { AgentError } from '../../infra/errors'
import { ContextOverflowError } from './chat-client'
import { Rng } from '../../infra/rng'
import type { ChatCodec } from '../../infra/engine'
import type { TemplateMessage } from '../../infra/engine'

/** One sampled completion: token ids (ending with the stop id when it stopped), model log-probs per id. */
export interface SampledCompletion {
  tokenIds: number[]
  logprobs: number[]
  finish: 'stop' | 'length'
}

/** Samples n completions of each prompt (ids in, ids + log-probs out). Draws come from `seed`. */
export interface TokenSampler {
  readonly name: string
  sample(prompts: number[][], params: { n: number; maxTokens: number; seed: number }): Promise<SampledCompletion[][]>
}

/** The exact token sequence of one episode: ids, which ids were sampled (mask 1), the sampler's log-probs there. */
export interface TokenSequence {
  ids: number[]
  /** 1 on sampled (assistant) tokens, 0 on prompt, template and observation tokens. */
  sampled: number[]
  /** The sampler's (temperature-1 model) log-prob of each id; 0 where sampled is 0. */
  logprobs: number[]
  /** Turns that ended at max tokens (no stop id). */
  truncatedTurns: number
}

export interface PolicyBatchOptions {
  /** Max new tokens per assistant turn. */
  maxTokensPerTurn: number
  /** Context size of the model: a turn gets at most this minus the sequence length. */
  maxContext: number
  /** Seed of the batch's sampling draws (one derived seed per lockstep round). */
  seed: number
  enableThinking?: boolean
}

interface Slot {
  seq: TokenSequence
  /** Conversation length covered by seq (messages rendered so far, the last assistant turn included). */
  covered: number
  lastEndedWithStop: boolean
  done: boolean
}

interface Pending {
  slot: number
  prompt: number[]
  maxTokens: number
  resolve: (t: AssistantTurn) => void
  reject: (e: unknown) => void
}

export class PolicyBatch {
  private readonly slots: Slot[]
  private readonly pending = new Map<number, Pending>()
  private live: number
  private round = 0
  private running = false
  /** Wall ms spent in this batch's own bookkeeping (rendering, encoding continuations, recording turns). */
  ownMs = 0

  constructor(
    private readonly codec: ChatCodec,
    private readonly sampler: TokenSampler,
    size: number,
    private readonly opts: PolicyBatchOptions,
  ) {
    this.slots = Array.from({ length: size }, () => ({ seq: { ids: [], sampled: [], logprobs: [], truncatedTurns: 0 }, covered: 0, lastEndedWithStop: true, done: false }))
    this.live = size
  }

  get size(): number {
    return this.slots.length
  }

  /** The Policy of slot i (use it for exactly one episode, then call finish(i)). */
  policy(i: number): Policy {
    return { name: `engine:${this.sampler.name}`, act: (conversation) => this.act(i, conversation) }
  }

  /** The episode of slot i has ended: it no longer holds back the others' batches. */
  finish(i: number): void {
    const s = this.slots[i]
    if (s.done) return
    s.done = true
    this.live--
    this.maybeRun()
  }

  sequence(i: number): TokenSequence {
    return this.slots[i].seq
  }

  private act(i: number, conversation: ChatMessage[]): Promise<AssistantTurn> {
    const s = this.slots[i]
    if (s.done) return Promise.reject(new AgentError('policy.slot_done', `slot ${i} has finished its episode`))
    const t0 = performance.now()
    const msgs = conversation as TemplateMessage[]
    const seq = s.seq
    if (seq.ids.length === 0) {
      const { ids } = this.codec.renderPrompt(msgs, { enableThinking: this.opts.enableThinking })
      push(seq, ids)
    } else {
      const cont = this.codec.continuation(msgs.slice(0, s.covered), msgs.slice(s.covered), { endedWithStop: s.lastEndedWithStop, enableThinking: this.opts.enableThinking })
      push(seq, cont)
    }
    s.covered = conversation.length + 1 // + the assistant message the episode appends after this turn
    const maxTokens = Math.min(this.opts.maxTokensPerTurn, this.opts.maxContext - seq.ids.length)
    this.ownMs += performance.now() - t0
    // The engine's own limit: no room for one more token. The episode ends as truncated (stop reason `context`).
    if (maxTokens < 1)
      return Promise.reject(new ContextOverflowError(`the episode's ${seq.ids.length} tokens fill the model's context of ${this.opts.maxContext}; no room for another turn`))
    return new Promise<AssistantTurn>((resolve, reject) => {
      this.pending.set(i, { slot: i, prompt: seq.ids.slice(), maxTokens, resolve, reject })
      this.maybeRun()
    })
  }

  private maybeRun(): void {
    if (this.running || this.pending.size === 0 || this.pending.size < this.live) return
    const batch = [...this.pending.values()].sort((a, b) => a.slot - b.slot)
    this.pending.clear()
    this.running = true
    const seed = Rng.derive(this.opts.seed, 'round', this.round++).int(0, 2 ** 31 - 1)
    this.runBatch(batch, seed)
      .catch((e) => batch.forEach((p) => p.reject(e)))
      .finally(() => {
        this.running = false
        this.maybeRun()
      })
  }

  private async runBatch(batch: Pending[], seed: number): Promise<void> {
    const ready = batch.filter((p) => p.maxTokens >= 1)
    for (const p of batch) if (p.maxTokens < 1) p.resolve(this.turn(p.slot, { tokenIds: [], logprobs: [], finish: 'length' }))
    if (ready.length === 0) return
    // Identical prompts share one prefill: when every distinct prompt occurs k times (N rollouts per question), sample n=k.
    const keys = ready.map((p) => p.prompt.join(','))
    const distinct = [...new Set(keys)]
    const counts = distinct.map((k) => keys.filter((x) => x === k).length)
    const maxTokens = Math.min(...ready.map((p) => p.maxTokens))
    let results: SampledCompletion[]
    if (distinct.length < ready.length && counts.every((c) => c === counts[0])) {
      const prompts = distinct.map((k) => ready[keys.indexOf(k)].prompt)
      const out = await this.sampler.sample(prompts, { n: counts[0], maxTokens, seed })
      const used = distinct.map(() => 0)
      results = keys.map((k) => {
        const d = distinct.indexOf(k)
        return out[d][used[d]++]
      })
    } else {
      const out = await this.sampler.sample(ready.map((p) => p.prompt), { n: 1, maxTokens, seed })
      results = out.map((o) => o[0])
    }
    ready.forEach((p, j) => p.resolve(this.turn(p.slot, results[j])))
  }

  /** Record a sampled completion into the slot's sequence and make the env's turn (text; ids and log-probs kept). */
  private turn(i: number, c: SampledCompletion): AssistantTurn {
    const t0 = performance.now()
    const s = this.slots[i]
    const seq = s.seq
    const promptTokens = seq.ids.length
    const endedWithStop = c.tokenIds.length > 0 && this.codec.isStopId(c.tokenIds[c.tokenIds.length - 1])
    for (let t = 0; t < c.tokenIds.length; t++) {
      seq.ids.push(c.tokenIds[t])
      seq.sampled.push(1)
      seq.logprobs.push(c.logprobs[t])
    }
    s.lastEndedWithStop = endedWithStop
    if (!endedWithStop) seq.truncatedTurns++
    const cut = this.codec.cut({ tokenIds: c.tokenIds, logprobs: c.logprobs, finish: c.finish })
    this.ownMs += performance.now() - t0
    return { text: cut.text, tokens: c.tokenIds, logprobs: c.logprobs, usage: { promptTokens, completionTokens: c.tokenIds.length } }
  }
}

function push(seq: TokenSequence, ids: number[]): void {
  for (const id of ids) {
    seq.ids.push(id)
    seq.sampled.push(0)
    seq.logprobs.push(0)
  }
}
