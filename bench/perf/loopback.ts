// bench/perf/loopback: what the server benchmarks share — start `searchgym gym serve` as a child process (as deployed),
// a keep-alive node:http JSON client (lighter than fetch, so the numbers are the server's), percentiles, and the
// server's resident memory read from /proc. No workload logic here.
import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { openGymWorld } from '../../gym'

export interface ServerProc {
  url: string
  pid: number
  proc: ChildProcess
  stop(): Promise<void>
}

/** `node BIN gym serve WORLD --port 0 ...flags`; resolves with the URL it prints. */
export function startGymServe(opts: { bin?: string; world: string; flags?: string[] }): Promise<ServerProc> {
  const bin = opts.bin ?? new URL('../../bin/searchgym.mjs', import.meta.url).pathname
  const argv = [bin, 'gym', 'serve', opts.world, '--port', '0', ...(opts.flags ?? [])]
  const p = spawn(process.execPath, argv, { stdio: ['ignore', 'inherit', 'pipe'] })
  return new Promise((resolve, reject) => {
    let err = ''
    p.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /on (http:\/\/[^\s]+)/.exec(err)
      if (m)
        resolve({
          url: m[1],
          pid: p.pid!,
          proc: p,
          stop: () =>
            new Promise<void>((res) => {
              if (p.exitCode !== null) return res()
              p.once('exit', () => res())
              p.kill('SIGTERM')
            }),
        })
    })
    p.once('exit', (c) => reject(new Error(`gym serve exited ${c}: ${err.trim().split('\n').pop()}`)))
  })
}

export interface JsonReply {
  status: number
  body: Record<string, unknown>
}

/** A keep-alive JSON client for one server. Network errors reject; every status resolves. */
export function jsonClient(baseUrl: string, maxSockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets })
  const u = new URL(baseUrl)
  const call = (method: string, path: string, body?: unknown): Promise<JsonReply> =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body)
      const headers: Record<string, string | number> = data === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) }
      const req = request({ agent, host: u.hostname, port: u.port, path, method, headers }, (res) => {
        let t = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (t += c))
        res.on('end', () => {
          let parsed: Record<string, unknown> = {}
          try {
            parsed = JSON.parse(t) as Record<string, unknown>
          } catch {
            parsed = { raw: t.slice(0, 200) }
          }
          resolve({ status: res.statusCode ?? 0, body: parsed })
        })
      })
      req.on('error', reject)
      req.end(data)
    })
  return { call, close: () => agent.destroy() }
}

export const pct = (xs: number[], p: number): number => {
  const s = Float64Array.from(xs).sort()
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))] : NaN
}

/** Resident memory of a process in MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : NaN
}

/** Process ids of pid's children (Linux /proc): the workers of `gym serve --workers N`. */
export function childPids(pid: number): number[] {
  const out: number[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      // /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces, so read after the last ')'.
      const st = readFileSync(`/proc/${d}/stat`, 'utf8')
      if (Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(d))
    } catch {
      // exited meanwhile
    }
  }
  return out
}

/** Resident memory of a server and its worker processes together, in MiB. */
export function treeRssMiB(pid: number): number {
  return [pid, ...childPids(pid)].reduce((s, p) => {
    try {
      return s + rssMiB(p)
    } catch {
      return s
    }
  }, 0)
}

/** What the server benchmarks send, drawn from a built world: its QA ids and questions, and page URLs and title words
 *  found by searching the questions. `--world DIR` is required (a tiny one builds in seconds:
 *  `searchgym world build --preset tiny --out worlds/tiny`). */
export async function worldWorkload(dir: string | undefined, usage: string): Promise<{ qaIds: string[]; questions: string[]; urls: string[]; words: string[] }> {
  if (!dir) {
    process.stderr.write(`${usage}: --world DIR is required (a tiny one: npx searchgym world build --preset tiny --out worlds/tiny)\n`)
    process.exit(2)
  }
  const world = await openGymWorld(dir)
  try {
    const qa = world.listQa().slice(0, 200)
    const hits = (await Promise.all(qa.slice(0, 50).map((q) => world.search(q.question, 5)))).flat()
    const urls = [...new Set(hits.map((h) => h.url))]
    const words = [...new Set(hits.flatMap((h) => h.title.split(/\s+/)))].concat(['founded', 'headquarters', 'who', 'wrote', 'year'])
    return { qaIds: qa.map((q) => q.id), questions: qa.map((q) => q.question), urls, words }
  } finally {
    await world.close()
  }
}
