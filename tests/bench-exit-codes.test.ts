// tests/bench-exit-codes: `bench run` exits non-zero when questions are lost to the endpoint and names the cause in one
// line — connection refused (a port nobody listens on), 401 (a real loopback server refusing the key), timeout (a real
// loopback server that never answers) — and `--allow-lost` keeps the partial run with exit 0. Retries and timeouts are
// made small so each run takes seconds.
import { mkdtempSync, rmSync, existsSync } from 'node:fs'
import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { lostCause } from '../bench/cli/run'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

const dir = mkdtempSync(join(tmpdir(), 'bench-exit-'))
const servers: Server[] = []
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r))
  rmSync(dir, { recursive: true, force: true })
})

async function listen(onRequest: RequestListener): Promise<string> {
  const s = createServer(onRequest)
  servers.push(s)
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()))
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`
}

/** A port that was just free: listen, note it, close. Nobody listens there while the test runs (best effort). */
async function refusedUrl(): Promise<string> {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()))
  const port = (s.address() as AddressInfo).port
  await new Promise((r) => s.close(r))
  return `http://127.0.0.1:${port}/v1`
}

async function bench(baseUrl: string, name: string, ...extra: string[]) {
  const world = await sharedTinyWorld()
  const out = join(dir, name)
  const r = await runCli(['bench', 'run', world.dir, '--model', 'm', '--base-url', baseUrl, '--limit', '2', '--set', 'concurrency=2', '--set', 'maxRetries=1', '--set', 'timeoutMs=400', '--set', 'bootstrap=50', '--out', out, ...extra])
  return { ...r, out, errLines: r.stderr.split('\n').filter((l) => l.startsWith('searchgym:')) }
}

test('no server: exit 1, one line naming connection refused', async () => {
  const url = await refusedUrl()
  const r = await bench(url, 'refused')
  expect(r.code).toBe(1)
  expect(r.errLines).toHaveLength(1)
  expect(r.errLines[0]).toMatch(/^searchgym: error: 2 of 2 questions lost to the endpoint: connection refused at http:\/\/127\.0\.0\.1:\d+\/v1/)
  expect(r.errLines[0]).toMatch(/--set allowLost=true/)
  // The partial run is still written (a later --retry-errors continues it).
  expect(existsSync(join(r.out, 'summary.json'))).toBe(true)
})

test('a server refusing the key: exit 1 naming 401 and the key variable', async () => {
  const url = await listen((_req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }))
  })
  const r = await bench(url, 'unauthorized', '--set', 'apiKeyEnv=SG_TEST_NO_SUCH_KEY')
  expect(r.code).toBe(1)
  expect(r.errLines).toHaveLength(1)
  expect(r.errLines[0]).toMatch(/lost to the endpoint: 401 Unauthorized at .*\$SG_TEST_NO_SUCH_KEY/)
})

test('a server that never answers: exit 1 naming the timeout', async () => {
  const url = await listen(() => {
    /* never answers */
  })
  const r = await bench(url, 'timeout')
  expect(r.code).toBe(1)
  expect(r.errLines[0]).toMatch(/lost to the endpoint: timeout at .*timeoutMs 400/)
})

test('--allow-lost keeps the partial run with exit 0 and a warning', async () => {
  const r = await bench(await refusedUrl(), 'allowed', '--set', 'allowLost=true')
  expect(r.code).toBe(0)
  expect(r.stdout).toMatch(/lost 2/)
  expect(r.errLines).toEqual([expect.stringMatching(/^searchgym: warning: 2 of 2 questions lost to the endpoint: connection refused .*kept \(allowLost\)$/)])
})

test('lostCause names the most frequent cause and counts the rest', () => {
  const c = { baseURL: 'http://h/v1', apiKeyEnv: 'K', timeoutMs: 5 }
  const refused = 'chat request to http://h/v1 (model m) still failing (network) after 2 attempts: Connection error. (ECONNREFUSED)'
  const unauthorized = 'chat request to http://h/v1 (model m) failed: 401 Incorrect API key provided'
  expect(lostCause([refused, refused, unauthorized], c)).toBe('connection refused at http://h/v1 (is the server running?) (2 of them; 1 other cause in trajectories.jsonl)')
  expect(lostCause([unauthorized], c)).toBe('401 Unauthorized at http://h/v1 (check the key in $K)')
})
