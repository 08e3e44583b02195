// bench/experiment/layout: the names of an experiment's folders and of its runs and benches, and which Access
// settings each is benched in, and how a machine path is written down portably — shared by the runner, the results
// folder and the report (which reads the folders back).
import { existsSync } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import type { ArmSpec, ExperimentSpec } from './spec'

/** Where everything of an experiment lives under OUT. */
export function experimentPaths(out: string, s: ExperimentSpec) {
  const o = resolve(out)
  return {
    out: o,
    spec: join(o, 'experiment.json'),
    progress: join(o, 'progress.json'),
    worlds: s.worlds.cache || join(o, 'worlds'),
    model: join(o, 'model'),
    start: join(o, 'start'),
    evalDir: join(o, 'eval'),
    runs: join(o, 'runs'),
    bench: join(o, 'bench'),
  }
}

/** A GRPO run's folder name: ARM-sSEED. */
export const runName = (arm: string, seed: number) => `${arm}-s${seed}`
/** A bench folder name: LABEL@SET, '+noaccess' when benched without Access. */
export const benchName = (label: string, set: string, access: boolean) => `${label}@${set}${access ? '' : '+noaccess'}`

/** The Access settings an arm is benched in: with Access always; a no-Access arm also without (its training setting). */
export function benchModes(arm: ArmSpec): boolean[] {
  return arm.access ? [true] : [true, false]
}

/** Access settings the start is benched in: with, and without when any arm trains without Access (its paired baseline). */
export function startModes(s: ExperimentSpec): boolean[] {
  return s.arms.some((a) => !a.access) ? [true, false] : [true]
}


/** A path as written into files meant to outlive this machine (report, results folder): inside OUT relative to OUT;
 *  inside the world cache 'worlds/NAME'; inside a git checkout relative to its root (the shipped start reads
 *  'curriculum/starts/reader-v0' in every clone); otherwise its last name. Never absolute. */
export function portablePath(p: string, out: string, worlds?: string): string {
  const a = resolve(p)
  const under = (root: string) => a === root || a.startsWith(root.endsWith(sep) ? root : root + sep)
  const rel = (root: string) => relative(root, a).split(sep).join('/') || '.'
  if (under(resolve(out))) return rel(resolve(out))
  if (worlds && under(resolve(worlds))) return 'worlds/' + rel(resolve(worlds))
  for (let d = dirname(a); ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return rel(d)
    if (dirname(d) === d) return basename(a)
  }
}
