// bench/perf/cli-startup: start-up time of the `searchgym` CLI — `node bin/searchgym.mjs ARGS` and `npx searchgym
// ARGS` for a few help pages, each run N times under /usr/bin/time; prints the median wall and CPU (user + sys)
// seconds. CPU seconds are the fairer figure on a shared, loaded machine. `--root DIR` measures another checkout
// (e.g. an older commit in a git worktree sharing this node_modules).
//   node bin/run-ts.mjs bench/perf/cli-startup.ts [--runs 5] [--root DIR]
import { spawnSync } from 'node:child_process'
import { loadavg } from 'node:os'
import { resolve } from 'node:path'

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : dflt
}

const root = resolve(arg('root', '.'))
const runs = Number(arg('runs', '5'))
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write('cli-startup: --runs must be a positive integer\n')
  process.exit(2)
}

const CASES: { label: string; cmd: string[] }[] = [
  { label: 'node bin/searchgym.mjs --help', cmd: [process.execPath, 'bin/searchgym.mjs', '--help'] },
  { label: 'npx searchgym --help', cmd: ['npx', 'searchgym', '--help'] },
  { label: 'node bin/searchgym.mjs world --help', cmd: [process.execPath, 'bin/searchgym.mjs', 'world', '--help'] },
  { label: 'node bin/searchgym.mjs bench run --help', cmd: [process.execPath, 'bin/searchgym.mjs', 'bench', 'run', '--help'] },
]

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

process.stdout.write(`root ${root}; ${runs} runs each; load average at start ${loadavg().map((x) => x.toFixed(2)).join(' ')}\n`)
for (const c of CASES) {
  const wall: number[] = []
  const cpu: number[] = []
  let warnings = ''
  for (let i = 0; i < runs; i++) {
    const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %U %S', ...c.cmd], { cwd: root, encoding: 'utf8' })
    const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+)/.exec(r.stderr)
    if (r.status !== 0 || !m) {
      process.stderr.write(`cli-startup: ${c.label} failed (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-2).join(' | ')}\n`)
      process.exit(1)
    }
    wall.push(Number(m[1]))
    cpu.push(Number(m[2]) + Number(m[3]))
    warnings = r.stderr.replace(/TIME .*\n?/, '').trim()
  }
  process.stdout.write(`${c.label.padEnd(42)} wall median ${median(wall).toFixed(2)} s  cpu median ${median(cpu).toFixed(2)} s${warnings ? `  stderr: ${warnings.split('\n')[0]}` : ''}\n`)
}
process.stdout.write(`load average at end ${loadavg().map((x) => x.toFixed(2)).join(' ')}\n`)
