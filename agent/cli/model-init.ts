// agent/cli/model-init: `searchgym model init` — flags → initModel(). Thin. Lives above world/ and infra/engine because it
// composes them: a world:DIR tokenizer is built from the world package's worldTexts(DIR).
import type { Argv, Command } from '../../infra/cli-util'
import { handler } from '../../infra/cli-util'
import { EngineError } from '../../infra/errors'
import { BACKEND_NAMES, type BackendName, parseBackendName, initModel, parseTokenizerSource, type ModelArch, type PresetName, type StoredDtype, type TokenizerFlag, type TokenizerSource } from '../../infra/engine'
import { countWorldDocs, worldEntityNames, worldTexts } from '../../world'

/** The search-r1 protocol's tags (`model init --tag-tokens`: one token each instead of spelled). */
export const SEARCH_R1_TAGS = ['<search>', '</search>', '<access>', '</access>', '<information>', '</information>']

/** The engine's tokenizer source for a `--tokenizer` flag: a world becomes its documents' texts (with `names`, its
 *  entity names as one token each; with `tags`, the search-r1 tags too). */
export function tokenizerSourceOf(flag: TokenizerFlag, o: { names?: boolean; tags?: boolean } = {}): TokenizerSource {
  if (flag.kind === 'qwen3') {
    if (o.names || o.tags) throw new EngineError('engine.cli', '--name-tokens and --tag-tokens need a world tokenizer (--tokenizer world:DIR): the qwen3 tokenizer is fixed')
    return flag
  }
  return {
    kind: 'texts',
    texts: worldTexts(flag.dir),
    count: countWorldDocs(flag.dir),
    vocabSize: flag.vocabSize,
    ...(o.names ? { nameTokens: worldEntityNames(flag.dir) } : {}),
    ...(o.tags ? { extraTokens: SEARCH_R1_TAGS } : {}),
  }
}

interface InitArgs {
  arch: ModelArch
  preset: PresetName
  tokenizer: string
  out: string
  seed: number
  dtype: 'f32' | 'bf16' | 'f16'
  force: boolean
  backend: string
  'embed-std'?: number
  'qk-norm-weight'?: number
  'name-tokens': boolean
  'tag-tokens': boolean
}

const DTYPES: Record<InitArgs['dtype'], StoredDtype> = { f32: 'F32', bf16: 'BF16', f16: 'F16' }

export const modelInitCommand: Command = {
  command: 'init',
  describe: 'create a random model folder (config.json, model.safetensors, tokenizer, chat template) for tests and CPU demos',
  builder: (y: Argv) =>
    y
      .option('arch', { choices: ['qwen3', 'qwen2', 'llama'] as const, default: 'qwen3' as const, describe: 'architecture' })
      .option('preset', { choices: ['tiny', 'small'] as const, default: 'tiny' as const, describe: 'size preset' })
      .option('tokenizer', { type: 'string', default: 'qwen3', describe: 'qwen3 (real Qwen3 tokenizer) or world:DIR[@VOCAB] (small tokenizer from a world)' })
      .option('out', { type: 'string', demandOption: true, describe: 'output folder' })
      .option('seed', { type: 'number', default: 0, describe: 'seed of the random weights' })
      .option('dtype', { choices: ['f32', 'bf16', 'f16'] as const, default: 'f32' as const, describe: 'stored weight dtype' })
      .option('embed-std', { type: 'number', describe: 'std of the random embedding / tied output head (default 0.02; LoRA training demos: 0.25, see bench/RESULTS.md)' })
      .option('qk-norm-weight', { type: 'number', describe: 'gain of the q_norm/k_norm weights (default 1; LoRA training demos: 2.5, see bench/RESULTS.md)' })
      .option('name-tokens', { type: 'boolean', default: false, describe: "world tokenizer: every entity name of the world is one token (with and without a leading space); give it room with world:DIR@VOCAB, e.g. @8192" })
      .option('tag-tokens', { type: 'boolean', default: false, describe: 'world tokenizer: the search-r1 tags (<search>, <access>, <information> and their ends) one token each' })
      .option('force', { type: 'boolean', default: false, describe: 'write into a non-empty folder' })
      .option('backend', { type: 'string', default: 'auto', describe: `engine backend the weights pass through: ${BACKEND_NAMES.join(' | ')} (files are identical)` })
      .example('$0 model init --preset tiny --tokenizer world:worlds/tiny --out models/tiny-world', '')
      .example('$0 model init --preset small --tokenizer qwen3 --out models/small-qwen3 --seed 1', ''),
  handler: handler((argv: Record<string, unknown>) => {
    const a = argv as unknown as InitArgs
    if (!Number.isInteger(a.seed)) throw new EngineError('engine.cli', `--seed must be an integer, got ${a.seed}`)
    const t0 = performance.now()
    const backend: BackendName = parseBackendName(a.backend)
    const r = initModel({
      backend,
      arch: a.arch,
      preset: a.preset,
      tokenizer: tokenizerSourceOf(parseTokenizerSource(a.tokenizer), { names: a['name-tokens'], tags: a['tag-tokens'] }),
      out: a.out,
      seed: a.seed,
      dtype: DTYPES[a.dtype],
      force: a.force,
      embedStd: a['embed-std'],
      qkNormWeight: a['qk-norm-weight'],
      showProgress: true,
    })
    const c = r.config
    process.stdout.write(
      `model init: ${r.dir}: ${c.arch} ${a.preset}, ${(r.parameters / 1e6).toFixed(2)}M parameters ` +
        `(L=${c.numLayers} C=${c.hiddenSize} H=${c.numHeads} KV=${c.numKvHeads} V=${c.vocabSize}), tokenizer ${a.tokenizer} ` +
        `(${r.tokenizerVocab} ids${r.worldTokenizer ? `, ${r.worldTokenizer.wordTokens} words from ${r.worldTokenizer.texts} docs${a['name-tokens'] || a['tag-tokens'] ? `, ${r.worldTokenizer.addedTokens} added tokens` : ''}` : ''}), ` +
        `seed ${a.seed}, ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    )
  }),
}
