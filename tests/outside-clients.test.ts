// tests/outside-clients: client replicas of Search-R1, verl and AReaL/ASearcher (tests/helpers/outside-clients) against a
// real `searchgym gym serve` child process over loopback on the run's real tiny world — the empty batch, 2,560 queries
// in one request, 120 concurrent verl-style callers under their 30 s timeout, ASearcher's address file, search and
// access (an unknown page answered 200 with null).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'
import { asearcherAccess, asearcherSearch, asearcherServerAddr, searchR1Turn, startGymServe, verlSearch, type GymServeProcess } from './helpers/outside-clients'

type J = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const post = async (url: string, body: unknown) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, json: (await res.json()) as J }
}

describe('outside trainers against a real gym serve', () => {
  let s: GymServeProcess
  let addrDir: string
  let questions: string[]
  beforeAll(async () => {
    const world = await sharedTinyWorld()
    addrDir = mkdtempSync(join(tmpdir(), 'sg-rag-addr-'))
    s = await startGymServe(world.dir, ['--address-file', addrDir])
    const qa = (await (await fetch(`${s.url}/v1/qa?limit=400`)).json()) as { items: { question: string }[] }
    questions = qa.items.map((q) => q.question)
  })
  afterAll(async () => {
    if (s && s.proc.exitCode === null) await s.stop()
    rmSync(addrDir, { recursive: true, force: true })
  })

  it('Search-R1: an empty turn is {"result": []}; a default call gives 3 hits per query with url', async () => {
    expect(await post(`${s.url}/retrieve`, { queries: [], topk: 3, return_scores: true })).toEqual({ status: 200, json: { result: [] } })
    const r = await post(`${s.url}/retrieve`, { queries: [questions[0]] })
    expect(r.status).toBe(200)
    expect(r.json.result).toHaveLength(1)
    expect(r.json.result[0]).toHaveLength(3) // default topk
    for (const item of r.json.result[0]) {
      expect(Object.keys(item).sort()).toEqual(['contents', 'id', 'text', 'title', 'url'])
      expect(item.contents).toBe(`${item.title}\n${item.text}`)
    }
  })

  it('Search-R1: 2,560 queries in one request come back as one list per query, in order', async () => {
    const queries = Array.from({ length: 2560 }, (_, i) => questions[(i * 7) % questions.length])
    const t0 = performance.now()
    const turn = await searchR1Turn(`${s.url}/retrieve`, queries, 3)
    const ms = performance.now() - t0
    expect(turn.status).toBe(200)
    expect(turn.passages).toHaveLength(2560)
    expect(turn.passages.every((p) => p.startsWith('Doc 1(Title: '))).toBe(true)
    expect(ms).toBeLessThan(30_000)
    // Order: a few positions answered alone give the same passages.
    for (const i of [0, 1, 1337, 2559]) expect((await searchR1Turn(`${s.url}/retrieve`, [queries[i]], 3)).passages[0]).toBe(turn.passages[i])
    const scored = await post(`${s.url}/retrieve`, { queries: queries.slice(0, 2), topk: 2, return_scores: true })
    for (const hit of scored.json.result.flat()) {
      expect(Object.keys(hit.document).sort()).toEqual(['contents', 'id', 'url'])
      expect(typeof hit.score).toBe('number')
    }
  })

  it('verl: 120 concurrent tool calls all answer on the first attempt inside the 30 s timeout', async () => {
    const calls = await Promise.all(Array.from({ length: 120 }, (_, i) => verlSearch(`${s.url}/retrieve`, [questions[i % questions.length]], 3)))
    expect(calls.filter((c) => !c.ok)).toEqual([])
    expect(calls.every((c) => c.attempts === 1 && c.ms < 30_000)).toBe(true)
    expect(calls.every((c) => c.text.length > 0 && c.text.length <= 256)).toBe(true)
  })

  it('verl: a 4xx stops its retries at once', async () => {
    const bad = await verlSearch(`${s.url}/retrieve`, ['x'], 0) // topk 0 is refused
    expect(bad).toMatchObject({ ok: false, attempts: 1, status: 400 })
  })

  it('verl: network errors are retried, 10 attempts in all (a loopback port with nothing listening)', async () => {
    const { createServer } = await import('node:net')
    const probe = createServer()
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()))
    const port = (probe.address() as { port: number }).port
    await new Promise<void>((r) => probe.close(() => r()))
    const down = await verlSearch(`http://127.0.0.1:${port}/retrieve`, ['x'], 3, 256, 30_000, 1)
    expect(down).toMatchObject({ ok: false, attempts: 10, status: undefined })
  })

  it('ASearcher: finds the server through its address file, searches one query, accesses hit urls and unknown pages', async () => {
    const files = readdirSync(addrDir).filter((f) => !f.startsWith('.')) // .Host…txt.pid: the writer's pid sidecar
    const port = new URL(s.url).port
    expect(files).toEqual([`Host127.0.0.1_IP${port}.txt`])
    const addr = asearcherServerAddr(addrDir)
    expect(addr).toBe(`127.0.0.1:${port}`) // no trailing newline: ASearcher does not strip one
    const [hits] = await asearcherSearch(addr, questions[3], 5)
    expect(hits.documents).toHaveLength(5)
    expect(hits.urls.every((u) => /^https?:\/\//.test(u))).toBe(true)
    const acc = await asearcherAccess(addr, [hits.urls[0], 'https://nowhere.example/No_Such_Page', hits.urls[1]])
    expect(acc.status).toBe(200)
    expect(acc.pages[1]).toBeNull()
    expect(acc.pages[0]!.startsWith(hits.documents[0].split('\n')[0] + '\n')).toBe(true)
    expect(acc.pages[2]).toBe(hits.documents[1])
    expect(await asearcherAccess(addr, ['https://nowhere.example/x'])).toEqual({ status: 200, pages: [null] })
    expect(await post(`http://${addr}/access`, { urls: [] })).toEqual({ status: 200, json: { result: [] } })
    expect((await post(`http://${addr}/access`, { url: 'x' })).status).toBe(400)
  })

  it('gym serve: an address folder it cannot write is a one-line error and a non-zero exit', async () => {
    const world = await sharedTinyWorld()
    const notADir = join(addrDir, '..', `${addrDir.split('/').pop()}-file`)
    writeFileSync(notADir, 'x')
    try {
      const r = await runCli(['gym', 'serve', world.dir, '--port', '0', '--address-file', join(notADir, 'sub')], 60_000)
      expect(r.code).not.toBe(0)
      expect(r.stderr.trim()).toMatch(/^searchgym: error: cannot write the address file .*-file\/sub\/Host127\.0\.0\.1_IP\d+\.txt: ENOTDIR$/)
    } finally {
      rmSync(notADir, { force: true })
    }
  })

  it('gym serve removes the address file when it stops', async () => {
    const file = join(addrDir, readdirSync(addrDir).filter((f) => f.startsWith('Host'))[0])
    expect(readFileSync(file, 'utf8')).toMatch(/^127\.0\.0\.1:\d+$/)
    expect(await s.stop()).toBe(0)
    expect(existsSync(file)).toBe(false)
    expect(readdirSync(addrDir)).toEqual([]) // the pid sidecar too
  })
})
