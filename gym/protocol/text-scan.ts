// gym/protocol/text-scan: linear scans of assistant text shared by the protocols — thinking removal, tag blocks and
// the final-answer rules (one answer, non-empty, nothing after it). No regex backtracking on untrusted text.
import type { MalformedKind } from './types'

const EOS = ['<|im_end|>', '<|endoftext|>', '</s>', '<|eot_id|>']

export function stripEos(text: string): string {
  let t = text
  for (;;) {
    const before = t
    t = t.trimEnd()
    for (const e of EOS) if (t.endsWith(e)) t = t.slice(0, t.length - e.length)
    if (t === before) return t
  }
}

/** Remove <think>…</think> blocks; a leading orphan </think> (template opened it) drops everything before it;
 * an unclosed <think> drops the rest (the model never finished thinking). */
export function stripThinking(text: string): string {
  let t = text
  const firstOpen = t.indexOf('<think>')
  const firstClose = t.indexOf('</think>')
  if (firstClose >= 0 && (firstOpen < 0 || firstClose < firstOpen)) t = t.slice(firstClose + '</think>'.length)
  let out = ''
  let i = 0
  for (;;) {
    const o = t.indexOf('<think>', i)
    if (o < 0) {
      out += t.slice(i)
      break
    }
    out += t.slice(i, o)
    const c = t.indexOf('</think>', o)
    if (c < 0) break
    i = c + '</think>'.length
  }
  return out
}

export interface TagScan {
  /** Contents of each complete <tag>…</tag> block, in order. */
  blocks: string[]
  /** Offsets just past each closing tag. */
  ends: number[]
  /** An opening tag without its closing tag. */
  unclosed: boolean
}

export function scanTags(text: string, tag: string): TagScan {
  const open = `<${tag}>`
  const close = `</${tag}>`
  const blocks: string[] = []
  const ends: number[] = []
  let i = 0
  for (;;) {
    const o = text.indexOf(open, i)
    if (o < 0) return { blocks, ends, unclosed: false }
    const c = text.indexOf(close, o + open.length)
    if (c < 0) return { blocks, ends, unclosed: true }
    blocks.push(text.slice(o + open.length, c))
    ends.push(c + close.length)
    i = c + close.length
  }
}

export type AnswerCheck =
  | { kind: 'none' }
  | { kind: 'answer'; answer: string }
  | { kind: 'malformed'; error: MalformedKind; message: string }

/** The final-answer rules shared by all protocols. */
export function checkAnswer(text: string): AnswerCheck {
  const a = scanTags(text, 'answer')
  if (a.blocks.length > 1)
    return { kind: 'malformed', error: 'multiple_answers', message: `the turn has ${a.blocks.length} <answer> blocks; give exactly one` }
  if (a.blocks.length === 0) {
    if (a.unclosed) return { kind: 'malformed', error: 'unclosed_tag', message: '<answer> is not closed with </answer>' }
    return { kind: 'none' }
  }
  if (text.slice(a.ends[0]).trim().length > 0)
    return { kind: 'malformed', error: 'text_after_answer', message: 'nothing may follow </answer>; end the turn with the answer' }
  const answer = a.blocks[0].trim()
  if (answer.length === 0) return { kind: 'malformed', error: 'empty_answer', message: 'the <answer> block is empty' }
  return { kind: 'answer', answer }
}
