// agent/oracle/profile-walk-worker-main: one worker thread of the export tuner's oracle walks (profile-check's
// threadWalker) — opens the world folder read-only (its own index, retriever caches and tokenizer), then walks each
// chunk of questions it is sent under the chunk's limits (profile-check's walkTraces), one chunk at a time, with
// progress ticks (every 100 questions). Its render/cut memo is kept across the chunks of one observation setting (the
// tuner walks one setting at a time). Never writes to the world.
import { approxTokens, openGymWorld, type GymWorld } from '../../gym'
import { serveWorker } from '../../infra/worker-serve'
import { engineProfile, isEngineProfile, openWorld, type RetrievedDoc } from '../../world'
import { worldOracleKnowledge } from './oracle-knowledge'
import { pageRetriever, passageDocs, qwenTokenCut, walkTraces, type Seen, type Trace, type WalkWorkerData, type WalkWorkerRequest } from './profile-check'

serveWorker<WalkWorkerData, WalkWorkerRequest, Trace[], number>(
  async (data) => {
    // A profile registered at run time in the parent is unknown here: the handshake fails and the parent walks itself.
    if (!isEngineProfile(data.profile)) throw new Error(`engine profile '${data.profile}' is not built in`)
    const p = engineProfile(data.profile)
    const gw: GymWorld = await openGymWorld(data.dir)
    const w = openWorld(data.dir)
    const k = worldOracleKnowledge(w)
    const retrieve = data.unit === 'passage' ? passageDocs(gw) : pageRetriever(gw)
    const cut = await qwenTokenCut()
    let setting = ''
    let views = new Map<RetrievedDoc[], Seen>()
    return {
      handle: async (m, tick) => {
        const key = JSON.stringify([m.limits.topk, m.limits.obs, m.limits.docChars, m.limits.access])
        if (key !== setting) [setting, views] = [key, new Map()]
        let n = 0
        const traces = await walkTraces(m.qas, k, retrieve, gw, p, m.limits, m.cap, approxTokens, cut, views, () => {
          if (++n === 100) [n] = [0, tick(100)]
        })
        if (n > 0) tick(n)
        return traces
      },
    }
  },
  { serial: true },
)
