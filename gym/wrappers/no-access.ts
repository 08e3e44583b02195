// gym/wrappers/no-access: the paper's no-Access ablation on a GymWorld — search returns whole documents in place of
// snippets; the env is then built with tools ['search'] so that access is disabled (makeEnv does both).
import type { GymWorld } from '../world-view'

export function withFullDocumentSearch(world: GymWorld): GymWorld {
  return {
    name: world.name,
    qa: (id) => world.qa(id),
    listQa: (split) => world.listQa(split),
    close: () => world.close(),
    access: (url) => world.access(url),
    async search(query, k) {
      const hits = await world.search(query, k)
      const pages = await Promise.all(hits.map((h) => world.access(h.url)))
      return hits.map((h, i) => ({ title: h.title, url: h.url, snippet: pages[i]?.text ?? h.snippet }))
    },
  }
}
