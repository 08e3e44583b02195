// bench/cli/funnel: `searchgym bench funnel` — where a local model's reading breaks, per world and hop count: greedy
// episodes scored as a funnel (first search finds the question's page, the evidence opened, F1 with a 95 % CI) beside
// the answer read with the oracle's episode as context and its teacher-forced loss (curriculum/funnel). Thin.
import { writeFileSync } from 'node:fs'
import { basename } from 'node:path'
import { handler, type Argv, type Command } from '../../infra/cli-util'
import { BenchError } from '../../infra/errors'
import { fieldArgs, fieldOptions, identityOptions } from '../../infra/field-args'
import type { FieldTable } from '../../infra/fields'
import { readQaIds } from '../run-config'
import { checkBenchGym, gymOptionsText } from '../run-fields'
import { RUN_NUMBER_BOUNDS } from '../run'
import { READER_GYM, TEXT_PROTOCOLS, type GymOptionsJson, type TextProtocolName } from '../../gym'

interface FunnelConfig {
  hops: number[]
  questions: number
  qaIds?: string
  protocol: TextProtocolName
  gym: GymOptionsJson
  oracleAnswer: 'open' | 'read'
  maxTokens: number
  seed: number
  backend: string
  show: number
  json?: string
}

/** `bench funnel`'s knobs, once (the model, adapter and worlds are its identity flags). */
export const FUNNEL_FIELDS: FieldTable = [
  { key: 'hops', type: 'list', of: 'int', min: 1, max: 12, default: [1, 2], flag: 'hops', help: 'hop counts, comma-separated' },
  { key: 'questions', type: 'int', min: 1, max: 10_000_000, default: 300, flag: 'questions', help: 'questions per world and hop count (a seeded draw; fewer when the world has fewer)' },
  { key: 'qaIds', type: 'string', optional: true, aliases: ['qa-ids'], help: "JSON list of question ids to draw from (e.g. train sft's heldout.json: the training worlds' held-out slice; pooled ids WORLD/ID)" },
  { key: 'protocol', type: 'enum', choices: TEXT_PROTOCOLS, default: 'search-r1', aliases: ['protocol'], help: 'protocol the model was trained in' },
  { key: 'gym', type: 'json', default: READER_GYM, aliases: ['gym-options'], parse: (t, name) => gymOptionsText(t, name), check: (v, _fail, name) => checkBenchGym(v, name, 'the protocol key'), help: "gym options (as in training; default the reader start's, READER_GYM); on the command line inline JSON or a file" },
  { key: 'oracleAnswer', type: 'enum', choices: ['open', 'read'], default: 'read', aliases: ['oracle-answer'], help: "the oracle demonstrations' answer step (as in training)" },
  { key: 'maxTokens', type: 'int', min: RUN_NUMBER_BOUNDS.maxTokens.lo, max: RUN_NUMBER_BOUNDS.maxTokens.hi, default: 64, aliases: ['max-tokens'], help: 'max new tokens per turn' },
  { key: 'seed', type: 'int', min: RUN_NUMBER_BOUNDS.seed.lo, max: RUN_NUMBER_BOUNDS.seed.hi, default: 0, aliases: ['seed'], help: 'seed of the question draw' },
  { key: 'backend', type: 'string', default: 'auto', flag: 'backend', help: 'engine backend: auto | native | ts | cuda' },
  { key: 'show', type: 'int', min: 0, max: 10_000, default: 0, aliases: ['show'], help: 'print this many teacher-forced answers per slice (question, gold, what the model wrote)' },
  { key: 'json', type: 'string', optional: true, aliases: ['json'], help: 'write the figures to this JSON file too' },
]

export const funnelCommand: Command = {
  command: 'funnel',
  describe: 'the reading funnel of a local model on worlds: first search, page opened, answer read given the page, F1',
  builder: (y: Argv) =>
    fieldOptions(
      identityOptions(y, ['model', 'adapter', 'world'], {
        model: 'model folder (e.g. train sft --full OUT/model)',
        adapter: 'LoRA adapter folder on the model',
        world: 'world folder; repeat for several (each reported alone)',
      }).example('searchgym bench funnel --model runs/sft/model --world worlds/unseen1 --world worlds/unseen2 --hops 1,2 --questions 300', 'the funnel on two unseen worlds'),
      FUNNEL_FIELDS,
    ),
  handler: handler(async (argv: Record<string, unknown>) => {
    // Every knob typed and bounded by the table (named as given) before any world or model is opened.
    const { config: c } = fieldArgs<FunnelConfig>(FUNNEL_FIELDS, argv)
    const a = argv as { model: string; adapter?: string; world: string[] }
    const { hops, gym } = c
    const ids = c.qaIds ? new Set(readQaIds(c.qaIds)) : undefined
    const { funnelLine, funnelQuestions, runFunnel, WorldPool } = await import('../../curriculum')
    const { openLocalEngine, CHECKED_WORLD_STAGES } = await import('../../agent')
    const { checkWorldDir } = await import('../../world')
    const worlds = a.world
    // Every world's rows against its hash, and every --qa-ids id a question of these worlds, before the model loads.
    for (const w of worlds) checkWorldDir(w, CHECKED_WORLD_STAGES)
    if (ids) {
      const pool = await WorldPool.open(worlds)
      try {
        const known = new Set([...pool.listQa('train'), ...pool.listQa('bench')].map((q) => q.id))
        const missing = [...ids].filter((id) => !known.has(id))
        if (missing.length > 0)
          throw new BenchError('bench.qa_ids', `${missing.length} of the ${ids.size} qaIds in ${c.qaIds} are not questions of ${worlds.length === 1 ? worlds[0] : `these ${worlds.length} worlds (pooled ids are WORLD/ID)`} (first: ${missing[0]})`)
      } finally {
        await pool.close()
      }
    }
    const e = openLocalEngine({ model: a.model, adapter: a.adapter, backend: c.backend, temperature: 0, maxTokensPerTurn: c.maxTokens, seed: 0 })
    const out: Record<string, Record<string, unknown>> = {}
    // With --qa-ids, the worlds form one pool (the ids are pooled); otherwise each world is its own slice.
    const groups = ids ? [worlds] : worlds.map((w) => [w])
    for (const g of groups) {
      const pool = await WorldPool.open(g)
      try {
        const name = g.length === 1 ? g[0] : `pool of ${g.length} worlds (${basename(g[0])} … ${basename(g[g.length - 1])})`
        out[name] = {}
        for (const h of hops) {
          const qas = funnelQuestions(pool, h, c.questions, c.seed, ids)
          if (qas.length === 0) {
            process.stdout.write(`${name} ${h}-hop: no questions\n`)
            continue
          }
          const t0 = performance.now()
          const f = await runFunnel(e.model, e.codec, pool, qas, { protocol: c.protocol, gym, oracleAnswer: c.oracleAnswer, maxTokensPerTurn: c.maxTokens, seed: c.seed, examples: Math.max(5, c.show) })
          out[name][`hops${h}`] = f
          process.stdout.write(`${name} ${h}-hop: ${funnelLine(f)}  (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`)
          for (const x of f.examples.slice(0, c.show)) process.stdout.write(`  ${x.question} → gold ${JSON.stringify(x.gold)}, model ${JSON.stringify(x.answer)} (F1 ${x.f1.toFixed(2)})\n`)
        }
      } finally {
        await pool.close()
      }
    }
    if (c.json) writeFileSync(c.json, JSON.stringify({ model: a.model, adapter: a.adapter ?? null, hops, questions: c.questions, seed: c.seed, results: out }, null, 2) + '\n')
  }),
}
