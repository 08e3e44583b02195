// gym/observation-cap: cut tool output to the observation cap with a note saying so (never inside a surrogate pair).

export function capObservation(text: string, cap: number, what = 'Output'): { text: string; truncated: boolean } {
  if (text.length <= cap) return { text, truncated: false }
  let end = cap
  const c = text.charCodeAt(end - 1)
  if (c >= 0xd800 && c <= 0xdbff) end -= 1
  return {
    text: `${text.slice(0, end)}\n\n[${what} truncated: showing the first ${end} of ${text.length} characters.]`,
    truncated: true,
  }
}
