// gym/score-file: score a JSONL file of {"prediction", "answers"} lines with the HotpotQA-exact F1/EM, writing each
// line back with "f1" and "em" added — so the scorer can be checked against other implementations.
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { GymError } from '../infra/errors'
import { scoreAnswer } from './answer-metrics'

export interface ScoreSummary {
  lines: number
  meanF1: number
  meanEm: number
}

/** Score one parsed line; throws GymError naming the line when its shape is wrong. */
export function scoreLine(line: string, lineNo: number): Record<string, unknown> {
  let v: unknown
  try {
    v = JSON.parse(line)
  } catch {
    throw new GymError('score.bad_line', `line ${lineNo}: not valid JSON`)
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new GymError('score.bad_line', `line ${lineNo}: must be a JSON object`)
  const o = v as Record<string, unknown>
  if (typeof o.prediction !== 'string') throw new GymError('score.bad_line', `line ${lineNo}: "prediction" must be a string`)
  const answers = o.answers
  if (!Array.isArray(answers) || answers.length === 0 || !answers.every((a) => typeof a === 'string'))
    throw new GymError('score.bad_line', `line ${lineNo}: "answers" must be a non-empty array of strings`)
  const { f1, em } = scoreAnswer(o.prediction, answers as string[])
  return { ...o, f1, em }
}

/** Read `inPath` (JSONL), write scored lines to `outPath` or to `out` (stdout by default). Blank lines are skipped. */
export async function scoreJsonlFile(inPath: string, outPath?: string, out: NodeJS.WritableStream = process.stdout): Promise<ScoreSummary> {
  const input = createReadStream(inPath, { encoding: 'utf8' })
  await new Promise<void>((resolve, reject) => {
    input.once('open', () => resolve())
    input.once('error', (e) => reject(new GymError('score.input', `cannot read ${inPath}: ${e.message}`)))
  })
  const sink: NodeJS.WritableStream = outPath ? createWriteStream(outPath) : out
  let lines = 0
  let f1 = 0
  let em = 0
  let lineNo = 0
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    lineNo++
    if (line.trim() === '') continue
    const r = scoreLine(line, lineNo)
    lines++
    f1 += r.f1 as number
    em += r.em as number
    if (!sink.write(`${JSON.stringify(r)}\n`)) await once(sink as NodeJS.EventEmitter, 'drain')
  }
  if (outPath) {
    sink.end()
    await once(sink as WriteStream, 'finish')
  }
  return { lines, meanF1: lines ? f1 / lines : 0, meanEm: lines ? em / lines : 0 }
}
