// world/qa/export-stages: a curriculum's stages as data files an outside engine trains on one after the other — the
// training pool split by the stages' filters (each question in the first stage whose filter it passes: the files
// partition the matched pool), and a launch script that runs the phases in order, each later phase resuming from the
// one before (the engine's resume, or the model the phase before saved) and training on its own file plus the earlier ones (a later stage's
// filter holds the earlier stages' questions: two-stage's stage 2 draws every type). The filters come from the caller
// (the root CLI passes the curriculum package's presets); this module knows no preset, and no engine: each engine's
// phase commands are its profile's curriculumLaunch (world/qa/engines/<name>.ts).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Qa } from '../types'
import type { EngineProfile } from './engines/profile'
import { stageFile as stageFileName, type CurriculumPlan } from './engines/launch'

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

/** stage<i+1>-<name>.<ext>: one stage's training questions in the engine's data format. */
export const stageFile = (profile: EngineProfile, i: number, name: string) => stageFileName(profile.dataExt, i, name)

/** The phases' launch script (the engine module's): phase k trains on stage files 1..k and starts from what phase k-1
 * wrote, with step counts the engine's own loop reads. */
export const curriculumLaunch = (profile: EngineProfile, c: ExportCurriculum, plan: CurriculumPlan): string => profile.curriculumLaunch(c, plan)

export function writeCurriculumLaunch(profile: EngineProfile, c: ExportCurriculum, outDir: string, plan: CurriculumPlan): string {
  const name = `launch-${profile.name}-${c.name}.sh`
  writeFileSync(join(outDir, name), curriculumLaunch(profile, c, plan), { mode: 0o755 })
  return name
}
