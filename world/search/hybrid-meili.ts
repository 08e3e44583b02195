// world/search/hybrid-meili: Meilisearch's own hybrid search (keyword + semantic, its score fusion) with
// user-provided vectors from the local ONNX embedder — passage vectors stored with each document, a query vector
// sent with each search. The server does the fusion; this module only supplies vectors (MeiliIndex does the rest).
import { Embedder } from './embed/embedder'
import { passageTexts } from './dense'
import { MeiliIndex, type MeiliIndexOptions, type MeiliVectors } from './meilisearch'
import type { SearchDoc } from './types'

export interface MeiliHybridOptions extends Omit<MeiliIndexOptions, 'vectors'> {
  embedder: Embedder
  /** 0 = keyword only, 1 = semantic only (default 0.5). */
  semanticRatio?: number
  /** Words per embedded passage (default 100, as the dense engine). */
  passageWords?: number
}

/** Vectors from an embedder, in the shape MeiliIndex sends them. */
export function embedderVectors(embedder: Embedder, semanticRatio = 0.5, passageWords = 100): MeiliVectors {
  return {
    dimensions: embedder.dim,
    semanticRatio,
    async docs(docs: SearchDoc[]) {
      const per = docs.map((d) => passageTexts(d, passageWords))
      const flat = await embedder.embedPassages(per.flat())
      let at = 0
      return per.map((ps) => ps.map(() => flat[at++]))
    },
    queries: (qs: string[]) => embedder.embedQueries(qs),
  }
}

/** A Meilisearch index doing hybrid search with the embedder's vectors (engine name 'meili-hybrid'). */
export function openMeiliHybrid(opts: MeiliHybridOptions): Promise<MeiliIndex> {
  const { embedder, semanticRatio, passageWords, ...rest } = opts
  return MeiliIndex.open({ ...rest, vectors: embedderVectors(embedder, semanticRatio, passageWords) })
}
