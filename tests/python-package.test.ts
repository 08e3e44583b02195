// tests/python-package: the Python package (python/) against a real token-protected `searchgym gym serve` over loopback
// on the run's tiny world — its unittest suite (python/tests) with the machine's python3, fed the oracle's walks and
// gold answers from the world, nothing skipped; then `pip install --no-index ./python` into a fresh venv (offline)
// and python/README.md's quick start, GRPO-group and verifiers snippets run as written (verifiers through the stand-in;
// the TRL snippet is compiled only). That `world export --format verl` ships the package's verl tool module byte for
// byte is checked where that export is made (tests/outside-exports).
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_GYM_OPTIONS } from '../gym'
import { openWorld, readQa } from '../world'
import { oracleTraces } from './helpers/oracle-calls'
import { sharedTinyWorld } from './helpers/shared-world'
import { startGymServe, type GymServeProcess } from './helpers/gym-serve-process'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin', 'searchgym.mjs')
// Debian's interpreter when there is one (CI's machine python3), else whatever python3 is on PATH.
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'
const TOKEN = 'py-tok-51c2'

function run(cmd: string, args: string[], env: Record<string, string> = {}, timeout = 120_000, input?: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const p = execFile(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, timeout, maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}${stderr}` }),
    )
    if (input !== undefined) p.stdin!.end(input)
  })
}

/** The first ```python block after the heading `heading` in python/README.md. */
function snippet(heading: string): string {
  const md = readFileSync(join(ROOT, 'python', 'README.md'), 'utf8')
  const at = md.indexOf(`\n## ${heading}`)
  if (at < 0) throw new Error(`python/README.md has no heading "## ${heading}"`)
  const m = /```python\n([\s\S]*?)```/.exec(md.slice(at))
  if (!m) throw new Error(`no python block under "## ${heading}"`)
  return m[1]
}

describe('python package (python/) against a real gym serve', () => {
  let s: GymServeProcess
  let tmp: string
  let env: Record<string, string>
  beforeAll(async () => {
    const world = await sharedTinyWorld()
    tmp = mkdtempSync(join(tmpdir(), 'sg-python-'))
    // The oracle's walks (searches, pages opened, the answer it read) at the env's own top-k: first three it solves,
    // one of them with two searches or more.
    const walks = (await oracleTraces(world.dir, DEFAULT_GYM_OPTIONS.topK, ['train'])).filter((t) => t.answer !== undefined && !t.failure)
    const multi = walks.find((t) => t.searches.length >= 2)
    const oracle = [...walks.slice(0, 2), ...(multi ? [multi] : [])].map((t) => ({ qa_id: t.qaId, question: t.question, searches: t.searches, answer: t.answer }))
    const w = openWorld(world.dir)
    const questions = readQa(w.db)
      .filter((q) => q.split === 'train')
      .slice(0, 4)
      .map((q) => ({ qa_id: q.id, answers: [...new Set([q.answer, ...q.aliases])] }))
    w.close()
    const fixture = join(tmp, 'fixture.json')
    writeFileSync(fixture, JSON.stringify({ oracle, questions }))
    s = await startGymServe(world.dir, ['--token', TOKEN, '--workers', '1'])
    env = { SEARCHGYM_TEST_URL: s.url, SEARCHGYM_TEST_TOKEN: TOKEN, SEARCHGYM_TEST_FIXTURE: fixture, SEARCHGYM_TEST_CLI: JSON.stringify([process.execPath, BIN]), SEARCHGYM_TEST_WORLD: world.dir, SEARCHGYM_QUIET: '1' }
  })
  afterAll(async () => {
    if (s && s.proc.exitCode === null) await s.stop()
    if (tmp) rmSync(tmp, { recursive: true, force: true })
  })

  it(`python/tests pass with ${PYTHON}, every live test run (none skipped)`, async () => {
    const r = await run(PYTHON, ['-m', 'unittest', 'discover', '-s', 'python/tests', '-t', 'python/tests', '-v'], env)
    // The tail is compared too, so a failure shows the unittest output.
    expect({ code: r.code, tail: r.code === 0 ? '' : r.out.slice(-6000) }).toEqual({ code: 0, tail: '' })
    expect(r.out).toMatch(/^Ran \d+ tests/m)
    // Only the Python-version and not-installed guards may skip; a live test skipping means the server was not reached.
    const skipped = r.out.split('\n').filter((l) => / \.\.\. skipped /.test(l))
    expect(skipped.filter((l) => !/tomllib needs Python 3\.11|the real (gymnasium|verifiers) is installed/.test(l))).toEqual([])
    expect(r.out).toMatch(/test_oracle_walk_scores_one .* \.\.\. ok/)
    expect(r.out).toMatch(/test_equals_searchgym_score .* \.\.\. ok/)
    expect(r.out).toMatch(/test_rollout_of_8_plays_8_episodes_of_one_question .* \.\.\. ok/)
    expect(r.out).toMatch(/test_make_and_play_with_the_standin .* \.\.\. ok/)
    expect(r.out).toMatch(/test_loads_and_plays_oracle_and_wrong_episodes_with_the_standin .* \.\.\. ok/)
    expect(r.out).toMatch(/test_episodes_equal_the_env_apis .* \.\.\. ok/)
    // The verl tool (issue 49): more trajectories than the env cap, a non-blocking execute, access first, reaping.
    for (const t of ['test_more_trajectories_than_the_cap_end_with_no_env_open_and_every_reward', 'test_execute_does_not_block_the_event_loop', 'test_first_call_access_reads_the_question_from_tools_kwargs', 'test_a_vanished_trajectorys_env_is_reaped_within_its_idle_expiry', 'test_compute_score_survives_an_env_that_is_gone_and_a_full_gym', 'test_a_turns_concurrent_calls_play_in_order'])
      expect(r.out).toMatch(new RegExp(`${t} .* \\.\\.\\. ok`))
  })

  it('pip install --no-index ./python in a fresh venv (offline), then the README snippets run as written', async () => {
    const venv = join(tmp, 'venv')
    const ensurepip = await run(PYTHON, ['-c', 'import ensurepip'], {}, 30_000)
    if (ensurepip.code !== 0) throw new Error(`${PYTHON} cannot make a venv with pip (no ensurepip): install python3-venv (Debian/Ubuntu) and rerun`)
    expect(await run(PYTHON, ['-m', 'venv', venv])).toMatchObject({ code: 0 })
    const py = join(venv, 'bin', 'python')
    // No index, no network, no setuptools: the in-tree backend builds the wheel.
    const pip = await run(py, ['-m', 'pip', 'install', '--no-index', '--disable-pip-version-check', '-q', './python'], { PIP_NO_INDEX: '1' })
    expect({ code: pip.code, out: pip.out }).toMatchObject({ code: 0 })
    const where = await run(py, ['-c', 'import searchgym; print(searchgym.__file__)'], {}, 30_000)
    expect(where.out.trim()).toContain(join(venv, 'lib'))
    const served = { SEARCHGYM_URL: s.url, SEARCHGYM_TOKEN: TOKEN }
    writeFileSync(join(tmp, 'quickstart.py'), snippet('An episode in ten lines'))
    const quick = await run(py, [join(tmp, 'quickstart.py')], served, 60_000)
    expect({ code: quick.code, out: quick.out }).toMatchObject({ code: 0 })
    expect(quick.out.trim().split('\n').pop()).toMatch(/^0\.0 True False answer 0$/)
    writeFileSync(join(tmp, 'group.py'), snippet('A GRPO group with the vector env'))
    const group = await run(py, [join(tmp, 'group.py')], served, 60_000)
    expect({ code: group.code, out: group.out }).toMatchObject({ code: 0 })
    expect(group.out).toContain('[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]')
    // verifiers is not installed here: its snippet runs with the stand-in (python/tests/standin) on the path.
    writeFileSync(join(tmp, 'vf.py'), snippet('verifiers: the gym as a multi-turn tool environment'))
    const vf = await run(py, [join(tmp, 'vf.py')], { ...served, PYTHONPATH: join(ROOT, 'python', 'tests', 'standin') }, 60_000)
    expect({ code: vf.code, out: vf.out }).toMatchObject({ code: 0 })
    expect(vf.out).toMatch(/^100 \{'qa_id': /m)
    const trl = await run(py, ['-c', 'import sys; compile(sys.stdin.read(), "trl-snippet", "exec")'], {}, 30_000, snippet('TRL: the gym\'s F1 as a GRPO reward'))
    expect(trl).toMatchObject({ code: 0 })
  })
})
