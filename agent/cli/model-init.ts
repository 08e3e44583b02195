// agent/cli/model-init: `searchgym model init` — flags → initModel(). Thin. Lives above world/ and infra/engine because it
// composes them: a world:DIR tokenizer is built from the world package's worldTexts(DIR); a bpe:DIR1,DIR2 one from the
// pages of every world listed plus namerLexicon (the name generator's own lists, for their configs' locales).
import type { Argv, Command } from '../../infra/cli-util'
import { handler } from '../../infra/cli-util'
import { EngineError } from '../../infra/errors'
import { BACKEND_NAMES, type BackendName, parseBackendName, initModel, parseTokenizerSource, type ModelArch, type ModelPresetName, type StoredDtype, type TokenizerFlag, type TokenizerSource, type WorldTokenizerStats } from '../../infra/engine'
import { countWorldDocs, namerLexicon, worldEntityNames, worldNameLocales, worldTexts } from '../../world'

/** The search-r1 protocol's tags (`model init --tag-tokens`: one token each instead of spelled). */
export const SEARCH_R1_TAGS = ['<search>', '</search>', '<access>', '</access>', '<information>', '</information>']

/** How many times the name generator's lexicon counts in a bpe: tokenizer. A training world's pages repeat its own
 *  names many times, so a lexicon counted once barely moves the merges and a large vocabulary fills up with the
 *  training names whole: at 8192 ids an unseen seed's names then cost 1.40× a training world's; at 32, 1.13× (1.05× at
 *  4096), for 9–11 % more tokens on the training pages (bench/RESULTS.md, "One tokenizer for a world recipe"). */
export const LEXICON_WEIGHT = 32

export interface TokenizerSourceOptions {
  /** Every entity name of the world(s) one token (model init --name-tokens). */
  names?: boolean
  /** The search-r1 tags one token each (--tag-tokens). */
  tags?: boolean
  /** bpe: only — the lexicon's weight against the pages (default LEXICON_WEIGHT; bench/perf/tokenizer-recipe sweeps it). */
  lexiconWeight?: number
}

/** The engine's tokenizer source for a `--tokenizer` flag: a world becomes its documents' texts; bpe: worlds become
 *  all their documents' texts plus namerLexicon's words (for the locales of every world listed) counted
 *  `lexiconWeight` times, for sub-word merges (with `names`, the worlds' entity names as one token each; with `tags`,
 *  the search-r1 tags too). */
export async function tokenizerSourceOf(flag: TokenizerFlag, o: TokenizerSourceOptions = {}): Promise<TokenizerSource> {
  if (flag.kind === 'qwen3') {
    if (o.names || o.tags) throw new EngineError('engine.cli', '--name-tokens and --tag-tokens need a world tokenizer (--tokenizer world:DIR or bpe:DIRS): the qwen3 tokenizer is fixed')
    return flag
  }
  const extra = o.tags ? { extraTokens: SEARCH_R1_TAGS } : {}
  if (flag.kind === 'world') {
    return {
      kind: 'texts',
      texts: worldTexts(flag.dir),
      count: countWorldDocs(flag.dir),
      vocabSize: flag.vocabSize,
      ...(o.names ? { nameTokens: worldEntityNames(flag.dir) } : {}),
      ...extra,
    }
  }
  const locales = [...new Set(flag.dirs.flatMap((d) => worldNameLocales(d)))]
  const lexicon = await namerLexicon(locales)
  return {
    kind: 'texts',
    mode: 'bpe',
    texts: (function* () {
      for (const d of flag.dirs) yield* worldTexts(d)
    })(),
    // Each word after a space, as a name stands inside a sentence (the tokenizer counts such a word bare too).
    weightedTexts: [{ text: ' ' + lexicon.join(' '), weight: o.lexiconWeight ?? LEXICON_WEIGHT }],
    count: flag.dirs.reduce((n, d) => n + countWorldDocs(d), 0),
    vocabSize: flag.vocabSize,
    ...(o.names ? { nameTokens: flag.dirs.flatMap((d) => worldEntityNames(d)) } : {}),
    ...extra,
  }
}

interface InitArgs {
  arch: ModelArch
  preset: ModelPresetName
  tokenizer: string
  out: string
  seed: number
  dtype: 'f32' | 'bf16' | 'f16'
  force: boolean
  backend: string
  'embed-std'?: number
  'qk-norm-weight'?: number
  'rope-theta'?: number
  'head-dim'?: number
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
      .option('preset', { choices: ['tiny', 'mini', 'small'] as const, default: 'tiny' as const, describe: 'size preset' })
      .option('tokenizer', {
        type: 'string',
        default: 'qwen3',
        describe: 'qwen3 (real Qwen3 tokenizer), world:DIR[@VOCAB] (small tokenizer: one world\'s words) or bpe:DIR1,DIR2[@VOCAB] (sub-word pieces of the worlds\' pages and their name generator\'s lists: one tokenizer for every seed of a recipe)',
      })
      .option('out', { type: 'string', demandOption: true, describe: 'output folder' })
      .option('seed', { type: 'number', default: 0, describe: 'seed of the random weights' })
      .option('dtype', { choices: ['f32', 'bf16', 'f16'] as const, default: 'f32' as const, describe: 'stored weight dtype' })
      .option('embed-std', { type: 'number', describe: 'std of the random embedding / tied output head (default 0.02; LoRA training demos: 0.25, see bench/RESULTS.md)' })
      .option('qk-norm-weight', { type: 'number', describe: 'gain of the q_norm/k_norm weights (default 1; LoRA training demos: 2.5, see bench/RESULTS.md)' })
      .option('rope-theta', { type: 'number', describe: "RoPE base frequency, config.json rope_theta (default the preset's: 1000000)" })
      .option('head-dim', { type: 'number', describe: "width of one attention head, config.json head_dim, even (default the preset's: tiny 16, small 32)" })
      .option('name-tokens', { type: 'boolean', default: false, describe: "world tokenizer: every entity name of the world is one token (with and without a leading space); give it room with world:DIR@VOCAB, e.g. @8192" })
      .option('tag-tokens', { type: 'boolean', default: false, describe: 'world tokenizer: the search-r1 tags (<search>, <access>, <information> and their ends) one token each' })
      .option('force', { type: 'boolean', default: false, describe: 'write into a non-empty folder' })
      .option('backend', { type: 'string', default: 'auto', describe: `engine backend the weights pass through: ${BACKEND_NAMES.join(' | ')} (files are identical)` })
      .example('$0 model init --preset tiny --tokenizer world:worlds/tiny --out models/tiny-world', '')
      .example('$0 model init --preset small --tokenizer bpe:worlds/s1,worlds/s2@8192 --rope-theta 10000 --out models/small-bpe', '')
      .example('$0 model init --preset small --tokenizer qwen3 --out models/small-qwen3 --seed 1', ''),
  handler: handler(async (argv: Record<string, unknown>) => {
    const a = argv as unknown as InitArgs
    if (!Number.isInteger(a.seed)) throw new EngineError('engine.cli', `--seed must be an integer, got ${a.seed}`)
    const t0 = performance.now()
    const backend: BackendName = parseBackendName(a.backend)
    const r = initModel({
      backend,
      arch: a.arch,
      preset: a.preset,
      tokenizer: await tokenizerSourceOf(parseTokenizerSource(a.tokenizer), { names: a['name-tokens'], tags: a['tag-tokens'] }),
      out: a.out,
      seed: a.seed,
      dtype: DTYPES[a.dtype],
      force: a.force,
      embedStd: a['embed-std'],
      qkNormWeight: a['qk-norm-weight'],
      ropeTheta: a['rope-theta'],
      headDim: a['head-dim'],
      showProgress: true,
    })
    const c = r.config
    process.stdout.write(
      `model init: ${r.dir}: ${c.arch} ${a.preset}, ${(r.parameters / 1e6).toFixed(2)}M parameters ` +
        `(L=${c.numLayers} C=${c.hiddenSize} H=${c.numHeads} KV=${c.numKvHeads} D=${c.headDim} V=${c.vocabSize}, rope θ ${c.ropeTheta}), tokenizer ${a.tokenizer} ` +
        `(${r.tokenizerVocab} ids${r.worldTokenizer ? `, ${tokenizerMade(r.worldTokenizer)}${a['name-tokens'] || a['tag-tokens'] ? `, ${r.worldTokenizer.addedTokens} added tokens` : ''}` : ''}), ` +
        `seed ${a.seed}, ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    )
  }),
}

/** "1234 words from 4 docs" (words mode) or "3800 merges from 1210 docs + the name lists" (bpe). */
function tokenizerMade(t: WorldTokenizerStats): string {
  return t.mode === 'bpe' ? `${t.mergeTokens} merges from ${t.texts} docs + the name lists` : `${t.wordTokens} words from ${t.texts} docs`
}
