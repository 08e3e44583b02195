// bench/perf/keep-alive-probe: does a client whose event loop stalls between two requests get a reset connection?
// GETs URL, busy-waits STALL ms (a starved client on a loaded machine: the keep-alive timer cannot run), GETs again;
// repeats N times and counts failures (ECONNRESET = the server closed the idle socket the client reused).
//   node bin/run-ts.mjs bench/perf/keep-alive-probe.ts http://127.0.0.1:8001/v1/models [--stall 6000] [--n 4]
export {}

const url = process.argv[2]
const opt = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : d
}
if (!url) {
  process.stderr.write('keep-alive-probe: give a URL, e.g. http://127.0.0.1:8001/v1/models (a running model serve)\n')
  process.exit(2)
}
const stall = opt('stall', 6000)
const n = opt('n', 4)
let fails = 0
for (let i = 0; i < n; i++) {
  await (await fetch(url)).text()
  const t = Date.now()
  while (Date.now() - t < stall) {
    // busy: no timers, no I/O callbacks
  }
  try {
    await (await fetch(url)).text()
  } catch (e) {
    fails++
    const cause = (e as { cause?: { code?: string; message?: string } }).cause
    process.stdout.write(`reuse failed: ${(e as Error).message} (${cause?.code ?? cause?.message ?? '?'})\n`)
  }
}
process.stdout.write(`stall ${stall} ms: ${fails} of ${n} reused connections failed\n`)
