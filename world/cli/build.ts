// world/cli/build: `searchgym world build` — preset, --config FILE, --set KEY=VALUE and a few flags → WorldConfig →
// buildWorld over the given stage list → one-screen summary. Its help lists the config keys (world/config-fields).
import { handler, type Command } from '../../infra/cli-util'
import { buildWorld } from '../build/build'
import { loadWorldConfig, WORLD_PRESET_NAMES } from '../config'
import { openWorld } from '../store/open'
import { computeStats, formatStats } from '../build/stats'
import type { Stage } from '../stage'
import { ENGINE_NAMES } from '../search/engine-names'
import { ConfigError } from '../../infra/errors'
import { llmOptions, llmSets } from '../write/cli-options'
import { keysHelp } from '../../infra/field-args'
import { WORLD_FIELDS } from '../config-fields'

interface Args { preset?: string; config?: string; seed?: number; out: string; quiet?: boolean; search?: string; meiliUrl?: string; embedder?: string; set?: string | string[] }

export function buildCommand(stages: readonly Stage[]): Command {
  return {
    command: 'build',
    describe: 'build (or finish) a world: graph, documents and every later stage, into one SQLite file',
    builder: (y) =>
      llmOptions(y)
        .option('preset', { type: 'string', choices: [...WORLD_PRESET_NAMES], describe: 'size preset (default paper); a --config file is merged over it' })
        .option('config', { type: 'string', describe: 'WorldConfig JSON file (unknown keys rejected)' })
        .option('seed', { type: 'number', describe: 'seed of every random draw (overrides the config)' })
        .option('out', { type: 'string', demandOption: true, describe: 'output folder (new, empty, or an unfinished world of the same config)' })
        .option('search', { type: 'string', choices: [...ENGINE_NAMES], describe: 'search engine the world is verified with and served by (default embedded)' })
        .option('embedder', { type: 'string', describe: 'dense/hybrid: sentence-embedding model directory (model.onnx + tokenizer.json)' })
        .option('meili-url', { type: 'string', describe: 'URL of a running Meilisearch (key in $MEILI_MASTER_KEY); default: start a local one' })
        .option('set', { type: 'string', describe: 'KEY=VALUE: one config key (see below) over the preset and --config (repeatable), e.g. --set write.model=M --set write.baseUrl=URL for LLM-rewritten documents' })
        .option('quiet', { type: 'boolean', describe: 'no progress output (also SEARCHGYM_QUIET=1)' })
        .group(['preset', 'out', 'config', 'set', 'seed'], 'World:')
        .group(['search', 'embedder', 'meili-url'], 'Search engine:')
        .example('searchgym world build --preset paper --out worlds/paper', 'the paper-scale world (~30 s on an idle 2-core machine)')
        .example('searchgym world build --preset tiny --seed 3 --out worlds/tiny-3', 'a tiny world with another seed')
        .epilogue(keysHelp(WORLD_FIELDS)),
    handler: handler(async (raw: object) => {
      const a = raw as Args
      const sets = [...llmSets(raw as Record<string, unknown>), ...(a.set === undefined ? [] : ([] as string[]).concat(a.set))]
      const config = loadWorldConfig({ preset: a.preset, configFile: a.config, seed: a.seed, search: a.search, meiliUrl: a.meiliUrl, embedder: a.embedder, set: sets })
      // An endpoint without a model would make no call and leave the template documents: refused, as before.
      if (sets.some((x) => x.startsWith('write.baseUrl=')) && config.write.model === '') throw new ConfigError('config.write', 'write.baseUrl needs write.model (the model name at that endpoint)')
      const res = await buildWorld({ config, dir: a.out, quiet: a.quiet, stages })
      const w = openWorld(a.out)
      try {
        const s = computeStats(w.db, a.out, w.manifest, w.stages)
        process.stdout.write(formatStats(s) + '\n')
        // A finished world rebuilt runs no stage: say so rather than "built in" the time its checks took.
        if (res.stages.every((r) => r.outcome !== 'ran')) process.stdout.write(`already built: every stage found done (checked in ${res.seconds.toFixed(1)} s; nothing rebuilt)\n`)
        else process.stdout.write(`built in ${res.seconds.toFixed(1)} s (${res.stages.map((r) => `${r.name} ${r.outcome === 'ran' ? r.seconds.toFixed(1) + ' s' : 'skipped'}`).join(', ')})\n`)
      } finally {
        w.close()
      }
    }),
  }
}
