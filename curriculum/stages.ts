// curriculum/stages: stages as data — a filter over QA type × hop range with per-bucket sampling weights — and the
// named presets of the paper's ablations (two-stage, mixed, stage1-only, stage2-only) plus ours (adaptive). Presets
// are looked up in a Map: a user-given name like `toString` is a clean error, never a prototype member.
import { ConfigError } from '../infra/errors'
import { isBlurred, type Qa, type QaType } from '../world'

export interface StageSpec {
  name: string
  types: QaType[]
  minHops: number
  maxHops: number
  /** Sampling weight per QA type (default 1 each). */
  typeWeights?: Partial<Record<QaType, number>>
  /** Blur as a stage dimension (a world built with config.qa.blur): only questions with named starts, or only ones with
   *  a blurred start. Absent: both. */
  blur?: 'named' | 'blurred'
}

/** When to leave a stage: after a fixed number of steps, or when held-out F1 has not improved by minDelta for `patience` evaluations. */
export type SwitchRule = { kind: 'steps'; steps: number } | { kind: 'plateau'; patience: number; minDelta: number; minSteps: number }

export interface CurriculumSpec {
  name: string
  stages: StageSpec[]
  /** Rule to leave stage i (length stages.length − 1). */
  switches: SwitchRule[]
  /** adaptive: sample type × hops buckets towards a pass rate near `target`. */
  adaptive?: { target: number; width: number; ema: number }
}

const ALL: QaType[] = ['simple', 'parallel', 'combo']
const STAGE1: StageSpec = { name: 'stage1', types: ['simple'], minHops: 1, maxHops: 6 }
const STAGE2: StageSpec = { name: 'stage2', types: ALL, minHops: 1, maxHops: 12 }
const MIXED: StageSpec = { name: 'mixed', types: ALL, minHops: 1, maxHops: 12 }
// three-stage: the paper's two stages on named starts, then every type and hop count with blurred starts (the entity
// must be found from its description first: searchgymbench-hard-v1's skill).
const STAGE3: StageSpec = { name: 'stage3-blur', types: ALL, minHops: 1, maxHops: 12, blur: 'blurred' }

export const CURRICULUM_PRESETS: ReadonlyMap<string, (switchSteps: number) => CurriculumSpec> = new Map([
  ['two-stage', (s: number): CurriculumSpec => ({ name: 'two-stage', stages: [STAGE1, STAGE2], switches: [{ kind: 'steps', steps: s }] })],
  ['two-stage-plateau', (): CurriculumSpec => ({ name: 'two-stage-plateau', stages: [STAGE1, STAGE2], switches: [{ kind: 'plateau', patience: 2, minDelta: 0.01, minSteps: 2 }] })],
  [
    'three-stage',
    (s: number): CurriculumSpec => ({
      name: 'three-stage',
      stages: [{ ...STAGE1, blur: 'named' }, { ...STAGE2, blur: 'named' }, STAGE3],
      switches: [
        { kind: 'steps', steps: s },
        { kind: 'steps', steps: s },
      ],
    }),
  ],
  ['mixed', (): CurriculumSpec => ({ name: 'mixed', stages: [MIXED], switches: [] })],
  ['stage1-only', (): CurriculumSpec => ({ name: 'stage1-only', stages: [STAGE1], switches: [] })],
  ['stage2-only', (): CurriculumSpec => ({ name: 'stage2-only', stages: [{ ...STAGE2, name: 'stage2' }], switches: [] })],
  ['adaptive', (): CurriculumSpec => ({ name: 'adaptive', stages: [{ ...MIXED, name: 'adaptive' }], switches: [], adaptive: { target: 0.5, width: 0.25, ema: 0.3 } })],
])

export function presetNames(): string[] {
  return [...CURRICULUM_PRESETS.keys()]
}

/** The preset of a user-given name; an unknown name (including Object.prototype members) is a ConfigError. */
export function curriculumPreset(name: string, switchSteps: number): CurriculumSpec {
  const make = CURRICULUM_PRESETS.get(name)
  if (!make) throw new ConfigError('curriculum.unknown', `unknown curriculum preset '${name}'; use one of: ${presetNames().join(', ')}`)
  return make(switchSteps)
}

/** A preset with every stage's hop range capped at `maxHops` (0: unchanged). A stage left with no hop is an error. */
export function capHops(spec: CurriculumSpec, maxHops: number): CurriculumSpec {
  if (!maxHops) return spec
  const stages = spec.stages.map((s) => {
    if (s.minHops > maxHops) throw new ConfigError('curriculum.max_hops', `maxHops ${maxHops} leaves stage '${s.name}' of '${spec.name}' no hops (it starts at ${s.minHops})`)
    return { ...s, maxHops: Math.min(s.maxHops, maxHops) }
  })
  return { ...spec, stages }
}

export function inStage(qa: Qa, s: StageSpec): boolean {
  if (!(s.types.includes(qa.type) && qa.hops >= s.minHops && qa.hops <= s.maxHops)) return false
  return s.blur === undefined || (s.blur === 'blurred') === isBlurred(qa)
}

/** The bucket key of a question: type × hops. */
export function bucketOf(qa: Qa): string {
  return `${qa.type}:${qa.hops}`
}

/** A preset as `world export --curriculum` writes it: each stage's filter, and the steps of each phase a steps rule ends. */
export function exportStager(preset: string, switchSteps: number): { name: string; stages: { name: string; test(qa: Qa): boolean; steps?: number }[] } {
  const spec = curriculumPreset(preset, switchSteps)
  if (spec.adaptive) throw new ConfigError('curriculum.export', `'${preset}' samples adaptively by pass rate: an outside engine cannot run it from fixed stage files`)
  return {
    name: spec.name,
    stages: spec.stages.map((s, i) => {
      const sw = spec.switches[i]
      if (sw && sw.kind !== 'steps') throw new ConfigError('curriculum.export', `'${preset}' switches stages on a plateau: export a preset with a steps switch (e.g. two-stage)`)
      return { name: s.name, test: (qa: Qa) => inStage(qa, s), steps: sw?.steps }
    }),
  }
}
