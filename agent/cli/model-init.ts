// agent/cli/model-init: `searchgym model init` — the output folder as a flag, the knobs from the field table
// (infra/engine MODEL_INIT_FIELDS: --config, --set, --preset, --tokenizer, --seed, the old flags as aliases) →
// initModel(). Thin. Lives above world/ and infra/engine because it composes them: a world:DIR tokenizer is built from the world package's worldTexts(DIR); a bpe:DIR1,DIR2 one from the
// pages of every world listed plus namerLexicon (the name generator's own lists, for their configs' locales).
import type { Argv, Command } from '../../infra/cli-util'
import { handler } from '../../infra/cli-util'
import { EngineError } from '../../infra/errors'
import { fieldArgs, fieldOptions, identityOptions } from '../../infra/field-args'
import { keyNamer, type Namer } from '../../infra/fields'
import { initModel, MODEL_INIT_FIELDS, parseTokenizerSource, type ModelInitConfig, type StoredDtype, type TokenizerFlag, type TokenizerSource, type WorldTokenizerStats } from '../../infra/engine'
import { countWorldDocs, namerLexicon, worldEntityNames, worldNameLocales, worldTexts } from '../../world'

/** The search-r1 protocol's tags (`model init --tag-tokens`: one token each instead of spelled). */
export const SEARCH_R1_TAGS = ['<search>', '</search>', '<access>', '</access>', '<information>', '</information>']

/** How many times the name generator's lexicon counts in a bpe: tokenizer. A training world's pages repeat its own
 *  names many times, so a lexicon counted once barely moves the merges and a large vocabulary fills up with the
 *  training names whole: at 8192 ids an unseen seed's names then cost 1.40× a training world's; at 32, 1.13× (1.05× at
 *  4096), for 9–11 % more tokens on the training pages (bench/RESULTS.md, "One tokenizer for a world recipe"). */
export const LEXICON_WEIGHT = 32

export interface TokenizerSourceOptions {
  /** Every entity name of the world(s) one token (model init's key nameTokens). */
  names?: boolean
  /** The search-r1 tags one token each (tagTokens). */
  tags?: boolean
  /** bpe: only — the lexicon's weight against the pages (default LEXICON_WEIGHT; bench/perf/tokenizer-recipe sweeps it). */
  lexiconWeight?: number
}

/** The engine's tokenizer source for a `tokenizer` key: a world becomes its documents' texts; bpe: worlds become
 *  all their documents' texts plus namerLexicon's words (for the locales of every world listed) counted
 *  `lexiconWeight` times, for sub-word merges (with `names`, the worlds' entity names as one token each; with `tags`,
 *  the search-r1 tags too). `name` says how a key was given (a command line's Namer; default the key). */
export async function tokenizerSourceOf(flag: TokenizerFlag, o: TokenizerSourceOptions = {}, name: Namer = keyNamer()): Promise<TokenizerSource> {
  if (flag.kind === 'qwen3') {
    if (o.names || o.tags) throw new EngineError('engine.cli', `${name(o.names ? 'nameTokens' : 'tagTokens')} needs a world tokenizer (tokenizer world:DIR or bpe:DIRS): the qwen3 tokenizer is fixed`)
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

const DTYPES: Record<ModelInitConfig['dtype'], StoredDtype> = { f32: 'F32', bf16: 'BF16', f16: 'F16' }

export const modelInitCommand: Command = {
  command: 'init',
  describe: 'create a random model folder (config.json, model.safetensors, tokenizer, chat template) for tests and CPU demos',
  builder: (y: Argv) =>
    fieldOptions(
      identityOptions(y, ['out'])
        .option('force', { type: 'boolean', default: false, describe: 'write into a non-empty folder' })
        .example('$0 model init --preset tiny --tokenizer world:worlds/tiny --out models/tiny-world', '')
        .example('$0 model init --preset small --tokenizer bpe:worlds/s1,worlds/s2@8192 --set ropeTheta=10000 --out models/small-bpe', '')
        .example('$0 model init --preset small --tokenizer qwen3 --out models/small-qwen3 --seed 1', ''),
      MODEL_INIT_FIELDS,
    ),
  handler: handler(async (argv: Record<string, unknown>) => {
    const a = argv as { out: string; force: boolean }
    // Every knob typed and bounded by the table (named as given) before any world is read or file written.
    const { config: c, name } = fieldArgs<ModelInitConfig>(MODEL_INIT_FIELDS, argv)
    const t0 = performance.now()
    const r = initModel({
      backend: c.backend,
      arch: c.arch,
      preset: c.preset,
      tokenizer: await tokenizerSourceOf(parseTokenizerSource(c.tokenizer, name('tokenizer')), { names: c.nameTokens, tags: c.tagTokens }, name),
      out: a.out,
      seed: c.seed,
      dtype: DTYPES[c.dtype],
      force: a.force,
      embedStd: c.embedStd,
      qkNormWeight: c.qkNormWeight,
      ropeTheta: c.ropeTheta,
      headDim: c.headDim,
      showProgress: true,
    })
    const m = r.config
    process.stdout.write(
      `model init: ${r.dir}: ${m.arch} ${c.preset}, ${(r.parameters / 1e6).toFixed(2)}M parameters ` +
        `(L=${m.numLayers} C=${m.hiddenSize} H=${m.numHeads} KV=${m.numKvHeads} D=${m.headDim} V=${m.vocabSize}, rope θ ${m.ropeTheta}), tokenizer ${c.tokenizer} ` +
        `(${r.tokenizerVocab} ids${r.worldTokenizer ? `, ${tokenizerMade(r.worldTokenizer)}${c.nameTokens || c.tagTokens ? `, ${r.worldTokenizer.addedTokens} added tokens` : ''}` : ''}), ` +
        `seed ${c.seed}, ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    )
  }),
}

/** "1234 words from 4 docs" (words mode) or "3800 merges from 1210 docs + the name lists" (bpe). */
function tokenizerMade(t: WorldTokenizerStats): string {
  return t.mode === 'bpe' ? `${t.mergeTokens} merges from ${t.texts} docs + the name lists` : `${t.wordTokens} words from ${t.texts} docs`
}
