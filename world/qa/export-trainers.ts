// world/qa/export-trainers: a world's QA written for an outside RL engine through its profile (world/qa/engines) — the
// training pool and the bench as the engine's data files, the configs it needs, engine-profile.json (the limits the
// oracle check chose and the batch sizes), the stage files and phases' script of a curriculum, and the launch snippet.
// The same steps for every engine; what differs (rows, file extension, configs, launch text) is the profile's.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Qa } from '../types'
import { batchSizes, curriculumBatches, type BatchSizes, type EngineProfile, type ExportIo, type ExportTuning, type WorldIdentity } from './engines/profile'
import type { LaunchPlan } from './engines/launch'
import { partitionByStages, stageFile, writeCurriculumLaunch, type ExportCurriculum } from './export-stages'

export type { WorldIdentity } from './engines/profile'

/** Write the trainer's files into outDir; returns file name → row count (0 for configs). */
export async function exportForTrainer(
  profile: EngineProfile,
  outDir: string,
  train: Qa[],
  bench: Qa[],
  id: WorldIdentity,
  io: ExportIo,
  tuning?: ExportTuning,
  curriculum?: ExportCurriculum,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  let flags: string[] = []
  let batches: BatchSizes | undefined
  if (tuning) {
    // Below the 95 % target even with raised limits: export only the questions solvable under the shipped limits.
    const total = train.length + bench.length
    const target = tuning.shipped.solved >= 0.95 * tuning.shipped.total
    if (!target) {
      train = train.filter((q) => tuning.solvable.has(q.id))
      bench = bench.filter((q) => tuning.solvable.has(q.id))
    }
    batches = batchSizes(profile, train.length, bench.length)
    flags = profile.launchFlags(tuning.shipped.limits, batches)
    writeFileSync(join(outDir, 'engine-profile.json'), JSON.stringify(profileRecord(tuning, batches, total, train.length, bench.length, target), null, 2) + '\n')
    out['engine-profile.json'] = 0
    if (!target) out[`questions left out (not solvable under the shipped ${profile.name} limits)`] = total - train.length - bench.length
  }
  const data = (split: string) => `${split}.${profile.dataExt}`
  await profile.writeRows(join(outDir, data('train')), train, 'train', id, io)
  await profile.writeRows(join(outDir, data('test')), bench, 'test', id, io)
  Object.assign(out, { [data('train')]: train.length, [data('test')]: bench.length })
  Object.assign(out, profile.writeExtras(outDir, tuning?.shipped.limits))
  // Without an oracle check the scripts carry the engine's stock limits and batches that fit the rows.
  batches ??= batchSizes(profile, Math.max(1, train.length), bench.length)
  const limits = tuning?.shipped.limits ?? profile.stock
  if (!tuning) flags = profile.launchFlags(limits, batches)
  const plan: LaunchPlan = { flags, limits, batches, unit: tuning?.unit ?? 'page', trainRows: train.length, worldHash: id.hash }
  if (curriculum) {
    // One file per stage (the training pool split by the stages' filters), whatever else a phase reads, and the phases'
    // launch script; the mixed pool is train.* above.
    const { byStage, unmatched } = partitionByStages(train, curriculum.stages)
    for (const [i, st] of curriculum.stages.entries()) {
      const file = stageFile(profile, i, st.name)
      await profile.writeRows(join(outDir, file), byStage[i], 'train', id, io)
      for (const extra of profile.phaseData(i, byStage)) {
        await profile.writeRows(join(outDir, extra.file), extra.qas, 'train', id, io)
        out[extra.file] = extra.qas.length
      }
      out[file] = byStage[i].length
    }
    if (unmatched.length > 0) out[`training questions in no stage of ${curriculum.name}`] = unmatched.length
    // Phase k trains on stages 1..k: every phase's file must hold a training batch (the batch is lowered to fit).
    const phaseRows = byStage.map((_, i) => byStage.slice(0, i + 1).reduce((n, s) => n + s.length, 0))
    const cb = curriculumBatches(profile, plan.batches, phaseRows, bench.length, curriculum.stages.map((s) => s.name))
    const cflags = cb !== plan.batches ? profile.launchFlags(limits, cb) : flags
    out[writeCurriculumLaunch(profile, curriculum, outDir, { ...plan, flags: cflags, batches: cb, phaseRows })] = 0
  }
  const launch = `launch-${profile.name}.sh`
  writeFileSync(join(outDir, launch), profile.launchSnippet(plan), { mode: 0o755 })
  out[launch] = 0
  for (const [name, text] of Object.entries(profile.extraLaunches(plan))) {
    writeFileSync(join(outDir, name), text, { mode: 0o755 })
    out[name] = 0
  }
  return out
}

/** engine-profile.json: the profile used, stock and shipped limits with the fraction solvable under each, the batch
 * sizes, and how many questions were left out (0 unless the shipped limits stay under 95 %). */
function profileRecord(t: ExportTuning, b: BatchSizes, total: number, trainRows: number, benchRows: number, target: boolean) {
  const frac = (x: { solved: number; total: number }) => Number((x.solved / Math.max(1, x.total)).toFixed(4))
  return {
    profile: t.profile,
    unit: t.unit,
    stock: { ...t.stock, fraction: frac(t.stock) },
    shipped: { ...t.shipped, fraction: frac(t.shipped) },
    target: 0.95,
    filtered: target ? 0 : total - trainRows - benchRows,
    rows: { train: trainRows, test: benchRows },
    batches: b,
  }
}
