// bench/gpu/contracts: runs the unchanged backend and model contract suites (infra/engine/*-contract.ts) on the cuda
// backend where jest is not installed (the GPU machine gets one bundled file, see run.sh). A minimal runner of the
// jest globals those suites use — describe/test/beforeAll/afterAll and the matchers they call — not a jest
// replacement: in CI the same suites run under jest (tests/cuda-backend.test.ts). Prints one line per test and
// exits 1 if any fails. Usage: node contracts.mjs   (backend from $SG_CUDA_LIB / $SG_CUDA_MODE)
import { isDeepStrictEqual } from 'node:util'
import { runBackendContract } from '../../infra/engine/backend-contract'
import { runModelContract } from '../../infra/engine/model-contract'
import { createCudaBackend } from '../../infra/engine'

type Fn = () => unknown
interface Suite { name: string; tests: { name: string; fn: Fn }[]; before: Fn[]; after: Fn[] }
const suites: Suite[] = []
let current: Suite | null = null

function fmt(v: unknown): string {
  try {
    const s = JSON.stringify(v)
    return s && s.length > 120 ? s.slice(0, 120) + '…' : String(s)
  } catch {
    return String(v)
  }
}

function expect(actual: unknown) {
  const fail = (what: string): never => {
    throw new Error(`expected ${fmt(actual)} ${what}`)
  }
  const num = actual as number
  return {
    toBe: (e: unknown) => Object.is(actual, e) || fail(`to be ${fmt(e)}`),
    toEqual: (e: unknown) => isDeepStrictEqual(actual, e) || isDeepStrictEqual(JSON.parse(JSON.stringify(actual ?? null)), JSON.parse(JSON.stringify(e ?? null))) || fail(`to equal ${fmt(e)}`),
    toBeCloseTo: (e: number, digits = 2) => Math.abs(num - e) < 10 ** -digits / 2 || fail(`to be close to ${e} (${digits} digits)`),
    toBeGreaterThan: (e: number) => num > e || fail(`> ${e}`),
    toBeGreaterThanOrEqual: (e: number) => num >= e || fail(`>= ${e}`),
    toBeLessThan: (e: number) => num < e || fail(`< ${e}`),
    toBeLessThanOrEqual: (e: number) => num <= e || fail(`<= ${e}`),
    toBeUndefined: () => actual === undefined || fail('to be undefined'),
    toContain: (e: unknown) => (actual as { includes(x: unknown): boolean }).includes(e) || fail(`to contain ${fmt(e)}`),
    toThrow: (e?: RegExp | string) => {
      try {
        ;(actual as Fn)()
      } catch (err) {
        const msg = (err as Error).message
        if (e === undefined || (e instanceof RegExp ? e.test(msg) : msg.includes(e))) return true
        throw new Error(`threw "${msg}", expected ${String(e)}`)
      }
      throw new Error('expected a throw')
    },
  }
}

Object.assign(globalThis, {
  describe: (name: string, body: Fn) => {
    const prev = current
    current = { name, tests: [], before: [], after: [] }
    suites.push(current)
    body()
    current = prev
  },
  test: (name: string, fn: Fn) => current!.tests.push({ name, fn }),
  beforeAll: (fn: Fn) => current!.before.push(fn),
  afterAll: (fn: Fn) => current!.after.push(fn),
  expect,
})

const make = () => createCudaBackend()
runBackendContract({ name: 'cuda', make })
runModelContract({ name: 'cuda', make })

let failed = 0, passed = 0
for (const s of suites) {
  console.log(s.name)
  for (const f of s.before) await f()
  for (const t of s.tests) {
    const t0 = performance.now()
    try {
      await t.fn()
      passed++
      console.log(`  PASS ${t.name} (${Math.round(performance.now() - t0)} ms)`)
    } catch (err) {
      failed++
      console.log(`  FAIL ${t.name}: ${(err as Error).message.split('\n')[0]}`)
    }
  }
  for (const f of s.after) await f()
}
console.log(`contracts on cuda: ${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
