// tests/helpers/world-texts: the engine's tokenizer source for a world folder (its documents' texts, read by the world
// package) — what `searchgym model init --tokenizer world:DIR` composes, for tests that call initModel directly.
import type { TokenizerSource } from '../../infra/engine'
import { countWorldDocs, worldTexts } from '../../world'

export function worldTokenizer(dir: string, vocabSize?: number): TokenizerSource {
  return { kind: 'texts', texts: worldTexts(dir), count: countWorldDocs(dir), ...(vocabSize !== undefined ? { vocabSize } : {}) }
}
