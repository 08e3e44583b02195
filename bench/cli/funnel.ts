// bench/cli/funnel: `searchgym bench funnel` — where a local model's reading breaks, per world and hop count: greedy
// episodes scored as a funnel (first search finds the question's page, the evidence opened, F1 with a 95 % CI) beside
// the answer read with the oracle's episode as context and its teacher-forced loss (curriculum/funnel). Thin.
import { writeFileSync } from 'node:fs'
import { basename } from 'node:path'
import { handler, type Argv, type Command } from '../../infra/cli-util'
import { BenchError } from '../../infra/errors'
import { readQaIds } from './run'
import { parseGymOptions } from './run-fields'
import { checkRunNumbers } from '../run'
import { READER_GYM, TEXT_PROTOCOLS, type TextProtocolName } from '../../gym'

export const funnelCommand: Command = {
  command: 'funnel',
  describe: 'the reading funnel of a local model on worlds: first search, page opened, answer read given the page, F1',
  builder: (y: Argv) =>
    y
      .option('model', { type: 'string', demandOption: true, describe: 'model folder (e.g. train sft --full OUT/model)' })
      .option('adapter', { type: 'string', describe: 'LoRA adapter folder on the model' })
      .option('world', { type: 'array', string: true, demandOption: true, describe: 'world folder; repeat for several (each reported alone)' })
      .option('hops', { type: 'string', default: '1,2', describe: 'hop counts, comma-separated' })
      .option('questions', { type: 'number', default: 300, describe: 'questions per world and hop count (a seeded draw; fewer when the world has fewer)' })
      .option('qa-ids', { type: 'string', describe: "JSON list of question ids to draw from (e.g. train sft's heldout.json: the training worlds' held-out slice; pooled ids WORLD/ID)" })
      .option('protocol', { type: 'string', default: 'search-r1', choices: [...TEXT_PROTOCOLS], describe: 'protocol the model was trained in' })
      .option('gym-options', { type: 'string', default: JSON.stringify(READER_GYM), describe: 'gym options as JSON (as in training; default the reader start\'s, READER_GYM)' })
      .option('oracle-answer', { type: 'string', default: 'read', choices: ['open', 'read'], describe: "the oracle demonstrations' answer step (as in training)" })
      .option('max-tokens', { type: 'number', default: 64, describe: 'max new tokens per turn' })
      .option('seed', { type: 'number', default: 0, describe: 'seed of the question draw' })
      .option('backend', { type: 'string', default: 'auto', describe: 'engine backend: auto | native | ts | cuda' })
      .option('show', { type: 'number', default: 0, describe: 'print this many teacher-forced answers per slice (question, gold, what the model wrote)' })
      .option('json', { type: 'string', describe: 'write the figures to this JSON file too' })
      .example('searchgym bench funnel --model runs/sft/model --world worlds/unseen1 --world worlds/unseen2 --hops 1,2 --questions 300', 'the funnel on two unseen worlds'),
  handler: handler(async (argv: Record<string, unknown>) => {
    const a = argv as Record<string, never>
    const hops = String(a.hops).split(',').map((x) => Number(x.trim()))
    if (!hops.every((h) => Number.isInteger(h) && h >= 1)) throw new BenchError('bench.args', `--hops must list hop counts ≥ 1, e.g. 1,2; got '${a.hops}'`)
    if (!(Number.isInteger(a.questions) && (a.questions as number) >= 1)) throw new BenchError('bench.args', `--questions must be an integer ≥ 1, got ${a.questions}`)
    if (!(Number.isInteger(a.show) && (a.show as number) >= 0 && (a.show as number) <= 10_000)) throw new BenchError('bench.args', `--show must be an integer in [0, 10000], got ${a.show}`)
    checkRunNumbers({ maxTokens: a['max-tokens'], seed: a.seed })
    const gym = parseGymOptions(a['gym-options'])
    const ids = a['qa-ids'] ? new Set(readQaIds(a['qa-ids'])) : undefined
    const { funnelLine, funnelQuestions, runFunnel, WorldPool } = await import('../../curriculum')
    const { openLocalEngine, CHECKED_WORLD_STAGES } = await import('../../agent')
    const { checkWorldDir } = await import('../../world')
    const worlds = a.world as string[]
    // Every world's rows against its hash, and every --qa-ids id a question of these worlds, before the model loads.
    for (const w of worlds) checkWorldDir(w, CHECKED_WORLD_STAGES)
    if (ids) {
      const pool = await WorldPool.open(worlds)
      try {
        const known = new Set([...pool.listQa('train'), ...pool.listQa('bench')].map((q) => q.id))
        const missing = [...ids].filter((id) => !known.has(id))
        if (missing.length > 0)
          throw new BenchError('bench.qa_ids', `${missing.length} of the ${ids.size} --qa-ids in ${a['qa-ids']} are not questions of ${worlds.length === 1 ? worlds[0] : `these ${worlds.length} worlds (pooled ids are WORLD/ID)`} (first: ${missing[0]})`)
      } finally {
        await pool.close()
      }
    }
    const e = openLocalEngine({ model: a.model, adapter: a.adapter, backend: a.backend, temperature: 0, maxTokensPerTurn: a['max-tokens'], seed: 0 })
    const out: Record<string, Record<string, unknown>> = {}
    // With --qa-ids, the worlds form one pool (the ids are pooled); otherwise each world is its own slice.
    const groups = ids ? [worlds] : worlds.map((w) => [w])
    for (const g of groups) {
      const pool = await WorldPool.open(g)
      try {
        const name = g.length === 1 ? g[0] : `pool of ${g.length} worlds (${basename(g[0])} … ${basename(g[g.length - 1])})`
        out[name] = {}
        for (const h of hops) {
          const qas = funnelQuestions(pool, h, a.questions, a.seed, ids)
          if (qas.length === 0) {
            process.stdout.write(`${name} ${h}-hop: no questions\n`)
            continue
          }
          const t0 = performance.now()
          const f = await runFunnel(e.model, e.codec, pool, qas, { protocol: a.protocol as TextProtocolName, gym, oracleAnswer: a['oracle-answer'], maxTokensPerTurn: a['max-tokens'], seed: a.seed, examples: Math.max(5, a.show) })
          out[name][`hops${h}`] = f
          process.stdout.write(`${name} ${h}-hop: ${funnelLine(f)}  (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`)
          for (const x of f.examples.slice(0, a.show)) process.stdout.write(`  ${x.question} → gold ${JSON.stringify(x.gold)}, model ${JSON.stringify(x.answer)} (F1 ${x.f1.toFixed(2)})\n`)
        }
      } finally {
        await pool.close()
      }
    }
    if (a.json) writeFileSync(a.json, JSON.stringify({ model: a.model, adapter: a.adapter ?? null, hops, questions: a.questions, seed: a.seed, results: out }, null, 2) + '\n')
  }),
}
