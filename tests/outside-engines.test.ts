// tests/outside-engines: the Python replicas of Search-R1, verl and AReaL/ASearcher (tests/replicas/engines.py, written
// from their code with file:line cited there; python3 standard library only) against a real `searchgym gym serve`
// child process (--workers 2) over loopback on the run's real tiny world — a token-protected server reached through the path prefix
// each engine's URL setting (or ASearcher's address line) carries, 401 without it; unknown body fields accepted and
// noted; --max-topk; stale address files of a SIGKILLed server removed at the next start and skipped by readers;
// ASearcher's stock access branch crashing (TypeError) and the documented patch working.
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { liveAddresses } from '../gym/address-file'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'
import { startGymServe, type GymServeProcess } from './helpers/outside-clients'

type J = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const REPLICAS = fileURLToPath(new URL('./replicas/engines.py', import.meta.url))

/** Run one replica call: `python3 engines.py CMD JSON` → its JSON line. */
function replica(cmd: string, args: J): Promise<J> {
  return new Promise((resolve, reject) => {
    execFile('python3', [REPLICAS, cmd, JSON.stringify(args)], { env: { ...process.env, REPLICA_SLEEP_SCALE: '0.001' }, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`replica ${cmd} failed: ${err.message} ${stderr}`))
      resolve(JSON.parse(stdout.trim().split('\n').pop()!) as J)
    })
  })
}

const TOKEN = 'tok-3f9a/+x=' // a '/', a '+' and a '=' (a Bearer token has no spaces: gym serve refuses one): the prefix is percent-encoded in URLs and address lines
const ENC = encodeURIComponent(TOKEN)

describe('outside engines (Python replicas) against a token-protected gym serve', () => {
  let s: GymServeProcess
  let addrDir: string
  let question: string
  beforeAll(async () => {
    const world = await sharedTinyWorld()
    addrDir = mkdtempSync(join(tmpdir(), 'sg-engines-addr-'))
    s = await startGymServe(world.dir, ['--token', TOKEN, '--address-file', addrDir, '--max-topk', '80', '--workers', '2'])
    const qa = (await (await fetch(`${s.url}/v1/qa?limit=5`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { items: { question: string }[] }
    question = qa.items[0].question
  })
  afterAll(async () => {
    if (s && s.proc.exitCode === null) await s.stop()
    rmSync(addrDir, { recursive: true, force: true })
  })

  it('Search-R1: retriever.url with /t/TOKEN searches; without it the 401 body crashes its [\'result\'] read', async () => {
    const ok = await replica('search-r1', { url: `${s.url}/t/${ENC}/retrieve`, queries: [question, question], topk: 3 })
    expect(ok.ok).toBe(true)
    expect(ok.passages).toHaveLength(2)
    expect(ok.passages[0]).toMatch(/^Doc 1\(Title: .+\) /)
    const bad = await replica('search-r1', { url: `${s.url}/retrieve`, queries: [question], topk: 3 })
    expect(bad).toMatchObject({ ok: false, error: 'KeyError' })
    const wrong = await replica('search-r1', { url: `${s.url}/t/wrong/retrieve`, queries: [question], topk: 3 })
    expect(wrong).toMatchObject({ ok: false, error: 'KeyError' })
  })

  it('verl: retrieval_service_url with /t/TOKEN answers on the first attempt; without it "Search error" (401, not retried)', async () => {
    const ok = await replica('verl', { url: `${s.url}/t/${ENC}/retrieve`, queries: [question] })
    expect(ok).toMatchObject({ ok: true, attempts: 1 })
    expect(JSON.parse(ok.text).result).toMatch(/^Doc 1 \(Title: /)
    expect(ok.shown.length).toBeLessThanOrEqual(256 + '...(truncated)...'.length)
    const bad = await replica('verl', { url: `${s.url}/retrieve`, queries: [question] })
    expect(bad).toMatchObject({ ok: false, attempts: 1 })
    expect(JSON.parse(bad.text).result).toMatch(/^Search error: .*401/)
  })

  it('ASearcher: the address line carries /t/TOKEN (file readable by its owner only); search and patched access work', async () => {
    const files = readdirSync(addrDir).filter((f) => f.startsWith('Host'))
    expect(files).toHaveLength(1)
    const line = readFileSync(join(addrDir, files[0]), 'utf8')
    expect(line).toBe(`127.0.0.1:${new URL(s.url).port}/t/${ENC}`)
    expect(statSync(join(addrDir, files[0])).mode & 0o077).toBe(0)
    const r = await replica('asearcher', { addr_dir: addrDir, query: question, topk: 5 })
    expect(r.ok).toBe(true)
    expect(r.search[0].documents).toHaveLength(5)
    const url = r.search[0].urls[0] as string
    const patched = await replica('asearcher', { addr_dir: addrDir, access: url, patched: true })
    expect(patched).toMatchObject({ ok: true, tries: 1 })
    expect(patched.page).toBe(r.search[0].documents[0])
    // Stock 813e804: SearchToolBox.step indexes the list access_async returns with "result".
    const stock = await replica('asearcher', { addr_dir: addrDir, access: url, patched: false })
    expect(stock).toMatchObject({ ok: false, error: 'TypeError' })
  })

  it('ASearcher: an address line without the token gets 401 on each of its 10 tries, then raises', async () => {
    const plain = mkdtempSync(join(tmpdir(), 'sg-engines-plain-'))
    try {
      writeFileSync(join(plain, `Host127.0.0.1_IP${new URL(s.url).port}.txt`), `127.0.0.1:${new URL(s.url).port}`)
      const r = await replica('asearcher', { addr_dir: plain, query: question })
      expect(r).toMatchObject({ ok: false, error: 'RuntimeError', message: 'Fail to post retrieve request to RAG server' })
    } finally {
      rmSync(plain, { recursive: true, force: true })
    }
  })

  it('the Bearer header still works, /health stays open, and unknown body fields are accepted and named in a header', async () => {
    expect((await fetch(`${s.url}/health`)).status).toBe(200)
    const post = (path: string, body: J, headers: Record<string, string> = {}) =>
      fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
    const bearer = await post('/retrieve', { queries: [question], topk: 2, return_scores: true, request_id: 'r-1', session: { a: 1 } }, { authorization: `Bearer ${TOKEN}` })
    expect(bearer.status).toBe(200)
    expect(bearer.headers.get('x-searchgym-ignored-fields')).toBe('request_id,session')
    expect(((await bearer.json()) as J).result[0]).toHaveLength(2)
    const acc = await post(`/t/${ENC}/access`, { urls: ['https://nowhere.example/x'], trace: true })
    expect(acc.status).toBe(200)
    expect(acc.headers.get('x-searchgym-ignored-fields')).toBe('trace')
    expect(await acc.json()).toEqual({ result: [null] })
    const plainCall = await post(`/t/${ENC}/retrieve`, { queries: [question] })
    expect(plainCall.headers.get('x-searchgym-ignored-fields')).toBeNull()
    // --max-topk 80: topk 60 is served; 81 is a 400 naming the field.
    expect((await post(`/t/${ENC}/retrieve`, { queries: [question], topk: 60 })).status).toBe(200)
    const over = await post(`/t/${ENC}/retrieve`, { queries: [question], topk: 81 })
    expect(over.status).toBe(400)
    expect(((await over.json()) as J).error.param).toBe('topk')
    // Env routes take the prefix too; a wrong prefix is 401 everywhere but /health.
    expect((await fetch(`${s.url}/t/${ENC}/v1/qa?limit=1`)).status).toBe(200)
    expect((await fetch(`${s.url}/t/nope/v1/qa?limit=1`)).status).toBe(401)
    await new Promise((r) => setTimeout(r, 100))
    expect(s.stderr()).toMatch(/\/retrieve ignores unknown body field\(s\) "request_id", "session"/)
  })
})

describe('address files of a killed server', () => {
  it('SIGKILL leaves the file; readers skip it; the next gym serve in that folder removes it', async () => {
    const world = await sharedTinyWorld()
    const dir = mkdtempSync(join(tmpdir(), 'sg-engines-stale-'))
    try {
      const first = await startGymServe(world.dir, ['--address-file', dir])
      const exited = new Promise((r) => first.proc.once('exit', r))
      first.proc.kill('SIGKILL')
      await exited
      const stale = readdirSync(dir).filter((f) => f.startsWith('Host'))
      expect(stale).toHaveLength(1) // no exit hook ran
      expect(liveAddresses(dir)).toEqual([])
      const r = await replica('asearcher', { addr_dir: dir, skip_dead: true, query: 'x' })
      expect(r).toMatchObject({ ok: false, error: 'IndexError' }) // random.choice([]): nothing live to pick
      const second = await startGymServe(world.dir, ['--address-file', dir])
      try {
        expect(second.stderr()).toMatch(new RegExp(`removed the stale address file .*${stale[0].replace(/\./g, '\\.')} \\(its server, pid ${first.proc.pid}, no longer runs\\)`))
        const now = readdirSync(dir).filter((f) => f.startsWith('Host'))
        expect(now).toEqual([`Host127.0.0.1_IP${new URL(second.url).port}.txt`])
        expect(liveAddresses(dir)).toEqual([`127.0.0.1:${new URL(second.url).port}`])
      } finally {
        await second.stop()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('gym check --format NAME (old --profile)', () => {
  it("reports the oracle's solvable fraction by type and hops under an engine's stock limits and under --set overrides", async () => {
    const world = await sharedTinyWorld()
    const parse = (out: string) => {
      const m = /: (\d+)\/(\d+) solvable \(/.exec(out)
      expect(m).not.toBeNull()
      return { solved: Number(m![1]), total: Number(m![2]) }
    }
    const stock = await runCli(['gym', 'check', world.dir, '--format', 'verl', '--limit', '60'], 120_000)
    expect(stock.code).toBe(0)
    expect(stock.stdout).toMatch(/^oracle under verl limits \(toolCalls 1, topk 3, obs 256, docChars 0, context 3000, access false\)/)
    expect(stock.stdout).toMatch(/\n {2}by type: .*simple \d+\/\d+/)
    expect(stock.stdout).toMatch(/\n {2}by hops: 1 \d+\/\d+/)
    expect(stock.stdout).toMatch(/not solvable by cause: turns \d+/)
    const raised = await runCli(['gym', 'check', world.dir, '--profile', 'verl', '--limit', '60', '--set', 'toolCalls=8', '--set', 'obs=4096', '--set', 'context=13023'], 120_000)
    expect(raised.code).toBe(0)
    const a = parse(stock.stdout)
    const b = parse(raised.stdout)
    expect(a.total).toBe(60)
    expect(a.solved).toBeLessThan(0.2 * a.total)
    expect(b.solved).toBeGreaterThanOrEqual(0.95 * b.total)
    const bad = await runCli(['gym', 'check', world.dir, '--format', 'verl', '--set', 'turns=3'], 60_000)
    expect(bad.code).not.toBe(0)
    expect(bad.stderr.trim()).toMatch(/^searchgym: error: --set turns=3: unknown config key 'turns'; known keys: .*toolCalls, topk/)
  })
})

describe('gym serve --retrieve-unit passage', () => {
  it('serves ~100-word passages (title first line) to the Search-R1 and ASearcher replicas; their urls open the page', async () => {
    const world = await sharedTinyWorld()
    const dir = mkdtempSync(join(tmpdir(), 'sg-engines-passage-'))
    const s = await startGymServe(world.dir, ['--retrieve-unit', 'passage', '--address-file', dir])
    try {
      expect(s.stderr()).toMatch(/\/retrieve serves passages/)
      const qa = (await (await fetch(`${s.url}/v1/qa?limit=1`)).json()) as { items: { question: string }[] }
      const r = await replica('search-r1', { url: `${s.url}/retrieve`, queries: [qa.items[0].question], topk: 3 })
      expect(r.ok).toBe(true)
      const docs = (r.passages[0] as string).trim().split('\n')
      expect(docs).toHaveLength(3) // one line per passage: no newline inside a chunk
      for (const d of docs) expect(d.replace(/^Doc \d+\(Title: [^)]*\) /, '').split(/\s+/).length).toBeLessThanOrEqual(100)
      const a = await replica('asearcher', { addr_dir: dir, query: qa.items[0].question, topk: 5, access: '' })
      expect(a.search[0].documents).toHaveLength(5)
      const page = await replica('asearcher', { addr_dir: dir, access: a.search[0].urls[0], patched: true })
      expect(page.page.split('\n')[0]).toBe(a.search[0].documents[0].split('\n')[0])
      const norm = (t: string) => t.replace(/\s+/g, ' ')
      expect(norm(page.page)).toContain(norm(a.search[0].documents[0].split('\n')[1])) // the passage is a piece of its page
    } finally {
      await s.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
