// infra/http/chat-client.test: the one chat client against a real loopback server (the replay fixture) and a closed
// port — a retried 503 then a reply (attempts, failures, usage, price hook, Retry-After), a status the policy does not
// retry ends the call at once, a refused connection is 'network' with its socket code, and retries stop at maxRetries.
import { createServer } from 'node:net'
import { startReplayServer, type ReplayServer, type ScriptedReply } from '../../tests/fixtures/replay-server'
import { ChatCallError, ChatEndpoint, type RetryPolicy } from './chat-client'

let server: ReplayServer
const script: ScriptedReply[] = []
beforeAll(async () => {
  server = await startReplayServer(() => script.shift() ?? { content: 'ok', usage: { prompt_tokens: 10, completion_tokens: 5 } })
})
afterAll(() => server.close())

const body = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] }
function policy(maxRetries: number, waits: number[]): RetryPolicy {
  return { maxRetries, retryable: (f) => f.kind !== 'permanent', backoffMs: (a, f) => Math.max(10 * 2 ** a, f.retryAfterMs ?? 0), sleep: async (ms) => void waits.push(ms) }
}

test('a 503 is retried, then the reply carries attempts, the failure, usage and its price', async () => {
  const ep = new ChatEndpoint({ baseURL: server.url, apiKey: 'k', timeoutMs: 5000, price: (p, c) => p * 1 + c * 2 })
  script.push({ status: 503, headers: { 'retry-after': '2' } })
  const waits: number[] = []
  const r = await ep.complete(body, { retry: policy(2, waits) })
  expect(r.choice?.message.content).toBe('ok')
  expect(r.attempts).toBe(2)
  expect(r.failures.map((f) => [f.kind, f.status, f.retryAfterMs])).toEqual([['server', 503, 2000]])
  expect(r.usage).toEqual({ promptTokens: 10, completionTokens: 5 })
  expect(r.cost).toBe(20)
  expect(waits).toEqual([2000])
})

test('a status the policy does not retry ends the call after one attempt', async () => {
  const ep = new ChatEndpoint({ baseURL: server.url, apiKey: 'k', timeoutMs: 5000 })
  script.push({ status: 400 })
  const waits: number[] = []
  const e = await ep.complete(body, { retry: policy(3, waits) }).catch((x: unknown) => x)
  expect(e).toBeInstanceOf(ChatCallError)
  expect((e as ChatCallError).last).toMatchObject({ kind: 'permanent', status: 400 })
  expect((e as ChatCallError).attempts).toBe(1)
  expect(waits).toEqual([])
})

test('a refused connection is a network failure with its socket code; retries stop at maxRetries', async () => {
  // A port that was just free and is closed again: nothing listens there.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port
      s.close(() => resolve(p))
    })
  })
  const ep = new ChatEndpoint({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'k', timeoutMs: 5000 })
  const waits: number[] = []
  const e = (await ep.complete(body, { retry: policy(2, waits) }).catch((x: unknown) => x)) as ChatCallError
  expect(e).toBeInstanceOf(ChatCallError)
  expect(e.attempts).toBe(3)
  expect(e.failures.map((f) => f.kind)).toEqual(['network', 'network', 'network'])
  expect(e.last.status).toBeUndefined()
  expect(e.last.causeCode).toBe(' (ECONNREFUSED)')
  expect(waits).toEqual([10, 20])
})
