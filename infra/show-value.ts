// infra/show-value: how an error message shows a bad value — numbers as JavaScript prints them (NaN, Infinity, 1e+308:
// JSON.stringify would say "null"), everything else as JSON, cut to 100 characters.
export function showValue(v: unknown): string {
  const s = typeof v === 'number' || typeof v === 'bigint' || v === undefined ? String(v) : (JSON.stringify(v) ?? String(v))
  return s.length > 100 ? `${s.slice(0, 100)}…` : s
}
