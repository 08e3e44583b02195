// world/qa/export-stages: a curriculum's stages as data files an outside engine trains on one after the other — the
// training pool split by the stages' filters (each question in the first stage whose filter it passes: the files
// partition the matched pool), and a launch script that runs the phases in order, each later phase resuming from the
// one before with the engine's own resume setting and training on its own file plus the earlier ones (a later stage's
// filter holds the earlier stages' questions: two-stage's stage 2 draws every type). The filters come from the caller
// (the root CLI passes the curriculum package's presets); this module knows no preset.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Qa } from '../types'
import type { EngineProfileName } from './engine-profiles'

export interface ExportStage {
  name: string
  test(qa: Qa): boolean
  /** Training steps of this phase (the preset's switch rule; the last phase: undefined, the engine's epochs decide). */
  steps?: number
}

export interface ExportCurriculum {
  name: string
  stages: ExportStage[]
}

/** The root CLI's stager: preset name + stage-1 steps → the stages (throws on an unknown preset). */
export type ExportStager = (preset: string, switchSteps: number) => ExportCurriculum

/** Each training question in the first stage whose filter it passes; questions no stage takes are returned apart. */
export function partitionByStages(train: Qa[], stages: ExportStage[]): { byStage: Qa[][]; unmatched: Qa[] } {
  const byStage = stages.map(() => [] as Qa[])
  const unmatched: Qa[] = []
  for (const q of train) {
    const i = stages.findIndex((s) => s.test(q))
    if (i === -1) unmatched.push(q)
    else byStage[i].push(q)
  }
  return { byStage, unmatched }
}

const ext = (format: EngineProfileName) => (format === 'asearcher' ? 'jsonl' : 'parquet')
/** ASearcher's phase k data: stage files 1..k joined (its launcher takes one path). */
export const phaseFile = (i: number) => `phase${i + 1}.jsonl`
export const stageFile = (format: EngineProfileName, i: number, name: string) => `stage${i + 1}-${name}.${ext(format)}`

/** The phases' launch script: phase k trains on stage files 1..k and resumes from phase k-1's checkpoint. */
export function curriculumLaunch(format: EngineProfileName, c: ExportCurriculum, outDir: string, flags: string[]): string {
  const files = c.stages.map((s, i) => stageFile(format, i, s.name))
  const extra = flags.map((f) => ` ${f}`).join('')
  const lines = [
    '#!/usr/bin/env bash',
    `# Curriculum '${c.name}' for ${format}, written by searchgym world export --curriculum; see docs/train-elsewhere.md.`,
    '# Runs the phases in order; phase k trains on stage files 1..k and starts from phase k-1 (the engine\'s resume setting).',
    'set -euo pipefail',
    'WORLD=${WORLD:?set WORLD to the world folder}',
    `DATA=\${DATA:-${outDir}}`,
    'CKPT=${CKPT:-$PWD/checkpoints/searchgym-curriculum}',
  ]
  lines.push(format === 'asearcher' ? 'export RAG_SERVER_ADDR_DIR=${RAG_SERVER_ADDR_DIR:-$DATA/rag-addr}\nnpx searchgym gym serve "$WORLD" --host 127.0.0.1 --port 8000 --address-file "$RAG_SERVER_ADDR_DIR" &' : 'npx searchgym gym serve "$WORLD" --host 127.0.0.1 --port 8000 &')
  let done = 0
  c.stages.forEach((s, i) => {
    const data = files.slice(0, i + 1).map((f) => `$DATA/${f}`)
    const until = s.steps !== undefined ? done + s.steps : undefined
    lines.push(`# phase ${i + 1}: ${s.name}${s.steps !== undefined ? ` (${s.steps} steps)` : ''}`)
    if (format === 'asearcher') {
      // AReaL/ASearcher 813e804: asearcher.py:396 starts at recover_start_step; actor.path: the saver's stage checkpoint.
      const resume = i === 0 ? '' : ` actor.path="\${STAGE${i}_MODEL:?set STAGE${i}_MODEL to phase ${i}'s saved model}" recover_start_step=${done}`
      // One dataset path: phase k reads phase<k>.jsonl, stage files 1..k joined.
      lines.push(`python3 -m areal.launcher.local ASearcher/train/asearcher.py --config ASearcher/configs/asearcher_local.yaml train_dataset.path="$DATA/${phaseFile(i)}"${resume}${extra}${until !== undefined ? ` total_train_steps=${until}` : ''} "$@"`)
    } else if (format === 'verl') {
      // verl b178a3c verl/trainer/config/ppo_trainer.yaml:172-175 resume_mode / resume_from_path; :132 total_training_steps.
      const resume = i === 0 ? ' trainer.resume_mode=disable' : ` trainer.resume_mode=resume_path trainer.resume_from_path="$CKPT/global_step_${done}"`
      lines.push(
        `python3 -m verl.trainer.main_ppo --config-path="$PWD/examples/sglang_multiturn/config" --config-name=search_multiturn_grpo data.train_files="[${data.map((d) => `'${d}'`).join(',')}]" data.val_files="$DATA/test.parquet" data.return_raw_chat=True actor_rollout_ref.rollout.multi_turn.enable=True actor_rollout_ref.rollout.multi_turn.format=hermes actor_rollout_ref.rollout.multi_turn.tool_config_path="$DATA/search_tool_config.yaml" trainer.default_local_dir="$CKPT"${resume}${until !== undefined ? ` trainer.total_training_steps=${until}` : ''}${extra} "$@"`,
      )
    } else {
      // Search-R1 a14dc3a has no resume: phase k starts from the actor phase k-1 saved (ray_trainer.py:623-627,
      // default_local_dir/actor/global_step_N).
      const model = i === 0 ? '' : ` actor_rollout_ref.model.path="$CKPT/actor/global_step_${done}"`
      lines.push(
        `python3 -m verl.trainer.main_ppo data.train_files="[${data.map((d) => `'${d}'`).join(',')}]" data.val_files="$DATA/test.parquet" retriever.url="http://127.0.0.1:8000/retrieve" trainer.default_local_dir="$CKPT"${model}${until !== undefined ? ` trainer.total_training_steps=${s.steps}` : ''}${extra} "$@"`,
      )
    }
    if (until !== undefined) done = until
  })
  return lines.join('\n') + '\n'
}

export function writeCurriculumLaunch(format: EngineProfileName, c: ExportCurriculum, outDir: string, flags: string[]): string {
  const name = `launch-${format}-${c.name}.sh`
  writeFileSync(join(outDir, name), curriculumLaunch(format, c, outDir, flags), { mode: 0o755 })
  return name
}
