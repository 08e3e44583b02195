// bench/gym-world: the bench over the real gym — a built world folder (openGymWorld: QA, documents, the verified
// search engine), the gym's Env per question (makeEnv with the run's protocol and gym options), the gym's answer
// scorer (HotpotQA-exact F1/EM) and the gym's oracle (agent/policy/oracle over the world's gold graph).
import { makeEnv, openGymWorld, scoreAnswer, type GymWorld } from '../gym'
import { oraclePolicy, type OracleKnowledge } from '../agent/policy/oracle'
import { worldOracleKnowledge } from '../agent/policy/oracle-knowledge'
import { openWorld } from '../world/store/open'
import type { Split } from '../world/types'
import type { WireProtocol } from '../agent/policy/messages'
import type { BenchBackends } from './backends'
import type { BenchWorld } from './types'

/** The gym protocol that matches a wire protocol: native tool_calls ↔ 'openai', text ↔ 'hermes' (Qwen3/Hermes). */
export function gymProtocol(p: WireProtocol): 'openai' | 'hermes' {
  return p === 'tools' ? 'openai' : 'hermes'
}

export function gymBenchWorld(dir: string, id: string, gw: GymWorld, oracle?: OracleKnowledge, onClose?: () => void): BenchWorld {
  const w: BenchWorld = {
    dir,
    id,
    questions: (split) => gw.listQa(split as Split),
    makeEnv: async (qa, opts) => makeEnv(gw, qa, { ...(opts.gym ?? {}), protocol: gymProtocol(opts.protocol) }),
    close: async () => {
      await gw.close()
      onClose?.()
    },
  }
  if (oracle) w.oracle = (qa) => oraclePolicy(qa, oracle)
  return w
}

export const gymBackends: BenchBackends = {
  async openWorld(dir) {
    const w = openWorld(dir)
    try {
      return gymBenchWorld(dir, w.hash, await openGymWorld(dir), worldOracleKnowledge(w), () => w.close())
    } catch (e) {
      w.close()
      throw e
    }
  },
  scorer: scoreAnswer,
}
