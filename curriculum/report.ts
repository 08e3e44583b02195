// curriculum/report: `searchgym train report RUN` — read RUN/metrics.jsonl (+ timing.jsonl) and write RUN/report.md
// with one SVG line chart per curve (reward, F1, held-out F1, format-valid, turns, response tokens, clip fraction,
// KL, grad norm, entropy, all-0/all-1 groups), a timing summary, and the run's provenance (its world(s) and start as
// config.json records them, relative to the run folder, resolved from where the folder is now, with each world's
// content hash). Self-contained SVG (no bench/ import: bench sits above curriculum).
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { ConfigError } from '../infra/errors'
import { resolveRecorded } from '../infra/recorded-path'
import { openWorld } from '../world'
import { noUpdateLine } from '../agent'

type Row = Record<string, number | string | undefined>

function readJsonl(file: string): Row[] {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row)
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** A line chart of (x, y) points: axes with min/max labels. */
export function lineSvg(title: string, pts: [number, number][], w = 420, h = 180): string {
  const pad = 36
  if (pts.length === 0) return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="40"><text x="4" y="20">${esc(title)}: no data</text></svg>`
  const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1])
  const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1)
  let y0 = Math.min(...ys, 0), y1 = Math.max(...ys)
  if (y1 === y0) y1 = y0 + 1
  const X = (x: number) => pad + ((x - x0) / (x1 - x0)) * (w - 2 * pad)
  const Y = (y: number) => h - pad + -((y - y0) / (y1 - y0)) * (h - 2 * pad)
  const path = pts.map((p) => `${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(' ')
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif" font-size="11">`,
    `<text x="${pad}" y="14">${esc(title)}</text>`,
    `<line x1="${pad}" y1="${h - pad}" x2="${w - pad}" y2="${h - pad}" stroke="#888"/><line x1="${pad}" y1="${pad}" x2="${pad}" y2="${h - pad}" stroke="#888"/>`,
    `<text x="2" y="${Y(y1) + 4}">${y1.toPrecision(3)}</text><text x="2" y="${Y(y0) + 4}">${y0.toPrecision(3)}</text>`,
    `<text x="${pad}" y="${h - pad + 14}">${x0}</text><text x="${w - pad - 10}" y="${h - pad + 14}">${x1}</text>`,
    `<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" points="${path}"/>`,
    ...pts.map((p) => `<circle cx="${X(p[0]).toFixed(1)}" cy="${Y(p[1]).toFixed(1)}" r="2" fill="#1f77b4"/>`),
    '</svg>',
  ].join('')
}

const CURVES: [string, string][] = [
  ['rewardMean', 'reward (mean)'], ['f1', 'F1'], ['evalF1', 'held-out F1'], ['formatValid', 'format-valid rate'], ['turns', 'turns / episode'],
  ['searches', 'searches / episode'], ['accesses', 'accesses / episode'], ['responseTokens', 'response tokens / episode'], ['truncationRate', 'truncation rate'],
  ['clipFraction', 'clip fraction'], ['kl', 'KL to reference'], ['gradNorm', 'grad norm'], ['entropy', 'entropy (sampled −log p)'], ['all0', 'all-0 groups'], ['all1', 'all-1 groups'],
]

type Paths = { world?: string | string[]; model?: string; adapter?: string | null }
type RunConfigRecord = Paths & { origin?: Paths; identity?: Paths; train?: { lr?: number } }

/** The run folder's config.json, or null when it has none (read once for the whole report). */
function readRunConfig(run: string): RunConfigRecord | null {
  const file = join(run, 'config.json')
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as RunConfigRecord) : null
}

/** The world(s) and start a run folder's config.json names, each resolved from where the folder is now; a world found
 *  there is named by its content hash, one not found by the content hash the run recorded (identity; a folder written
 *  before identity: the absolute path it started from). No absolute path of this machine is written. */
export function provenanceLines(run: string, c: RunConfigRecord | null = readRunConfig(run)): string[] {
  if (!c) return []
  const list = (v: string | string[] | null | undefined) => (v == null ? [] : typeof v === 'string' ? [v] : v)
  const origins = list(c.origin?.world)
  const hashes = list(c.identity?.world)
  const startedFrom = (what: string, id: string | null | undefined, origin: string | null | undefined, rec: string) =>
    id ? `the run started from a ${what} with ${what === 'world' ? 'content hash' : 'folder fingerprint'} ${id}` : `the run started from ${origin ?? rec}`
  const world = (rec: string, i: number): string => {
    const at = resolveRecorded(run, rec)
    try {
      const w = openWorld(at)
      try {
        return `- World \`${rec}\`: content hash ${w.hash || '(unfinished)'}`
      } finally {
        w.close()
      }
    } catch {
      return `- World \`${rec}\`: not found from here; ${startedFrom('world', hashes[i], origins[i], rec)}`
    }
  }
  const start = (what: string, rec: string | null | undefined, id: string | null | undefined, origin: string | null | undefined) =>
    rec ? [`- ${what} \`${rec}\`${existsSync(resolveRecorded(run, rec)) ? '' : ` (not found from here; ${startedFrom(what === 'Model' ? 'model' : 'start adapter', id, origin, rec)})`}`] : []
  return ['## Provenance', '', ...list(c.world).map(world), ...start('Model', c.model, c.identity?.model, c.origin?.model), ...start('Start adapter', c.adapter, c.identity?.adapter, c.origin?.adapter), '', 'Paths are relative to this folder.', '']
}

export function writeTrainReport(run: string): string {
  const rows = readJsonl(join(run, 'metrics.jsonl'))
  if (rows.length === 0) throw new ConfigError('report.no_metrics', `${run} has no metrics.jsonl lines; is it a train run folder?`)
  const timing = readJsonl(join(run, 'timing.jsonl'))
  const optimizerSteps = rows.reduce((a, r) => a + Number(r.optimizerSteps ?? 0), 0)
  const lines: string[] = [`# Training run ${basename(resolve(run))}`, '', `${rows.length} steps, ${optimizerSteps} optimizer steps; last stage ${rows.at(-1)!.stage}.`, '']
  const config = readRunConfig(run)
  const noUpdate = noUpdateLine(optimizerSteps, config?.train?.lr ?? 1)
  if (noUpdate) lines.push(`**${noUpdate}.**`, '')
  const switches = rows.filter((r) => r.curriculumSwitch).map((r) => `- ${r.curriculumSwitch}`)
  if (switches.length) lines.push('## Curriculum switches', '', ...switches, '')
  if (timing.length) {
    const sum = (k: string) => timing.reduce((a, t) => a + Number(t[k] ?? 0), 0)
    const total = sum('seconds')
    lines.push('## Time', '', '| total s | sampling | env | forward/backward | trainer own | tokens/s |', '| --- | --- | --- | --- | --- | --- |')
    lines.push(`| ${total.toFixed(1)} | ${sum('samplingS').toFixed(1)} | ${sum('envS').toFixed(1)} | ${sum('learnS').toFixed(1)} | ${sum('trainerS').toFixed(1)} (${((100 * sum('trainerS')) / total).toFixed(1)}%) | ${((sum('sampledTokens')) / Math.max(1e-9, sum('samplingS'))).toFixed(0)} sampled |`, '')
  }
  lines.push(...provenanceLines(run, config))
  lines.push('## Curves', '')
  for (const [k, title] of CURVES) {
    const pts = rows.filter((r) => typeof r[k] === 'number').map((r) => [Number(r.step), Number(r[k])] as [number, number])
    if (pts.length === 0) continue
    const file = `curve-${k}.svg`
    writeFileSync(join(run, file), lineSvg(title, pts))
    lines.push(`![${title}](${file})`)
  }
  lines.push('')
  const out = join(run, 'report.md')
  writeFileSync(out, lines.join('\n'))
  return out
}
