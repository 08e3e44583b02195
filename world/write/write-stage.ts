// world/write/write-stage: build stage 'write' — with config.write.model set, asks the model to rewrite every template
// document, checks each reply, and stores the rewritten article or keeps the template one (fallbacks counted). Every
// reply is cached in the world file as it arrives, so a killed build resumes without repeating a call; the documents
// are replaced in one transaction at the end. Without a model it records nothing and changes nothing.
import pMap from 'p-map'
import { progress } from '../../infra/progress'
import { passPoint } from '../../infra/run-points'
import { tx, type Db } from '../../infra/store'
import { generateDocs } from '../docs/docs'
import type { Stage } from '../stage'
import { insertDocs, readEdges, readEntities } from '../store/store'
import type { Doc } from '../types'
import { rewriteArticle } from './article'
import { NameIndex, type ProblemKind } from './check-article'
import { docTask } from './doc-prompt'
import { initLlmCacheTable } from './llm-cache'
import { LlmClient, type LlmClientOptions } from './llm-client'
import { clearWriteReport, emptyStageReport, formatWriteReport, initWriteReportTable, saveWriteReport, type WriteReport } from './write-report'

/** Why a document kept its template text. */
export type DocOutcome = 'model' | 'budget' | 'refused' | ProblemKind

export function initWriteTables(db: Db): void {
  initLlmCacheTable(db)
  initWriteReportTable(db)
  db.exec('CREATE TABLE IF NOT EXISTS doc_writes (url TEXT PRIMARY KEY, outcome TEXT NOT NULL, detail TEXT NOT NULL)')
}

/** The write stage; `clientOptions` lets a caller inject the environment (tests) — the stage's own default is process.env. */
export function makeWriteStage(clientOptions: LlmClientOptions = {}): Stage {
  return {
    name: 'write',
    init: initWriteTables,
    async run(ctx) {
      const w = ctx.config.write
      tx(ctx.db, () => {
        ctx.db.exec('DELETE FROM doc_writes')
        clearWriteReport(ctx.db, 'write')
      })
      if (w.model === '') {
        ctx.log('write: no model (write.model): the template documents stand')
        return
      }
      const entities = readEntities(ctx.db)
      const edges = readEdges(ctx.db)
      const byId = new Map(entities.map((e) => [e.id, e]))
      const edgesById = new Map(edges.map((e) => [e.id, e]))
      const lookup = (id: string) => byId.get(id)!
      // The template documents are regenerated (pure, as the docs stage wrote them): a rerun after a kill between this
      // stage's commit and its 'done' mark must not take rewritten documents for templates.
      const templates = generateDocs(entities, edges, ctx.config)
      const worldNames = new NameIndex(entities.map((e) => e.name))
      const client = new LlmClient(ctx.db, w, { log: ctx.log, ...clientOptions })
      const report: WriteReport = { model: w.model, stages: { docs: emptyStageReport() } }
      const r = report.stages.docs
      const holdAt = Math.ceil(templates.length / 2)
      let newCalls = 0
      const bar = progress('write: docs', templates.length, { quiet: ctx.quiet, detail: () => `${r.accepted} rewritten, ${r.fallbacks} kept` })
      const results = await pMap(
        templates,
        async (template): Promise<{ doc: Doc; outcome: DocOutcome; detail: string }> => {
          const task = docTask(lookup(template.entityId), template, edgesById, lookup)
          const reply = await client.complete(task.prompt, 'docs')
          // A run point once half the calls are cached (with concurrency 1, no call is in flight; a kill here must resume).
          if (reply.kind === 'reply' && !reply.cached && ++newCalls === holdAt) passPoint('write')
          let out: { doc: Doc; outcome: DocOutcome; detail: string }
          if (reply.kind === 'budget') out = { doc: template, outcome: 'budget', detail: 'budget spent before this call' }
          else if (reply.kind === 'refused') out = { doc: template, outcome: 'refused', detail: reply.reason }
          else {
            const res = rewriteArticle(task, reply.text, worldNames)
            for (const p of res.problems) r.failedChecks[p.kind] = (r.failedChecks[p.kind] ?? 0) + 1
            out = res.doc
              ? { doc: res.doc, outcome: 'model', detail: '' }
              : { doc: template, outcome: res.problems[0].kind, detail: res.problems.map((p) => `${p.kind}: ${p.detail}`).join('; ').slice(0, 1000) }
          }
          if (out.outcome === 'model') r.accepted++
          else {
            r.fallbacks++
            r.fallbackReasons[out.outcome] = (r.fallbackReasons[out.outcome] ?? 0) + 1
          }
          bar.tick()
          return out
        },
        { concurrency: w.concurrency },
      )
      bar.done()
      const u = client.stageUsage('docs')
      Object.assign(r, { calls: u.calls, cacheHits: u.cacheHits, promptTokens: u.promptTokens, completionTokens: u.completionTokens, retries: u.retries, costUsd: client.cost(u.promptTokens, u.completionTokens) })
      report.worldSpent = client.spent()
      const rewritten = results.filter((x) => x.outcome === 'model').map((x) => x.doc)
      tx(ctx.db, () => {
        const delDoc = ctx.db.prepare('DELETE FROM docs WHERE url = ?')
        const delFacts = ctx.db.prepare('DELETE FROM doc_facts WHERE url = ?')
        for (const d of rewritten) {
          delDoc.run(d.url)
          delFacts.run(d.url)
        }
        insertDocs(ctx.db, rewritten)
        const ins = ctx.db.prepare('INSERT INTO doc_writes (url, outcome, detail) VALUES (?, ?, ?)')
        for (const x of results) ins.run(x.doc.url, x.outcome, x.detail)
        saveWriteReport(ctx.db, 'write', report)
      })
      ctx.log(formatWriteReport(report))
    },
    hashRows(db, emit) {
      // Which documents the model wrote (their text is in the docs section); the details and costs are not content.
      for (const row of db.prepare('SELECT url, outcome FROM doc_writes ORDER BY url').raw().iterate()) emit(row)
    },
  }
}

export const writeStage: Stage = makeWriteStage()
