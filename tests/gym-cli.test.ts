// tests/gym-cli: the gym's CLI entry points as real child processes — `searchgym score` (file in/out, bad input →
// one-line error, non-zero exit) and `searchgym gym serve --fixture` answering /health on a free port.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sharedTinyWorld } from './helpers/shared-world'

const BIN = new URL('../bin/searchgym.mjs', import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), 'searchgym-gym-cli-'))

describe('searchgym score', () => {
  it('adds f1 and em to every line and keeps the other fields', () => {
    const inp = join(dir, 'in.jsonl')
    const out = join(dir, 'out.jsonl')
    writeFileSync(
      inp,
      [
        { id: 'a', prediction: 'The city of Paris', answers: ['Paris', 'Paris, France'] },
        { id: 'b', prediction: 'yes no', answers: ['yes'] },
        { id: 'c', prediction: 'Marie Curie', answers: ['marie curie'] },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n') + '\n',
    )
    const r = spawnSync(process.execPath, [BIN, 'score', '--in', inp, '--out', out], { encoding: 'utf8' })
    expect(r.status).toBe(0)
    expect(r.stderr).toContain('scored 3 lines')
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(lines).toEqual([
      { id: 'a', prediction: 'The city of Paris', answers: ['Paris', 'Paris, France'], f1: 0.5, em: 0 },
      { id: 'b', prediction: 'yes no', answers: ['yes'], f1: 0, em: 0 },
      { id: 'c', prediction: 'Marie Curie', answers: ['marie curie'], f1: 1, em: 1 },
    ])
  })

  it('a bad line is a one-line error naming the line, with a non-zero exit', () => {
    const inp = join(dir, 'bad.jsonl')
    writeFileSync(inp, '{"prediction":"x","answers":["x"]}\n{"prediction":"x","answers":"x"}\n')
    const r = spawnSync(process.execPath, [BIN, 'score', '--in', inp], { encoding: 'utf8' })
    expect(r.status).not.toBe(0)
    expect(r.stderr.trim()).toBe('searchgym: error: line 2: "answers" must be a non-empty array of strings')
  })
})

describe('searchgym gym serve', () => {
  it('serves a built world on a free port', async () => {
    const world = await sharedTinyWorld()
    const p = spawn(process.execPath, [BIN, 'gym', 'serve', world.dir, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let err = ''
        p.stderr.on('data', (d: Buffer) => {
          err += d.toString()
          const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(err)
          if (m) resolve(m[1])
        })
        p.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)))
      })
      const h = await (await fetch(`${url}/health`)).json()
      expect(h).toMatchObject({ status: 'ok', world: 'tiny' })
      expect((h as { qa: number }).qa).toBeGreaterThan(100)
    } finally {
      p.kill('SIGTERM')
    }
  })
  it('without a world folder it says what to give', () => {
    const r = spawnSync(process.execPath, [BIN, 'gym', 'serve'], { encoding: 'utf8' })
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain('give a world folder')
  })
})
