// gym/retrieve-batch tests: a streamed /retrieve answer is the exact JSON of its parts, and a reader that asks for the
// next chunk at once (as @hono/node-server does while socket writes succeed) still lets the event loop turn between chunks.
import { streamJson } from './retrieve-batch'

test('streamJson: exact JSON, and a turn of the event loop between chunks for an eager reader', async () => {
  const parts = Array.from({ length: 12 }, (_, i) => JSON.stringify([{ id: `u${i}`, contents: 'x'.repeat(300_000) }]))
  const res = streamJson(parts, { notes: [{ index: 3, note: 'n' }] })
  let turns = 0
  let ticking = true
  const tick = () => {
    turns++
    if (ticking) setImmediate(tick)
  }
  setImmediate(tick)
  const reader = res.body!.getReader()
  const chunks: Uint8Array[] = []
  let turnsAtChunks = 0
  for (let last = 0; ; ) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    if (turns > last) turnsAtChunks++
    last = turns
  }
  ticking = false
  const text = Buffer.concat(chunks).toString('utf8')
  expect(JSON.parse(text)).toEqual({ result: parts.map((p) => JSON.parse(p)), notes: [{ index: 3, note: 'n' }] })
  expect(chunks.length).toBeGreaterThan(6)
  // Every chunk after the first came after at least one other macrotask ran.
  expect(turnsAtChunks).toBeGreaterThanOrEqual(chunks.length - 2)
})
