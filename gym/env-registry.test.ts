// gym/env-registry.test: idle expiry per env (a shorter one asked for, never a longer one) and the reaped count.
import { EnvRegistry, type SessionEnv } from './env-registry'

const fakeEnv = {} as SessionEnv

describe('EnvRegistry idle expiry', () => {
  it('reaps an env at its own shorter expiry, keeps the others to the server one, and counts what it reaped', async () => {
    let t = 0
    const r = new EnvRegistry(10, 600_000, () => t)
    const short = r.add(fakeEnv, 60_000)
    const long = r.add(fakeEnv, 3_600_000) // asks for longer than the server's: gets the server's
    const plain = r.add(fakeEnv)
    t = 60_001
    r.sweep()
    expect({ size: r.size, reaped: r.reaped }).toEqual({ size: 2, reaped: 1 })
    await expect(r.use(short, async () => 0)).rejects.toMatchObject({ code: 'env.expired', message: expect.stringContaining('60000 ms idle') })
    t = 600_002
    r.sweep()
    expect({ size: r.size, reaped: r.reaped }).toEqual({ size: 0, reaped: 3 })
    await expect(r.use(long, async () => 0)).rejects.toMatchObject({ code: 'env.expired' })
    await expect(r.use(plain, async () => 0)).rejects.toMatchObject({ code: 'env.expired' })
    r.dispose()
  })

  it('an env closed by its client is not counted as reaped', () => {
    let t = 0
    const r = new EnvRegistry(10, 1000, () => t)
    r.close(r.add(fakeEnv, 100))
    t = 10_000
    r.sweep()
    expect({ size: r.size, reaped: r.reaped }).toEqual({ size: 0, reaped: 0 })
    r.dispose()
  })
})
