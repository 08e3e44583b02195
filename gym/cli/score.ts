// gym/cli/score: `searchgym score --in FILE.jsonl [--out FILE]` — F1/EM per line, summary on stderr.
import type { ArgumentsCamelCase } from 'yargs'
import { handler, type Command } from '../../infra/cli-util'
import { scoreJsonlFile } from '../score-file'

export const scoreCommand: Command = {
  command: 'score',
  describe: 'score {"prediction","answers"} JSONL lines with HotpotQA-exact F1/EM; writes each line back with "f1" and "em"',
  builder: (y) =>
    y
      .option('in', { type: 'string', demandOption: true, describe: 'input JSONL file' })
      .option('out', { type: 'string', describe: 'output JSONL file (default: stdout)' })
      .example('searchgym score --in predictions.jsonl --out scored.jsonl', 'each {"prediction","answers"} line back with "f1" and "em"'),
  handler: handler(async (raw: ArgumentsCamelCase) => {
    const a = raw as unknown as { in: string; out?: string }
    const s = await scoreJsonlFile(a.in, a.out)
    process.stderr.write(`scored ${s.lines} lines: mean F1 ${s.meanF1.toFixed(4)}, EM ${s.meanEm.toFixed(4)}\n`)
  }),
}
