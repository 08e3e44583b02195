// world/write/llm-cache: the world file's record of every LLM call (table llm_cache), keyed by (model, prompt hash).
// A row is written the moment a reply arrives (autocommit), so a killed build keeps every finished call. Knows SQL only.
import type { Db } from '../../infra/store'

export interface CachedReply {
  text: string
  promptTokens: number
  completionTokens: number
}

export function initLlmCacheTable(db: Db): void {
  db.exec(`CREATE TABLE IF NOT EXISTS llm_cache (
    model TEXT NOT NULL, prompt_hash TEXT NOT NULL, prompt TEXT NOT NULL, response TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, seq INTEGER NOT NULL,
    PRIMARY KEY (model, prompt_hash))`)
}

export function cacheGet(db: Db, model: string, promptHash: string): CachedReply | undefined {
  const r = db.prepare('SELECT response, prompt_tokens, completion_tokens FROM llm_cache WHERE model = ? AND prompt_hash = ?').get(model, promptHash) as
    | { response: string; prompt_tokens: number; completion_tokens: number }
    | undefined
  return r && { text: r.response, promptTokens: r.prompt_tokens, completionTokens: r.completion_tokens }
}

export function cachePut(db: Db, model: string, promptHash: string, prompt: string, reply: CachedReply): void {
  db.prepare(
    `INSERT INTO llm_cache (model, prompt_hash, prompt, response, prompt_tokens, completion_tokens, seq)
     VALUES (?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM llm_cache)) ON CONFLICT (model, prompt_hash) DO NOTHING`,
  ).run(model, promptHash, prompt, reply.text, reply.promptTokens, reply.completionTokens)
}

/** Tokens of every call this world has recorded (all models): what the per-world budget counts. */
export function cacheTotals(db: Db): { calls: number; promptTokens: number; completionTokens: number } {
  const r = db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(prompt_tokens), 0) AS p, COALESCE(SUM(completion_tokens), 0) AS c FROM llm_cache').get() as { n: number; p: number; c: number }
  return { calls: r.n, promptTokens: r.p, completionTokens: r.c }
}
