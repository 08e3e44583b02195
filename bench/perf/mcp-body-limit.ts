// bench/perf/mcp-body-limit: `gym mcp --http` under one chunked upload of --mb megabytes (default 700; issue 59) —
// the status it answers, how much the client had pushed by then, the time, and the server's RSS and peak RSS (VmHWM)
// before and after, read from /proc. The body limit is the server's default (1 MiB).
// Usage: node bin/run-ts.mjs bench/perf/mcp-body-limit.ts --world DIR [--mb 700]
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { perfArgs } from './perf-args'

const { values: opt } = perfArgs('node bin/run-ts.mjs bench/perf/mcp-body-limit.ts --world DIR [--mb 700]', { world: { type: 'string' }, mb: { type: 'string', default: '700' } })
if (!opt.world) {
  process.stderr.write('mcp-body-limit: --world DIR is required\n')
  process.exit(2)
}
const kib = (pid: number, key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1])
const bin = new URL('../../bin/searchgym.mjs', import.meta.url).pathname
const p = spawn(process.execPath, [bin, 'gym', 'mcp', opt.world, '--http', '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] })
let err = ''
const url = await new Promise<URL>((res) =>
  p.stderr!.on('data', (d: Buffer) => {
    err += d.toString()
    const m = /on (http:\/\/\S+\/mcp)/.exec(err)
    if (m) res(new URL(m[1]))
  }),
)
await new Promise((r) => setTimeout(r, 500))
const rss0 = kib(p.pid!, 'VmRSS')
const hwm0 = kib(p.pid!, 'VmHWM')
const t0 = performance.now()
const total = Number(opt.mb) * 1024 * 1024
const r = await new Promise<{ status: number; sent: number }>((resolve) => {
  let sent = 0
  let answered = false
  const req = request({ host: url.hostname, port: url.port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', accept: 'application/json, text/event-stream' } }, (res) => {
    answered = true
    res.resume()
    res.on('end', () => resolve({ status: res.statusCode ?? 0, sent }))
  })
  req.on('error', () => undefined)
  const chunk = Buffer.alloc(64 * 1024, 'a')
  const pump = () => {
    while (!answered && sent < total) {
      sent += chunk.length
      if (!req.write(chunk)) return void req.once('drain', pump)
    }
    if (!answered) req.end()
  }
  pump()
})
const mib = (k: number) => +(k / 1024).toFixed(1)
console.log(`gym mcp --http, a ${opt.mb} MB chunked body: ${r.status} after ${mib(r.sent / 1024)} MiB sent, ${Math.round(performance.now() - t0)} ms; RSS ${mib(rss0)} → ${mib(kib(p.pid!, 'VmRSS'))} MiB, peak ${mib(hwm0)} → ${mib(kib(p.pid!, 'VmHWM'))} MiB`)
p.kill('SIGTERM')
