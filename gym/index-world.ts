// gym/index-world: a GymWorld over a SearchIndex (search, and access through the engine's own document store) and
// a list of QA — the adapter openGymWorld builds from a world folder. Knows no SQL and no engine internals.
import type { SearchIndex } from '../world'
import type { Qa, Split } from '../world'
import type { GymWorld, SearchResult } from './world-view'

export function gymWorldFromIndex(name: string, index: SearchIndex, qas: Qa[], onClose?: () => Promise<void> | void): GymWorld {
  const byId = new Map(qas.map((q) => [q.id, q]))
  const bySplit = new Map<string, Qa[]>([['train', qas.filter((q) => q.split === 'train')], ['bench', qas.filter((q) => q.split === 'bench')]])
  const hit = (h: { title: string; url: string; snippet: string; score: number }): SearchResult => ({ title: h.title, url: h.url, snippet: h.snippet, score: h.score })
  return {
    name,
    async search(query, k) {
      return (await index.search(query, { k })).map(hit)
    },
    async searchMany(queries, k) {
      return (await index.searchMany(queries, { k })).map((hs) => hs.map(hit))
    },
    async access(url) {
      const d = await index.get(url)
      return d ? { title: d.title, url: d.url, text: d.text } : undefined
    },
    qa: (id) => byId.get(id),
    listQa: (split?: Split) => (split === undefined ? qas : (bySplit.get(split) ?? [])),
    async close() {
      await index.close()
      await onClose?.()
    },
  }
}
