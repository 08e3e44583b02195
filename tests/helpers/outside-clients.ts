// tests/helpers/outside-clients: small clients written from the request/response shapes of three outside trainers
// (not their code, which cannot be installed here) — Search-R1's batched /retrieve turn, verl's search tool call with
// its retry rules, AReaL/ASearcher's search + access calls found through its address file — and a real
// `searchgym gym serve` child process to point them at.
import { type ChildProcess, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const BIN = fileURLToPath(new URL('../../bin/searchgym.mjs', import.meta.url))

type J = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

export interface GymServeProcess {
  url: string
  proc: ChildProcess
  /** SIGTERM to this process id; resolves with its exit code. */
  stop(): Promise<number | null>
  /** Everything it wrote on stderr so far. */
  stderr(): string
}

/** `searchgym gym serve DIR --port 0 ARGS`, resolved once it prints the URL it listens on. */
export function startGymServe(dir: string, args: string[] = [], timeoutMs = 60_000): Promise<GymServeProcess> {
  const p = spawn(process.execPath, [BIN, 'gym', 'serve', dir, '--port', '0', '--host', '127.0.0.1', ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
  return new Promise((resolve, reject) => {
    let err = ''
    const timer = setTimeout(() => {
      p.kill('SIGKILL')
      reject(new Error(`gym serve did not start in ${timeoutMs} ms: ${err}`))
    }, timeoutMs)
    p.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(err)
      if (m) {
        clearTimeout(timer)
        const exited = new Promise<number | null>((res) => p.once('exit', (code) => res(code)))
        resolve({ url: m[1], proc: p, stop: () => (p.kill('SIGTERM'), exited), stderr: () => err })
      }
    })
    p.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`gym serve exited with ${code}: ${err}`))
    })
  })
}

// ---- Search-R1: one POST per turn with every active sample's query, no timeout, no retry; reads result[i][j].document.contents.
export async function searchR1Turn(retrieveUrl: string, queries: string[], topk: number): Promise<{ status: number; passages: string[] }> {
  const res = await fetch(retrieveUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ queries, topk, return_scores: true }) })
  const body = (await res.json()) as J
  const passages = (body.result as J[][]).map((docs) =>
    docs
      .map((d, i) => {
        const lines = String(d.document.contents).split('\n')
        return `Doc ${i + 1}(Title: ${lines[0]}) ${lines.slice(1).join('\n')}`
      })
      .join('\n'),
  )
  return { status: res.status, passages }
}

// ---- verl SearchTool: {"queries", "topk", "return_scores": true}, 30 s timeout, up to 10 retries on 5xx/network, stop on 4xx.
export interface VerlCall {
  ok: boolean
  attempts: number
  status?: number
  /** Tool output as verl shows it: title + text per document, cut to maxChars (256 by default). */
  text: string
  ms: number
}

export async function verlSearch(retrieveUrl: string, queryList: string[], topk = 3, maxChars = 256, timeoutMs = 30_000, retryDelayMs = 50): Promise<VerlCall> {
  const t0 = performance.now()
  let attempts = 0
  let status: number | undefined
  while (attempts < 10) {
    attempts++
    try {
      const res = await fetch(retrieveUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ queries: queryList, topk, return_scores: true }),
        signal: AbortSignal.timeout(timeoutMs),
      })
      status = res.status
      if (res.status >= 500) {
        await res.arrayBuffer()
        await new Promise((r) => setTimeout(r, retryDelayMs * attempts))
        continue
      }
      if (res.status >= 400) {
        await res.arrayBuffer()
        return { ok: false, attempts, status, text: '', ms: performance.now() - t0 }
      }
      const body = (await res.json()) as J
      const parts = (body.result as J[][]).map((docs) =>
        docs
          .map((d, i) => {
            const c = String(d.document.contents)
            const title = c.split('\n')[0]
            return `Doc ${i + 1}(Title: ${title}) ${c.split('\n').slice(1).join('\n')}`
          })
          .join('\n'),
      )
      return { ok: true, attempts, status, text: parts.join('\n---\n').slice(0, maxChars), ms: performance.now() - t0 }
    } catch {
      await new Promise((r) => setTimeout(r, retryDelayMs * attempts)) // network error or timeout: retry
    }
  }
  return { ok: false, attempts, status, text: '', ms: performance.now() - t0 }
}

// ---- AReaL/ASearcher local knowledge base: the server from $RAG_SERVER_ADDR_DIR/Host<ip>_IP<port>.txt (not stripped).
export function asearcherServerAddr(addrDir: string): string {
  const files = readdirSync(addrDir).filter((f) => /^Host.+_IP\d+\.txt$/.test(f))
  if (files.length !== 1) throw new Error(`expected one address file in ${addrDir}, found ${files.length}`)
  return readFileSync(join(addrDir, files[0]), 'utf8') // read as-is: a trailing newline would break the URL
}

export async function asearcherSearch(addr: string, query: string, topk = 5): Promise<{ documents: string[]; urls: string[] }[]> {
  const res = await fetch(`http://${addr}/retrieve`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ queries: [query], topk, return_scores: false }) })
  if (!res.ok) throw new Error(`retrieve answered ${res.status}`)
  const body = (await res.json()) as J
  return (body.result as J[][]).map((items) => ({ documents: items.map((r) => r.contents as string), urls: items.map((r) => r.url as string) }))
}

/** ASearcher's access: 200 with {"result": [page | null]}; any other status or a missing key would cost it ten retries. */
export async function asearcherAccess(addr: string, urls: string[]): Promise<{ status: number; pages: (string | null)[] }> {
  const res = await fetch(`http://${addr}/access`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ urls }) })
  const body = (await res.json()) as J
  if (!Array.isArray(body.result)) throw new Error(`access answered ${res.status} without "result": ${JSON.stringify(body).slice(0, 200)}`)
  return { status: res.status, pages: (body.result as (J | null)[]).map((p) => (p === null ? null : (p.contents as string))) }
}
