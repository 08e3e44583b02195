// agent/policy/pricing: an optional price table (USD per million tokens, per model) and the cost of a call.
// It knows nothing about endpoints; a model missing from the table has no cost (undefined), never 0.
import { AgentError } from '../../infra/errors'
import { readJsonFile } from '../../infra/config'

export interface ModelPrice {
  /** USD per 1M prompt (input) tokens. */
  input: number
  /** USD per 1M completion (output) tokens. */
  output: number
}

/** Model name → price; the key '*' applies to any model not listed. */
export type PriceTable = Record<string, ModelPrice>

export function costOf(prices: PriceTable, model: string, promptTokens: number, completionTokens: number): number | undefined {
  const p = prices[model] ?? prices['*']
  if (!p) return undefined
  return (promptTokens * p.input + completionTokens * p.output) / 1e6
}

export function parsePriceTable(raw: unknown, where = 'price table'): PriceTable {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new AgentError('agent.prices', `${where} must be a JSON object {"model": {"input": usdPerMTok, "output": usdPerMTok}}`)
  const out: PriceTable = {}
  for (const [model, v] of Object.entries(raw as Record<string, unknown>)) {
    const p = v as Record<string, unknown>
    if (typeof p !== 'object' || p === null || typeof p.input !== 'number' || typeof p.output !== 'number')
      throw new AgentError('agent.prices', `${where}: entry '${model}' must be {"input": number, "output": number} (USD per 1M tokens)`)
    for (const k of Object.keys(p))
      if (k !== 'input' && k !== 'output') throw new AgentError('agent.prices', `${where}: entry '${model}' has unknown key '${k}' (known: input, output)`)
    out[model] = { input: p.input, output: p.output }
  }
  return out
}

export function readPriceTable(path: string): PriceTable {
  return parsePriceTable(readJsonFile(path, 'price table'), path)
}
