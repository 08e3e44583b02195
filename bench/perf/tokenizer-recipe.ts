// bench/perf/tokenizer-recipe: does one tokenizer serve every seed of a world recipe? Builds (or takes) training worlds
// and one unseen-seed world of a recipe (graph and docs stages only: pages and names are all a tokenizer reads), builds
// the tokenizers `model init` would (words: world:FIRST_TRAIN@V; bpe: bpe:TRAIN1,TRAIN2@V), and prints tokens per
// entity name on the training worlds vs the unseen one, and tokens per 1,000 page characters. Issue 44, item 2.
// `--lexicon-weights 1,32` also sweeps how much the name generator's lists count against the pages (default: model
// init's LEXICON_WEIGHT only).
// Usage: node bin/run-ts.mjs bench/perf/tokenizer-recipe.ts [--config F] [--preset P] [--train-seeds 1,2] [--unseen-seed 9]
//   [--vocabs 4096,8192] [--lexicon-weights W1,W2] [--cache DIR] [--train DIR1,DIR2 --unseen DIR]
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { LEXICON_WEIGHT, tokenizerSourceOf } from '../../agent'
import { recipeConfig, worldComplete } from '../../curriculum'
import { readJsonFile } from '../../infra/config'
import { buildWorldTokenizer, loadTokenizer, parseTokenizerSource, saveTokenizerFiles, type TextTokenizer } from '../../infra/engine'
import { canonicalJson, sha256 } from '../../infra/hash'
import { buildWorld, WORLD_STAGES, worldEntityNames, worldTexts } from '../../world'
import { machineLine, perfArgs, tempDir, timed } from './perf-kit'

const USAGE =
  'tokenizer-recipe.ts [--config F] [--preset P] [--train-seeds 1,2] [--unseen-seed 9] [--vocabs 4096,8192] [--lexicon-weights W1,W2] [--cache DIR] [--train DIR1,DIR2 --unseen DIR]'
const { values: o } = perfArgs(USAGE, {
  config: { type: 'string', default: 'bench/perf/configs/world-small2x-1to2.json' },
  preset: { type: 'string', default: 'small' },
  'train-seeds': { type: 'string', default: '1,2' },
  'unseen-seed': { type: 'string', default: '9' },
  vocabs: { type: 'string', default: '4096,8192' },
  'lexicon-weights': { type: 'string', default: String(LEXICON_WEIGHT) },
  cache: { type: 'string' },
  train: { type: 'string' },
  unseen: { type: 'string' },
})
const ints = (s: string) => s.split(',').map(Number)
const tmp = tempDir('sg-tok-recipe-')

/** Pages and names only: the stages after docs (index, verify, qa, …) change neither. Its own folder names ("-docs"),
 *  so an experiment's cache never takes one of these for a whole world. */
async function docsWorld(seed: number): Promise<string> {
  const overrides = readJsonFile(o.config!) as Record<string, unknown>
  const config = recipeConfig({ preset: o.preset!, config: overrides, seeds: [seed] }, seed)
  const dir = join(resolve(o.cache ?? tmp.dir), `${o.preset}-${sha256(canonicalJson(overrides)).slice(0, 8)}-s${seed}-docs`)
  if (!worldComplete(dir)) {
    const t = await timed(() => buildWorld({ config, dir, quiet: true, stages: WORLD_STAGES.slice(0, 2) }))
    process.stderr.write(`world ${dir}: graph + docs in ${t.wall.toFixed(1)} s\n`)
  }
  return dir
}

const train = o.train ? o.train.split(',') : await Promise.all(ints(o['train-seeds']!).map(docsWorld))
const unseen = o.unseen ?? (await docsWorld(Number(o['unseen-seed'])))
for (const d of [...train, unseen]) if (!existsSync(join(d, 'world.db'))) throw new Error(`no world at ${d}`)

const names = (dir: string) => worldEntityNames(dir)
/** Mean ids of " NAME" (as a name stands inside a sentence) over a world's entities. */
const perName = (tok: TextTokenizer, dir: string) => {
  const ns = names(dir)
  return ns.reduce((n, s) => n + tok.encode(` ${s}`).length, 0) / ns.length
}
/** Ids per 1,000 characters of a world's pages. */
const perKChar = (tok: TextTokenizer, dir: string) => {
  let ids = 0, chars = 0
  for (const t of worldTexts(dir)) (ids += tok.encode(t).length), (chars += t.length)
  return (1000 * ids) / chars
}

interface Row { flag: string; ids: number; buildS: number; trainName: number; unseenName: number; trainPage: number; unseenPage: number }
const rows: Row[] = []
const runs = [
  ...ints(o.vocabs!).map((vocab) => ({ flag: `world:${train[0]}@${vocab}`, label: `words @${vocab}`, weight: 0 })),
  ...ints(o['lexicon-weights']!).flatMap((weight) => ints(o.vocabs!).map((vocab) => ({ flag: `bpe:${train.join(',')}@${vocab}`, label: `bpe @${vocab}, lexicon ×${weight}`, weight }))),
]
for (const [i, run] of runs.entries()) {
  const built = await timed(async () => {
    const src = await tokenizerSourceOf(parseTokenizerSource(run.flag), { lexiconWeight: run.weight || undefined })
    if (src.kind !== 'texts') throw new Error('unreachable')
    return buildWorldTokenizer(src.texts, { mode: src.mode, vocabSize: src.vocabSize, weightedTexts: src.weightedTexts })
  })
  const dir = join(tmp.dir, `tok-${i}`)
  saveTokenizerFiles(dir, built.value)
  const tok = loadTokenizer(dir)
  // Training worlds: the mean over those the tokenizer read (words mode: the first only).
  const trainDirs = run.flag.startsWith('world:') ? [train[0]] : train
  const mean = (f: (d: string) => number) => trainDirs.reduce((n, d) => n + f(d), 0) / trainDirs.length
  rows.push({ flag: run.label, ids: tok.vocabSize, buildS: built.wall, trainName: mean((d) => perName(tok, d)), unseenName: perName(tok, unseen), trainPage: mean((d) => perKChar(tok, d)), unseenPage: perKChar(tok, unseen) })
  process.stderr.write(`${run.label}: built in ${built.wall.toFixed(1)} s\n`)
}

console.log(`${machineLine()}; recipe ${o.preset} + ${o.config}; training worlds ${train.join(', ')}; unseen ${unseen}`)
console.log(`entities: ${train.map((d) => names(d).length).join(' + ')} training, ${names(unseen).length} unseen\n`)
console.log('| tokenizer | ids | build s | tokens/name, training | tokens/name, unseen | unseen ÷ training | tokens/1k chars, training pages | tokens/1k chars, unseen pages |')
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for (const r of rows)
  console.log(`| ${r.flag} | ${r.ids} | ${r.buildS.toFixed(1)} | ${r.trainName.toFixed(2)} | ${r.unseenName.toFixed(2)} | ${(r.unseenName / r.trainName).toFixed(2)}× | ${r.trainPage.toFixed(1)} | ${r.unseenPage.toFixed(1)} |`)
tmp.remove()
