// world/qa/engines/launch: the pieces every engine's launch scripts share — the snippet's and the curriculum script's
// opening lines, the gym server line, how flags are spliced in, and the curriculum's phases (stage files 1..k, the
// steps done before each). What an engine runs in them is its own module's (engines/<name>.ts).
import type { ExportCurriculum, ExportStage } from '../export-stages'
import type { ExportUnit } from './profile'

/** launch-<name>.sh's opening: shebang, where it comes from, WORLD and DATA. */
export const snippetHead = (engine: string, outDir: string) => `#!/usr/bin/env bash
# Launch snippet written by searchgym world export --format ${engine}; see docs/train-elsewhere.md.
# Limits and batch sizes below: from engine-profile.json (the oracle run through this engine's limits).
set -euo pipefail
WORLD=\${WORLD:?set WORLD to the world folder}
DATA=\${DATA:-${outDir}}
`

/** The gym server the trainer's search tool posts to, in the background. */
export const serveLine = (port: number, extra = '') => `npx searchgym gym serve "$WORLD" --host 127.0.0.1 --port ${port}${extra} &`

/** gym serve's flag for the export's /retrieve unit ('' for pages, the default). */
export const serveUnitFlag = (unit: ExportUnit) => (unit === 'passage' ? ' --retrieve-unit passage' : '')

/** Limit flags as continuation lines of a snippet's trainer command. */
export const snippetFlags = (flags: string[]) => flags.map((f) => `  ${f} \\\n`).join('')

/** Limit flags appended to a one-line trainer command. */
export const inlineFlags = (flags: string[]) => flags.map((f) => ` ${f}`).join('')

/** The curriculum script's opening lines (before the server starts). */
export const curriculumHead = (engine: string, c: ExportCurriculum, outDir: string): string[] => [
  '#!/usr/bin/env bash',
  `# Curriculum '${c.name}' for ${engine}, written by searchgym world export --curriculum; see docs/train-elsewhere.md.`,
  '# Runs the phases in order; phase k trains on stage files 1..k and starts from phase k-1 (the engine\'s resume setting).',
  'set -euo pipefail',
  'WORLD=${WORLD:?set WORLD to the world folder}',
  `DATA=\${DATA:-${outDir}}`,
  'CKPT=${CKPT:-$PWD/checkpoints/searchgym-curriculum}',
]

/** stage<i+1>-<name>.<ext>: one stage's training questions. */
export const stageFile = (ext: string, i: number, name: string) => `stage${i + 1}-${name}.${ext}`

/** One phase of a curriculum script. */
export interface LaunchPhase {
  /** 0-based phase index. */
  i: number
  stage: ExportStage
  /** `$DATA/<stage file>` for stages 1..i+1. */
  data: string[]
  /** Training steps of the phases before this one. */
  done: number
  /** done + this phase's steps; undefined for a last phase without steps (the engine's epochs decide). */
  until?: number
  /** `# phase k: name (n steps)`. */
  comment: string
}

/** The curriculum's phases in order, for data files with extension `ext`. */
export function curriculumPhases(c: ExportCurriculum, ext: string): LaunchPhase[] {
  const files = c.stages.map((s, i) => `$DATA/${stageFile(ext, i, s.name)}`)
  let done = 0
  return c.stages.map((stage, i) => {
    const until = stage.steps !== undefined ? done + stage.steps : undefined
    const p = { i, stage, data: files.slice(0, i + 1), done, until, comment: `# phase ${i + 1}: ${stage.name}${stage.steps !== undefined ? ` (${stage.steps} steps)` : ''}` }
    if (until !== undefined) done = until
    return p
  })
}
