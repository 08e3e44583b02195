// world/qa/engines/launch: the pieces every engine's launch scripts share — the preamble (the environment a script
// reads, the gym started by $SEARCHGYM and waited for on /health until the gym answering is the one it started — its
// pid — serving the world the export was written from — its content hash —, the trap that stops it), how flags are
// spliced in, the curriculum's phases (stage files 1..k, each phase's row count and steps), the marker that lets a rerun
// trust the saves it finds, and the batch a curriculum trains with. Scripts run from any folder: nothing of the
// exporting machine is written into them (DATA is the script's own folder; the world's hash is not a path). What an
// engine runs after the preamble is its own module's (engines/<name>.ts).
import type { ExportCurriculum, ExportStage } from '../export-stages'
import type { BatchSizes, EngineLimits, ExportUnit } from './profile'

/** What a launch script is written from. */
export interface LaunchPlan {
  /** The trainer flags that carry limits and batch sizes (profile.launchFlags(limits, batches)). */
  flags: string[]
  /** The shipped limits (the engine's stock ones without an oracle check). */
  limits: EngineLimits
  /** The training batch sizes `flags` carry. */
  batches: BatchSizes
  /** The /retrieve unit the gym serves. */
  unit: ExportUnit
  /** Rows of train.<ext> (what launch-<name>.sh trains on). */
  trainRows: number
  /** Content hash of the world the export was written from (world_hash in every row): the gym the script starts must
   * serve it. */
  worldHash: string
}

/** A curriculum script's plan: `flags`/`batches` already fit the smallest phase; rows of each phase's training data. */
export interface CurriculumPlan extends LaunchPlan {
  phaseRows: number[]
}

/** The environment every launch script reads, with its default (a `:?` one is required). */
export const LAUNCH_ENV = {
  SEARCHGYM: 'the searchgym command (default: `searchgym` on PATH)',
  WORLD: 'the world folder (required)',
  MODEL: 'the base model, a Hugging Face id or folder (required)',
  DATA: 'the exported files (default: the script\'s own folder)',
  PORT: 'the gym\'s port on 127.0.0.1 (default 8000)',
  CKPT: 'where the trainer writes checkpoints (default: ./checkpoints/searchgym-<engine> in the folder it is run from)',
} as const

/** Seconds the script waits for the gym's /health before it gives up (GYM_WAIT_S overrides). */
export const GYM_WAIT_S = 300

/** What a script's preamble is written from. */
export interface PreambleSpec {
  /** The script's file name (it starts each of its error lines). */
  script: string
  header: string[]
  /** Names the default checkpoint folder: ./checkpoints/searchgym-<engine>. */
  engine: string
  /** Extra gym serve flags (already shell text). */
  serveArgs?: string
  /** Lines run before the gym starts (the engine's own checks and settings), each ending in a newline. */
  setup?: string
  /** The exported world's content hash. */
  worldHash: string
}

/**
 * The opening of every launch script: shebang, header lines, the environment, the gym started in the background by
 * $SEARCHGYM (checked with `command -v` before anything starts; never `npx searchgym`, which resolves to whatever npm
 * package holds that name), a bounded wait on /health that ends only when the gym answering is the one started here
 * (the pid /health names is its process or one it started: a server already on $PORT answers at once while this one
 * fails with EADDRINUSE, and the wait then stops with one line) and serves the exported world (its content hash), and a
 * trap that stops the gym (and a background pruner, PRUNER_PID) however the script ends.
 */
export function launchPreamble(p: PreambleSpec): string {
  const { script, header, engine, serveArgs = '', setup = '' } = p
  return `#!/usr/bin/env bash
# ${script}: written by searchgym world export; see docs/train-elsewhere.md.
${header.map((h) => `# ${h}`).join('\n')}
# Environment: ${Object.entries(LAUNCH_ENV)
    .map(([k, v]) => `${k} ${v}`)
    .join('; ')}.
# Runs from any folder. Starts the gym (stopped when this script exits), waits for it, then trains; extra arguments
# are passed to every trainer call (cluster keys: GPUs, nodes, logging).
set -euo pipefail
HERE="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
WORLD=\${WORLD:?set WORLD to the world folder (written by searchgym world build)}
MODEL=\${MODEL:?set MODEL to the base model to train (a Hugging Face id or a local folder)}
DATA=\${DATA:-$HERE}
PORT=\${PORT:-8000}
CKPT=\${CKPT:-$PWD/checkpoints/searchgym-${engine}}
SEARCHGYM=\${SEARCHGYM:-searchgym}
# The world this export was written from (world_hash in every row): the gym started below must serve it.
EXPORT_WORLD_HASH=${p.worldHash}
command -v "$SEARCHGYM" >/dev/null 2>&1 || { echo "${script}: no '$SEARCHGYM' command: run npm install -g /path/to/searchgym-checkout, or set SEARCHGYM=/path/to/searchgym-checkout/bin/searchgym.mjs" >&2; exit 2; }
command -v curl >/dev/null 2>&1 || { echo "${script}: curl is needed to wait for the gym" >&2; exit 2; }
mkdir -p "$CKPT"
${setup}"$SEARCHGYM" gym serve "$WORLD" --host 127.0.0.1 --port "$PORT"${serveArgs} &
GYM_PID=$!
PRUNER_PID=
stop_children() {
  kill $PRUNER_PID "$GYM_PID" 2>/dev/null || true
  wait "$GYM_PID" 2>/dev/null || true
}
trap stop_children EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# The gym on $PORT must be the one started above: /health's pid (its last "pid": the serving process; under --workers N
# the primary) is GYM_PID or a process it started, and its worldHash is the export's. gym serve reads SEARCHGYM_TOKEN.
AUTH=()
if [ -n "\${SEARCHGYM_TOKEN:-}" ]; then AUTH=(-H "Authorization: Bearer $SEARCHGYM_TOKEN"); fi
health_field() { printf '%s' "$HEALTH" | grep -o "\\"$1\\":\\"*[^,\\"}]*" | tail -1 | sed 's/^[^:]*:"*//'; }
started_here() {
  local p=$1 s
  for _ in 1 2 3 4; do
    [ "$p" = "$GYM_PID" ] && return 0
    s=$(cat "/proc/$p/stat" 2>/dev/null) || return 1
    s=\${s##*) }
    p=$(echo "$s" | cut -d' ' -f2)
  done
  return 1
}
HEALTH=
for ((i = 0; i < \${GYM_WAIT_S:-${GYM_WAIT_S}}; i++)); do
  kill -0 "$GYM_PID" 2>/dev/null || { echo "${script}: gym serve exited before it answered on port $PORT (its error is above; is another server on the port?)" >&2; exit 1; }
  if HEALTH=$(curl -fsS "\${AUTH[@]}" "http://127.0.0.1:$PORT/health" 2>/dev/null) && started_here "$(health_field pid)"; then break; fi
  HEALTH=
  sleep 1
done
[ -n "$HEALTH" ] || { echo "${script}: the gym did not answer /health on port $PORT within \${GYM_WAIT_S:-${GYM_WAIT_S}} s" >&2; exit 1; }
[ "$(health_field worldHash)" = "$EXPORT_WORLD_HASH" ] || { echo "${script}: the gym serves world $(health_field worldHash) (WORLD=$WORLD), not $EXPORT_WORLD_HASH, the world this export was written from" >&2; exit 1; }
`
}

/** The lines that let a rerun of a multi-phase script resume where the last run stopped: the saves under $CKPT are
 * trusted (RESUMABLE=1) only when this script, for this world, wrote the marker; a phase that ends sets RESUMABLE=1. */
export function rerunMarker(script: string): string {
  return `# A rerun resumes the phase the last run was in: what is under $CKPT is trusted only when this script wrote the marker
# (for this world); a checkpoint folder of another run is never resumed.
MARK="$CKPT/.searchgym-${script}"
RESUMABLE=0
if [ -f "$MARK" ] && [ "$(cat "$MARK")" = "$EXPORT_WORLD_HASH" ]; then RESUMABLE=1; fi
echo "$EXPORT_WORLD_HASH" > "$MARK"
`
}

/** gym serve's flag for the export's /retrieve unit ('' for pages, the default). */
export const serveUnitFlag = (unit: ExportUnit) => (unit === 'passage' ? ' --retrieve-unit passage' : '')

/** `NAME=(…)`: a bash array of trainer keys, one per line, each with the comment that says why (file:line). */
export function keyArray(name: string, keys: [string, string][]): string {
  return `${name}=(\n${keys.map(([k, why]) => `  ${k}${why ? ` # ${why}` : ''}`).join('\n')}\n)\n`
}

/** Limit and batch flags as a bash array. */
export const flagArray = (name: string, flags: string[]) => keyArray(name, flags.map((f) => [f, '']))

/** stage<i+1>-<name>.<ext>: one stage's training questions. */
export const stageFile = (ext: string, i: number, name: string) => `stage${i + 1}-${name}.${ext}`

/** One phase of a curriculum script. */
export interface LaunchPhase {
  /** 0-based phase index. */
  i: number
  stage: ExportStage
  /** `$DATA/<stage file>` for stages 1..i+1. */
  data: string[]
  /** Rows of this phase's training data. */
  rows: number
  /** Training steps of the phases before this one. */
  done: number
  /** This phase's steps: the stage's own, or for a last phase without steps `lastSteps(rows)` (the engine's stock
   * epochs over its data, written out so the last step is saved). */
  steps: number
  /** done + steps. */
  until: number
  /** `# phase k: name (n steps)`. */
  comment: string
}

/** The curriculum's phases in order, for data files with extension `ext`; `lastSteps` gives a last phase without
 * steps its count from its row count. */
export function curriculumPhases(c: ExportCurriculum, ext: string, phaseRows: number[], lastSteps: (rows: number) => number): LaunchPhase[] {
  const files = c.stages.map((s, i) => `$DATA/${stageFile(ext, i, s.name)}`)
  let done = 0
  return c.stages.map((stage, i) => {
    const steps = stage.steps ?? lastSteps(phaseRows[i])
    const p = { i, stage, data: files.slice(0, i + 1), rows: phaseRows[i], done, steps, until: done + steps, comment: `# phase ${i + 1}: ${stage.name}, ${phaseRows[i]} rows, ${steps} steps` }
    done = p.until
    return p
  })
}

/** A Hydra list of data files: "['a','b']". */
export const hydraFiles = (files: string[]) => `"[${files.map((d) => `'${d}'`).join(',')}]"`
