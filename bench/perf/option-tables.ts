// bench/perf/option-tables: docs/options.md — the option table of every run kind that has a field table, derived from
// the table (infra/fields fieldsMarkdown), never written by hand; tests/options-doc.test.ts checks the file is current.
//   node bin/run-ts.mjs bench/perf/option-tables.ts > docs/options.md
import { fieldsMarkdown, type FieldTable } from '../../infra/fields'
import { SFT_FIELDS } from '../../curriculum'
import { GYM_CHECK_FIELDS, PRETRAIN_FIELDS, TRAIN_FIELDS } from '../../agent'
import { MODEL_INIT_FIELDS, MODEL_SERVE_FIELDS } from '../../infra/engine'
import { BENCH_RUN_FIELDS } from '../run-fields'
import { FUNNEL_FIELDS } from '../cli/funnel'
import { GYM_SERVE_FIELDS } from '../../gym/cli/serve-fields'
import { MCP_FIELDS } from '../../gym/cli/mcp'
import { WORLD_FIELDS } from '../../world'

/** The run kinds with a field table, in the order the page lists them: [heading anchor, command, table]. */
export const OPTION_TABLES: readonly (readonly [string, string, FieldTable])[] = [
  ['world-build', 'searchgym world build (a WorldConfig: the defaults below are before --preset, which sets entities, qa.target, split.bench and more; default preset paper)', WORLD_FIELDS],
  ['gym-serve', 'searchgym gym serve', GYM_SERVE_FIELDS],
  ['gym-mcp', 'searchgym gym mcp', MCP_FIELDS],
  ['gym-check', 'searchgym gym check', GYM_CHECK_FIELDS],
  ['model-init', 'searchgym model init', MODEL_INIT_FIELDS],
  ['model-serve', 'searchgym model serve', MODEL_SERVE_FIELDS],
  ['model-pretrain', 'searchgym model pretrain', PRETRAIN_FIELDS],
  ['bench-run', 'searchgym bench run', BENCH_RUN_FIELDS],
  ['bench-funnel', 'searchgym bench funnel', FUNNEL_FIELDS],
  ['train', 'searchgym train (GRPO; also an experiment file\'s train block, less seed, protocol and gym)', TRAIN_FIELDS],
  ['train-sft', 'searchgym train sft', SFT_FIELDS],
]

export function optionsPage(): string {
  const parts = OPTION_TABLES.map(
    ([anchor, cmd, table]) =>
      `## ${anchor}\n\n\`${cmd}\`: each key below is set by \`--set KEY=VALUE\` (repeatable) or in a \`--config FILE\` (JSON, the keys nested by their dots); flags and \`--set\` override the file. A struck-out flag is an old spelling kept for one release: it still works and prints its new spelling once.\n\n${fieldsMarkdown(table)}`,
  )
  return `# Options of each run kind\n\nGenerated from the field tables by \`node bin/run-ts.mjs bench/perf/option-tables.ts > docs/options.md\`; do not edit by hand.\n\n${parts.join('\n')}`
}

if (process.argv[1]?.endsWith('option-tables.ts')) process.stdout.write(optionsPage())
