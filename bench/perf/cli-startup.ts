// bench/perf/cli-startup: start-up time of the `searchgym` CLI — `node bin/searchgym.mjs ARGS` for `--help` and, with
// --world DIR, `world stats DIR --json` and `gym check DIR --split bench`; `node -e 0` is timed alongside as the floor
// (Node's own start-up on this machine at this moment). The cases run round-robin (one of each, N times), so a change in
// the machine's load falls on all of them alike. Each run goes through /usr/bin/time; prints per case the median and
// minimum wall, the median CPU (user + sys), and the median wall and CPU over the floor's. CPU seconds are the fairer
// figure on a shared, loaded machine. `--root DIR` measures another checkout (e.g. an older commit unpacked with
// `git archive`, sharing this node_modules); `--before DIR` times that checkout's cases too, in the same rounds (a
// before/after at the same load); `--npx` adds `npx searchgym --help`. Knows nothing of the commands' output.
//   node bin/run-ts.mjs bench/perf/cli-startup.ts [--runs 20] [--world /tmp/tiny] [--root DIR] [--before DIR] [--npx]
import { spawnSync } from 'node:child_process'
import { loadavg } from 'node:os'
import { resolve } from 'node:path'
import { perfArgs } from './perf-args'

const { values: opt } = perfArgs('node bin/run-ts.mjs bench/perf/cli-startup.ts [--runs 20] [--world DIR] [--root DIR] [--before DIR] [--npx]', {
  root: { type: 'string', default: '.' },
  runs: { type: 'string', default: '20' },
  world: { type: 'string', default: '' },
  before: { type: 'string', default: '' },
  npx: { type: 'boolean', default: false },
})
const root = resolve(opt.root)
const runs = Number(opt.runs)
const world = opt.world
const before = opt.before
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write('cli-startup: --runs must be a positive integer\n')
  process.exit(2)
}

const FLOOR = 'node -e 0'
const CASES: { label: string; cmd: string[]; cwd: string }[] = [{ label: FLOOR, cmd: [process.execPath, '-e', '0'], cwd: root }]
for (const [tag, dir] of before ? [['before: ', resolve(before)], ['after:  ', root]] : [['', root]]) {
  const cli = (label: string, args: string[]) => CASES.push({ label: `${tag}${label}`, cmd: [process.execPath, 'bin/searchgym.mjs', ...args], cwd: dir })
  cli('node bin/searchgym.mjs --help', ['--help'])
  if (world) {
    const w = resolve(world)
    cli('node bin/searchgym.mjs world stats W --json', ['world', 'stats', w, '--json'])
    cli('node bin/searchgym.mjs gym check W --split bench', ['gym', 'check', w, '--split', 'bench'])
  }
  if (opt.npx) CASES.push({ label: `${tag}npx searchgym --help`, cmd: ['npx', 'searchgym', '--help'], cwd: dir })
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const ms = (s: number) => `${Math.round(s * 1000)}`.padStart(5)
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ')

process.stdout.write(`root ${root}${before ? `, before ${resolve(before)}` : ''}; ${runs} runs each, round-robin; load average at start ${load()}\n`)
const wall = new Map<string, number[]>(CASES.map((c) => [c.label, []]))
const cpu = new Map<string, number[]>(CASES.map((c) => [c.label, []]))
for (let i = 0; i < runs; i++) {
  for (const c of CASES) {
    const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %U %S', ...c.cmd], { cwd: c.cwd, encoding: 'utf8' })
    const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+)/.exec(r.stderr)
    if (r.status !== 0 || !m) {
      process.stderr.write(`cli-startup: ${c.label} failed (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-2).join(' | ')}\n`)
      process.exit(1)
    }
    wall.get(c.label)!.push(Number(m[1]))
    cpu.get(c.label)!.push(Number(m[2]) + Number(m[3]))
  }
}
const floorWall = median(wall.get(FLOOR)!)
const floorCpu = median(cpu.get(FLOOR)!)
process.stdout.write(`${'case'.padEnd(58)} wall ms: median   min | cpu ms: median | over the floor: wall   cpu\n`)
for (const c of CASES) {
  const w = wall.get(c.label)!
  const u = cpu.get(c.label)!
  const over = c.label === FLOOR ? '' : `${ms(median(w) - floorWall)} ${ms(median(u) - floorCpu)}`
  process.stdout.write(`${c.label.padEnd(58)}         ${ms(median(w))} ${ms(Math.min(...w))} |         ${ms(median(u))} | ${over}\n`)
}
process.stdout.write(`load average at end ${load()}\n`)
