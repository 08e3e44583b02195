// bench/perf/reader-contiguity: how often the answer's tokens, as the answer turn renders them (` X`), are a
// contiguous run of the page's tokens in the reading drill — the share of questions where copying the answer off the
// page is token-exact — with the reader gym's leadSpace option off (before) and on (after), on the one-hop questions
// of the given worlds, under a model folder's tokenizer.
// usage: node bin/run-ts.mjs bench/perf/reader-contiguity.ts MODEL_DIR WORLD...
import { ChatCodec, chatTemplateOf, loadTokenizer, SIMPLE_QWEN_TEMPLATE } from '../../infra/engine'
import { READER_GYM, resolveGymOptions } from '../../gym'
import { WorldPool } from '../../curriculum'
import { answerContiguity, DrillCache, playOracle } from '../../curriculum/reading/pool'

const [modelDir, ...worlds] = process.argv.slice(2)
if (!modelDir || worlds.length === 0) {
  process.stderr.write('usage: node bin/run-ts.mjs bench/perf/reader-contiguity.ts MODEL_DIR WORLD...\n')
  process.exit(2)
}
const tok = loadTokenizer(modelDir)
const codec = new ChatCodec(tok, chatTemplateOf(tok, SIMPLE_QWEN_TEMPLATE))
const pool = await WorldPool.open(worlds)
try {
  const qas = [...pool.listQa('train'), ...pool.listQa('bench')].filter((q) => q.hops === 1)
  for (const leadSpace of [false, true]) {
    const gym = resolveGymOptions({ ...READER_GYM, leadSpace, protocol: 'search-r1' })
    const { items } = await playOracle(pool, qas, { gym, maxTokens: 1 << 20 })
    const c = answerContiguity(new DrillCache(items, codec, leadSpace, 1 << 20), codec)
    process.stdout.write(`leadSpace ${leadSpace}: the answer is a contiguous run of the page's tokens in ${c.contiguous} of ${c.n} one-hop questions (${((100 * c.contiguous) / c.n).toFixed(1)} %)\n`)
  }
} finally {
  await pool.close()
}
