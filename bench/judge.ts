// bench/judge: LLM-as-judge through a second OpenAI-compatible model (the paper judged with Qwen-2.5-72B-Instruct).
// It only decides whether a prediction means the same as the gold answer; F1/EM stay with the gym's scorer.
import type { ChatClient } from '../agent'
import type { JudgeVerdict } from './types'

export const JUDGE_SYSTEM =
  'You grade answers to questions. Given a question, the gold answer (with accepted aliases) and a predicted answer, ' +
  'decide whether the prediction refers to the same thing as the gold answer. Ignore case, formatting and minor wording. ' +
  'Reply with exactly one word: CORRECT or INCORRECT.'

export function judgePrompt(question: string, golds: readonly string[], prediction: string): string {
  return `Question: ${question}\nGold answer: ${golds[0] ?? ''}\nAccepted aliases: ${golds.slice(1).join(' | ') || '(none)'}\nPredicted answer: ${prediction}\n\nVerdict:`
}

/** INCORRECT wins over CORRECT when both appear (it contains the word); anything else is not correct. */
export function parseVerdict(raw: string): boolean {
  if (/\bincorrect\b/i.test(raw)) return false
  return /\bcorrect\b/i.test(raw)
}

export class LlmJudge {
  constructor(private readonly client: ChatClient) {}

  async judge(id: string, question: string, golds: readonly string[], prediction: string | null): Promise<JudgeVerdict> {
    if (prediction === null) return { correct: false, raw: '(no answer)' }
    const { message, record } = await this.client.complete(
      [
        { role: 'system', content: JUDGE_SYSTEM },
        { role: 'user', content: judgePrompt(question, golds, prediction) },
      ],
      { callKey: `judge:${id}` },
    )
    const raw = message.content ?? ''
    return { correct: parseVerdict(raw), raw, call: record }
  }
}
