// bench/report: report.md (tables) and SVG charts (accuracy by hops and by type, tool calls per question) for one run.
// Reads only a run's config and summary; rendering is plain text, deterministic for the same summary.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AccuracyBlock, RunSummary } from './metrics'
import type { Estimate } from './stats'
import { barChart } from './svg'
import { budgetCaps, ceilingLine, isMeasured } from './ceiling'
import type { BenchRunConfig } from './types'

const upper = (line: string) => line.charAt(0).toUpperCase() + line.slice(1)

export function pct(x: number): string {
  return Number.isFinite(x) ? (100 * x).toFixed(1) : '–'
}

export function ci(e: Estimate | undefined): string {
  if (!e || e.n === 0) return '–'
  return `${pct(e.mean)} [${pct(e.lo)}, ${pct(e.hi)}]`
}

function n2(x: number): string {
  return Number.isFinite(x) ? x.toFixed(2) : '–'
}

export function table(header: string[], rows: string[][]): string {
  const out = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`]
  for (const r of rows) out.push(`| ${r.join(' | ')} |`)
  return out.join('\n')
}

function accRows(blocks: Record<string, AccuracyBlock>, judge: boolean, tools?: RunSummary['tools']['byHops']): string[][] {
  return Object.entries(blocks).map(([k, b]) => {
    const row = [k, String(b.n), ci(b.f1), ci(b.em)]
    if (judge) row.push(ci(b.judge))
    if (tools) row.push(n2(tools[k]?.search ?? NaN), n2(tools[k]?.access ?? NaN))
    return row
  })
}

export interface ReportFiles {
  report: string
  charts: string[]
}

export function renderReport(config: BenchRunConfig, s: RunSummary): { markdown: string; charts: Record<string, string> } {
  const judge = s.overall.judge !== undefined
  const accHeader = ['', 'n', 'F1 % [95% CI]', 'EM % [95% CI]', ...(judge ? ['Judge % [95% CI]'] : [])]
  const hopKeys = Object.keys(s.byHops)
  const typeKeys = Object.keys(s.byType)
  // Charts use the report's unit: percent (0–100), like the tables.
  const P = (x: number) => 100 * x
  const emptyNote = s.status.ok + s.status.error === 0 ? `no question scored: all ${s.questions} lost to the endpoint (rerun with --retry-errors)` : undefined
  const charts: Record<string, string> = {
    'accuracy-by-hops.svg': barChart({
      title: 'Accuracy by hops (95% bootstrap CI)',
      categories: hopKeys,
      xLabel: 'hops',
      yLabel: 'score, %',
      yMin: 0,
      yMax: 100,
      emptyNote,
      series: [
        { name: 'F1', values: hopKeys.map((k) => P(s.byHops[k].f1.mean)), lo: hopKeys.map((k) => P(s.byHops[k].f1.lo)), hi: hopKeys.map((k) => P(s.byHops[k].f1.hi)) },
        { name: 'EM', values: hopKeys.map((k) => P(s.byHops[k].em.mean)), lo: hopKeys.map((k) => P(s.byHops[k].em.lo)), hi: hopKeys.map((k) => P(s.byHops[k].em.hi)) },
      ],
    }),
    'accuracy-by-type.svg': barChart({
      title: 'Accuracy by question type (95% bootstrap CI)',
      categories: typeKeys,
      yLabel: 'score, %',
      yMin: 0,
      yMax: 100,
      emptyNote,
      series: [
        { name: 'F1', values: typeKeys.map((k) => P(s.byType[k].f1.mean)), lo: typeKeys.map((k) => P(s.byType[k].f1.lo)), hi: typeKeys.map((k) => P(s.byType[k].f1.hi)) },
        { name: 'EM', values: typeKeys.map((k) => P(s.byType[k].em.mean)), lo: typeKeys.map((k) => P(s.byType[k].em.lo)), hi: typeKeys.map((k) => P(s.byType[k].em.hi)) },
      ],
    }),
    'tool-calls-by-hops.svg': barChart({
      title: 'Tool calls per question by hops',
      categories: hopKeys,
      xLabel: 'hops',
      yLabel: 'calls per question',
      emptyNote,
      series: [
        { name: 'search', values: hopKeys.map((k) => s.tools.byHops[k].search) },
        { name: 'access', values: hopKeys.map((k) => s.tools.byHops[k].access) },
      ],
    }),
  }
  const lines: string[] = []
  lines.push(`# SearchGymBench run: ${config.policy}${config.policy === 'openai' || config.policy === 'closed-book' || config.policy === 'one-shot-rag' ? ` (${config.model})` : ''}`)
  lines.push('')
  lines.push(`World \`${config.world}\` (${config.worldId}), split \`${config.split}\`, ${s.questions} questions, protocol \`${config.protocol}\`${config.policy === 'oracle' ? ' (the oracle always writes the text protocol, whatever --protocol says)' : ''}. ` +
    `Scores are percentages; intervals are percentile bootstrap 95% CIs over questions (${s.bootstrap.resamples} resamples, seed ${s.bootstrap.seed}).`)
  lines.push('')
  if (config.benchmark) {
    lines.push(`Benchmark **${config.benchmark.name}** (version ${config.benchmark.version}), world content hash \`${config.benchmark.hash}\` (checked against the pin before scoring)${config.benchmark.budgets ? `, played under its pinned budget of ${config.benchmark.budgets.maxTurns} turns` : ''}${config.limit !== null ? `; **a sample of ${s.questions} questions (--limit), not the whole benchmark**` : ''}.`)
    lines.push('')
  }
  // The oracle's ceiling under this run's budgets: what the budget leaves solvable, said before any score.
  const capped = budgetCaps(s.oracleCeiling)
  lines.push(`${capped ? '> **Budget warning:** ' : ''}${upper(ceilingLine(s.oracleCeiling))}.`)
  lines.push('')
  const warn: string[] = []
  if (s.endpoint.failedQuestions > 0) warn.push(`${s.endpoint.failedQuestions} question(s) lost to endpoint failures after retries (scored 0 in "all"; re-run with \`--retry-errors\`)`)
  if (s.status.error > 0) warn.push(`${s.status.error} question(s) ended in an env/policy error (scored 0)`)
  if (s.tools.toolErrorRate + s.tools.toolTimeoutRate > 0) warn.push(`tool success rate ${pct(s.tools.toolSuccessRate)}%: a flaky search environment lowers scores`)
  if (warn.length > 0) {
    lines.push(`> **Reliability warning:** ${warn.join('; ')}.`)
    lines.push('')
  }
  lines.push('## Accuracy')
  lines.push('')
  const overallRows = [['all', String(s.overall.n), ci(s.overall.f1), ci(s.overall.em), ...(judge ? [ci(s.overall.judge)] : [])]]
  if (s.completedOnly.n !== s.overall.n)
    overallRows.push(['completed only', String(s.completedOnly.n), ci(s.completedOnly.f1), ci(s.completedOnly.em), ...(judge ? [ci(s.completedOnly.judge)] : [])])
  // The floor beside F1 and EM: what the best constant answer per relation scores on the same questions.
  if (s.floor) overallRows.push(['floor: a constant answer per relation', String(s.floor.n), pct(s.floor.f1), pct(s.floor.em), ...(judge ? ['–'] : [])])
  lines.push(table(accHeader, overallRows))
  lines.push('')
  if (s.floor) {
    const top = s.floor.top[0]
    lines.push(
      `The floor is the F1 and EM of the best constant answer per relation on these questions, held out: each question answered with the constant that scores best on the other questions of its relation (${s.floor.groups} relation groups; the largest, ${top ? `${top.n} questions, has "${top.answer}" for F1 ${pct(top.f1)} in-sample` : 'none'}). A policy that never reads reaches it, so a score is read against it, not against 0.`,
    )
    lines.push('')
  }
  lines.push('### By type')
  lines.push('')
  lines.push(table(accHeader.map((h, i) => (i === 0 ? 'type' : h)), accRows(s.byType, judge)))
  lines.push('')
  lines.push('![accuracy by type](charts/accuracy-by-type.svg)')
  lines.push('')
  lines.push('### By hops')
  lines.push('')
  lines.push(table([...accHeader.map((h, i) => (i === 0 ? 'hops' : h)), 'search/q', 'access/q'], accRows(s.byHops, judge, s.tools.byHops)))
  lines.push('')
  lines.push('![accuracy by hops](charts/accuracy-by-hops.svg)')
  lines.push('')
  lines.push('## Tool use and reliability')
  lines.push('')
  const t = s.tools
  const e = s.endpoint
  lines.push(table(['metric', 'value'], [
    ['search calls / question', n2(t.searchPerQuestion)],
    ['access calls / question', n2(t.accessPerQuestion)],
    ['assistant turns / question', n2(t.turnsPerQuestion)],
    ['format valid (ended with an answer)', `${pct(t.formatValidRate)}%`],
    ['malformed turns', `${pct(t.malformedTurnRate)}%`],
    ['tool success rate', `${pct(t.toolSuccessRate)}%`],
    ['tool error rate', `${pct(t.toolErrorRate)}%`],
    ['tool timeout rate', `${pct(t.toolTimeoutRate)}%`],
    ['tool 429 rate', `${pct(t.toolRateLimitRate)}%`],
    ['model requests (attempts)', `${e.requests} (${e.attempts})`],
    ['endpoint retries', String(e.retries)],
    ['429 rate-limited / 5xx / network / timeouts', `${e.rateLimited} / ${e.serverErrors} / ${e.networkErrors} / ${e.timeouts}`],
    ['questions lost to the endpoint', String(e.failedQuestions)],
  ]))
  lines.push('')
  lines.push('![tool calls by hops](charts/tool-calls-by-hops.svg)')
  lines.push('')
  lines.push('Stop reasons: ' + Object.entries(s.stopReasons).map(([k, v]) => `${k} ${v}`).join(', '))
  lines.push('')
  lines.push('## Tokens, latency, cost')
  lines.push('')
  const L = s.latencyMs
  const rows = [
    ['prompt tokens (total, per question)', `${s.tokens.prompt}, ${n2(s.tokens.promptPerQuestion)}`],
    ['completion tokens (total, per question)', `${s.tokens.completion}, ${n2(s.tokens.completionPerQuestion)}`],
    ['question latency ms (mean / p50 / p95)', `${L.question.mean.toFixed(0)} / ${L.question.p50.toFixed(0)} / ${L.question.p95.toFixed(0)}`],
    ['model call latency ms (mean / p50 / p95)', `${L.modelCall.mean.toFixed(0)} / ${L.modelCall.p50.toFixed(0)} / ${L.modelCall.p95.toFixed(0)}`],
    ['env step latency ms (mean / p50 / p95)', `${L.envStep.mean.toFixed(1)} / ${L.envStep.p50.toFixed(1)} / ${L.envStep.p95.toFixed(1)}`],
  ]
  if (s.cost) rows.push(['cost USD (total, per question)', `${s.cost.total.toFixed(4)}, ${s.cost.perQuestion.toFixed(6)}`])
  if (s.cost?.judge !== undefined) rows.push(['judge cost USD', s.cost.judge.toFixed(4)])
  lines.push(table(['metric', 'value'], rows))
  lines.push('')
  return { markdown: lines.join('\n'), charts }
}

export function writeReport(outDir: string, config: BenchRunConfig, summary: RunSummary): ReportFiles {
  const { markdown, charts } = renderReport(config, summary)
  mkdirSync(join(outDir, 'charts'), { recursive: true })
  const files: string[] = []
  for (const [name, svg] of Object.entries(charts)) {
    const p = join(outDir, 'charts', name)
    writeFileSync(p, svg)
    files.push(p)
  }
  const report = join(outDir, 'report.md')
  writeFileSync(report, markdown)
  return { report, charts: files }
}
