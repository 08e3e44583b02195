// gym/worker-peers.test: the framed Unix-socket calls between gym serve workers — answers match their calls (out of
// order, large payloads split over many reads), a handler's error comes back as its status, and a peer that goes away
// fails pending and later calls at once instead of hanging. Also the env-id owner and per-worker slot rules.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import type { Socket } from 'node:net'
import { join } from 'node:path'
import { listenPeers, PeerDownError, PeerLink } from './worker-peers'
import { ownerOf, workerMaxEnvs } from './cluster-sessions'

let dir: string
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'sg-peers-'))))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('answers match calls, out of order and with payloads larger than one read', async () => {
  const path = join(dir, 'a.sock')
  const srv = await listenPeers(
    path,
    async (head, payload) => {
      await new Promise((r) => setTimeout(r, Number(head.delay)))
      return `${String(head.op)}:${payload.length}:${payload.slice(0, 3)}`
    },
    () => ({ status: 500, code: 'x', message: 'x', param: null }),
  )
  const link = new PeerLink(path, 'peer a')
  const big = 'é'.repeat(400_000) // 800 KB of UTF-8: many socket reads
  const [slow, fast, large] = await Promise.all([link.call({ op: 'slow', delay: 50 }, 'abc'), link.call({ op: 'fast', delay: 0 }, ''), link.call({ op: 'big', delay: 10 }, big)])
  expect(slow).toBe('slow:3:abc')
  expect(fast).toBe('fast:0:')
  expect(large).toBe('big:400000:ééé')
  link.close()
  srv.close()
})

test("a handler's error comes back with its status, code and message", async () => {
  const path = join(dir, 'b.sock')
  const srv = await listenPeers(
    path,
    async () => {
      throw new Error('no open env')
    },
    (e) => ({ status: 404, code: 'env.not_found', message: (e as Error).message, param: null }),
  )
  const link = new PeerLink(path, 'peer b')
  await expect(link.call({ op: 'step' })).rejects.toMatchObject({ failure: { status: 404, code: 'env.not_found', message: 'no open env' } })
  link.close()
  srv.close()
})

test('a peer that goes away fails pending calls and later ones at once (no hang)', async () => {
  const path = join(dir, 'c.sock')
  const srv = await listenPeers(path, () => new Promise<string>(() => {}), () => ({ status: 500, code: 'x', message: 'x', param: null }))
  const conns: Socket[] = []
  srv.on('connection', (s: Socket) => conns.push(s))
  const link = new PeerLink(path, 'peer c')
  const pending = link.call({ op: 'never' })
  await new Promise((r) => setTimeout(r, 50))
  const t0 = performance.now()
  // The peer process dies: its listener and its connections go.
  srv.close()
  for (const s of conns) s.destroy()
  await expect(pending).rejects.toBeInstanceOf(PeerDownError)
  await expect(link.call({ op: 'later' })).rejects.toBeInstanceOf(PeerDownError)
  expect(performance.now() - t0).toBeLessThan(1000)
  link.dead = true
  await expect(link.call({ op: 'dead' })).rejects.toThrow('peer c is down')
})

test('env ids name their owner; --max-envs splits exactly over the workers', () => {
  expect(ownerOf('env_w3_0123abcd')).toBe(3)
  expect(ownerOf('env_0123456789abcdef01234567')).toBeUndefined()
  expect(ownerOf('env_wx_1')).toBeUndefined()
  for (const [max, n] of [
    [1, 2],
    [2, 2],
    [7, 3],
    [4096, 16],
  ])
    expect(Array.from({ length: n }, (_, i) => workerMaxEnvs(max, i, n)).reduce((a, b) => a + b, 0)).toBe(max)
  expect(workerMaxEnvs(1, 1, 2)).toBe(0)
})
