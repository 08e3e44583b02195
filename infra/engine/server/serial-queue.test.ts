// Tests for serial-queue: jobs never overlap and finish in arrival order; a failing job does not block the next.
import { SerialQueue } from './serial-queue'

it('runs jobs one at a time in order, surviving failures', async () => {
  const q = new SerialQueue()
  const log: string[] = []
  let active = 0
  const job = (name: string, ms: number, fail = false) => async () => {
    active++
    expect(active).toBe(1)
    log.push(`start ${name}`)
    await new Promise((r) => setTimeout(r, ms))
    log.push(`end ${name}`)
    active--
    if (fail) throw new Error(`boom ${name}`)
    return name
  }
  const a = q.run(job('a', 20))
  const b = q.run(job('b', 1, true))
  const c = q.run(job('c', 5))
  expect(q.depth).toBe(3)
  await expect(a).resolves.toBe('a')
  await expect(b).rejects.toThrow('boom b')
  await expect(c).resolves.toBe('c')
  expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c'])
  expect(q.depth).toBe(0)
})

it('drops a waiting job whose caller went away, and runs the next', async () => {
  const q = new SerialQueue()
  const ran: string[] = []
  const job = (name: string) => async () => {
    ran.push(name)
    await new Promise((r) => setTimeout(r, 5))
    return name
  }
  const gone = new AbortController()
  const a = q.run(job('a'))
  const b = q.run(job('b'), gone.signal)
  const c = q.run(job('c'), new AbortController().signal)
  gone.abort()
  await expect(a).resolves.toBe('a')
  await expect(b).rejects.toThrow('disconnected')
  await expect(c).resolves.toBe('c')
  expect(ran).toEqual(['a', 'c'])
  expect(q.dropped).toBe(1)
})
