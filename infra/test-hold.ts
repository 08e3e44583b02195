// infra/test-hold: a test-only pause at a named point (inside a world stage's write transaction, or a training step
// between its metrics line and its checkpoint), so that process-kill tests can SIGKILL a real process at a known
// point. Inert unless SEARCHGYM_TEST_HOLD names the point.

/** If SEARCHGYM_TEST_HOLD equals `stage`, announce it on stderr and block (synchronously) for up to 60 s. */
export function holdForTest(stage: string): void {
  if (process.env.SEARCHGYM_TEST_HOLD !== stage) return
  process.stderr.write(`searchgym: test hold in stage ${stage}\n`)
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000)
}
