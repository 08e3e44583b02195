// bench/perf/perf-kit: what the measurement scripts share instead of copying their openings — flag parsing
// (perf-args, re-exported), percentiles, wall/CPU timing, the load line every recorded number needs, and a real
// tiny world built into a temp folder (the library build with the oracle check, as `searchgym world build`).
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { CHECKED_WORLD_STAGES } from '../../agent'
import type { TokenizerSource } from '../../infra/engine'
import { buildWorld, countWorldDocs, presetConfig, worldTexts } from '../../world'

export { perfArgs } from './perf-args'

/** The p-quantile (0..1) of `xs` by nearest rank below; NaN for none. */
export function pct(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))] : NaN
}

/** Wall and CPU (user + system) seconds of `fn`. */
export async function timed<T>(fn: () => T | Promise<T>): Promise<{ value: T; wall: number; cpu: number }> {
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  const value = await fn()
  const c = process.cpuUsage(c0)
  return { value, wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 }
}

/** "node v20…, load avg 1.2 0.9 0.8" — the machine's state next to every recorded number. */
export function machineLine(): string {
  return `node ${process.version}; load avg ${loadavg().map((x) => x.toFixed(1)).join(' ')}`
}

/** A fresh temp folder and its removal. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** A real tiny world (preset tiny, seed 11, oracle check included) built into `dir`/tiny; returns its folder. */
export async function buildTinyWorld(dir: string): Promise<string> {
  const out = join(dir, 'tiny')
  await buildWorld({ config: presetConfig('tiny'), dir: out, quiet: true, stages: CHECKED_WORLD_STAGES })
  return out
}

/** The engine's tokenizer source for a world folder: its documents' texts (what `model init --tokenizer world:DIR` uses). */
export function worldTokenizer(dir: string): TokenizerSource {
  return { kind: 'texts', texts: worldTexts(dir), count: countWorldDocs(dir) }
}
