// world/search/engine-names: the search engine names a world can be configured with (no engine code loaded).

export const ENGINE_NAMES = ['embedded', 'sqlite', 'meilisearch', 'dense', 'hybrid'] as const
export type EngineName = (typeof ENGINE_NAMES)[number]

export function isEngineName(v: unknown): v is EngineName {
  return typeof v === 'string' && (ENGINE_NAMES as readonly string[]).includes(v)
}

/** Engines that embed passages with a local ONNX model (config.search.embedder / --embedder DIR). */
export function needsEmbedder(engine: EngineName): engine is 'dense' | 'hybrid' {
  return engine === 'dense' || engine === 'hybrid'
}
