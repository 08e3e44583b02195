// world/search/engine-names: the search engine names a world can be configured with (no engine code loaded).

export const ENGINE_NAMES = ['embedded', 'sqlite', 'meilisearch'] as const
export type EngineName = (typeof ENGINE_NAMES)[number]

export function isEngineName(v: unknown): v is EngineName {
  return typeof v === 'string' && (ENGINE_NAMES as readonly string[]).includes(v)
}
