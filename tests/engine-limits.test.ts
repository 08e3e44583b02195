// tests/engine-limits: the shipped launch settings against each outside engine's own truncation and reward — the run's
// tiny world exported for Search-R1, verl and AReaL/ASearcher (`world export --format NAME`), the limits read back from
// the launch scripts and tool yaml the export wrote, the oracle's searches of every exported question sent by each
// engine's client replica to a real `searchgym gym serve` over loopback and cut as that engine cuts them
// (tests/replicas/engine_limits.py, ported from their code with file:line cited there; python3 standard library, the
// Qwen tokenizer through tests/replicas/qwen_cut.mjs). Asserts: the searches that find an evidence page keep the
// evidence sentences visible in ≥ 95 % of them under the shipped settings; a scripted gold policy (those searches, then
// the oracle's answer in the engine's format) scores 1.0 for every question through the engine's own reward port, and a
// wrong answer scores below 1; its episodes fit the shipped turn and token limits for ≥ 95 % of the questions.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parquetReadObjects } from 'hyparquet'
import { runCli } from './helpers/cli-process'
import { oracleTraces, type OracleTrace } from './helpers/oracle-calls'
import { startGymServe, type GymServeProcess } from './helpers/outside-clients'
import { sharedTinyWorld } from './helpers/shared-world'

type J = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const REPLICA = fileURLToPath(new URL('./replicas/engine_limits.py', import.meta.url))
const ENGINES = ['search-r1', 'verl', 'asearcher'] as const
type Engine = (typeof ENGINES)[number]

const readParquet = async (path: string): Promise<J[]> => {
  const b = readFileSync(path)
  return (await parquetReadObjects({ file: b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) })) as J[]
}
const readJsonl = (path: string): J[] => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as J)

/** A numeric `key=value` flag of a launch script (the last one wins, as with Hydra overrides). */
function flag(script: string, key: string): number {
  const all = [...script.matchAll(new RegExp(`(?:^|\\s)${key.replace(/\./g, '\\.')}=(\\d+)(?=\\s)`, 'g'))]
  if (all.length === 0) throw new Error(`the launch script sets no ${key}`)
  return Number(all.at(-1)![1])
}

/** The shipped settings the engine reads, from the files the export wrote. */
function shippedSettings(engine: Engine, dir: string): J {
  const script = readFileSync(join(dir, `launch-${engine}.sh`), 'utf8')
  if (engine === 'search-r1')
    return {
      topk: flag(script, 'retriever.topk'),
      max_obs_length: flag(script, 'data.max_obs_length'),
      max_turns: flag(script, 'max_turns'),
      max_prompt_length: flag(script, 'data.max_prompt_length'),
    }
  if (engine === 'verl') {
    const yaml = readFileSync(join(dir, 'search_tool_config.yaml'), 'utf8')
    const topk = /^\s+topk: (\d+)$/m.exec(yaml)
    if (!topk) throw new Error('search_tool_config.yaml sets no topk')
    return {
      topk: Number(topk[1]),
      max_tool_response_length: flag(script, 'actor_rollout_ref.rollout.multi_turn.max_tool_response_length'),
      max_assistant_turns: flag(script, 'actor_rollout_ref.rollout.multi_turn.max_assistant_turns'),
      max_response_length: flag(script, 'data.max_response_length'),
    }
  }
  // doc[:5000] is code (search_agent.py:153), not a setting.
  return { topk: flag(script, 'topk'), doc_chars: 5000, max_turns: flag(script, 'max_turns'), max_tokens_per_mb: flag(script, 'actor.mb_spec.max_tokens_per_mb') }
}

function runReplica(specPath: string): Promise<J> {
  return new Promise((resolve, reject) => {
    execFile('python3', [REPLICA, specPath], { timeout: 240_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`engine_limits.py failed: ${err.message} ${stderr}`))
      resolve(JSON.parse(stdout.trim().split('\n').pop()!) as J)
    })
  })
}

describe('shipped launch settings through each engine replica against gym serve', () => {
  let tmp: string
  let s: GymServeProcess
  const reports = new Map<Engine, J>()

  beforeAll(async () => {
    const world = await sharedTinyWorld()
    tmp = mkdtempSync(join(tmpdir(), 'sg-engine-limits-'))
    const exports = await Promise.all(
      ENGINES.map(async (engine) => {
        const dir = join(tmp, engine)
        const r = await runCli(['world', 'export', world.dir, '--format', engine, '--out', dir], 180_000)
        if (r.code !== 0) throw new Error(`world export --format ${engine} failed: ${r.stderr}`)
        return dir
      }),
    )
    const addrDir = join(tmp, 'rag-addr')
    s = await startGymServe(world.dir, ['--address-file', addrDir])
    const traces = new Map<number, Promise<Map<string, OracleTrace>>>()
    const traceFor = (topk: number) => {
      if (!traces.has(topk)) traces.set(topk, oracleTraces(world.dir, topk).then((ts) => new Map(ts.map((t) => [t.qaId, t]))))
      return traces.get(topk)!
    }
    await Promise.all(
      ENGINES.map(async (engine, i) => {
        const dir = exports[i]
        const shipped = shippedSettings(engine, dir)
        const trace = await traceFor(shipped.topk as number)
        const rows: { id: string; prompt?: string; ground_truth?: J; data_source?: string }[] = []
        if (engine === 'asearcher') {
          for (const f of ['train.jsonl', 'test.jsonl']) for (const r of readJsonl(join(dir, f))) rows.push({ id: r.id as string })
        } else {
          for (const f of ['train.parquet', 'test.parquet'])
            for (const r of await readParquet(join(dir, f)))
              rows.push({
                id: (engine === 'search-r1' ? r.id : r.extra_info.qa_id) as string,
                prompt: engine === 'search-r1' ? (r.prompt[0].content as string) : undefined,
                ground_truth: r.reward_model.ground_truth as J,
                data_source: r.data_source as string,
              })
        }
        // ASearcher ids have '@' replaced (it cuts a sample id at the first one); the trace is keyed by the QA id.
        const byExportId = new Map([...trace.values()].map((t) => [engine === 'asearcher' ? t.qaId.replaceAll('@', '_') : t.qaId, t]))
        const questions = rows.map((r) => {
          const t = byExportId.get(r.id)
          if (!t) throw new Error(`exported row ${r.id} has no oracle trace`)
          if (t.answer === undefined) throw new Error(`the oracle failed on exported question ${r.id}: ${t.failure}`)
          return { ...r, question: t.question, answer: t.answer, searches: t.searches }
        })
        const spec = {
          engine,
          url: `${s.url}/retrieve`,
          addr_dir: addrDir,
          dataset_paths: engine === 'asearcher' ? [join(dir, 'train.jsonl'), join(dir, 'test.jsonl')] : [],
          shipped,
          questions,
        }
        const specPath = join(tmp, `${engine}.spec.json`)
        writeFileSync(specPath, JSON.stringify(spec))
        reports.set(engine, await runReplica(specPath))
      }),
    )
    for (const [engine, r] of reports)
      process.stdout.write(
        `engine-limits ${engine}: ${r.questions} questions, ${r.searches} searches; evidence visible stock ${r.stock.visible}/${r.stock.evidence_searches} ` +
          `(${JSON.stringify(r.settings.stock)}), shipped ${r.shipped.visible}/${r.shipped.evidence_searches} (${JSON.stringify(r.settings.shipped)}); ` +
          `gold episodes within the limits stock ${r.stock.episodes_fit}, shipped ${r.shipped.episodes_fit}; ` +
          `gold reward 1.0 in ${r.gold.ones}/${r.gold.n}, wrong answer max ${r.wrong.max}\n`,
      )
  }, 400_000)

  afterAll(async () => {
    if (s && s.proc.exitCode === null) await s.stop()
    if (tmp) rmSync(tmp, { recursive: true, force: true })
  })

  it.each(ENGINES)('%s: the shipped settings keep the evidence visible in ≥ 95 %% of the oracle\'s evidence searches', (engine) => {
    const r = reports.get(engine)!
    expect(r.questions).toBeGreaterThan(300)
    expect(r.shipped.evidence_searches).toBeGreaterThan(r.questions) // multi-hop questions: more than one per question
    expect(r.shipped.visible).toBeGreaterThanOrEqual(0.95 * r.shipped.evidence_searches)
    if (engine === 'asearcher') expect(r.shipped.found_in_results).toBe(r.shipped.evidence_searches)
  })

  it("verl's stock 256-character middle cut hides the evidence in most searches (the check can fail)", () => {
    const r = reports.get('verl')!
    expect(r.settings.stock.max_tool_response_length).toBe(256)
    expect(r.stock.visible).toBeLessThan(0.5 * r.stock.evidence_searches)
    expect(r.settings.shipped.max_tool_response_length).toBeGreaterThan(256)
  })

  it.each(ENGINES)("%s: the gold policy's episodes fit the shipped turn and token limits (Qwen tokens) in ≥ 95 %% of the questions", (engine) => {
    const r = reports.get(engine)!
    expect(r.shipped.episodes_fit).toBeGreaterThanOrEqual(0.95 * r.questions)
    // Stock limits: Search-R1's max_turns=2 and verl's 2 assistant turns leave most multi-hop questions out.
    if (engine !== 'asearcher') expect(r.stock.episodes_fit).toBeLessThan(0.5 * r.questions)
  })

  it.each(ENGINES)('%s: a scripted gold policy scores 1.0 on every question through the engine\'s reward; a wrong answer scores < 1', (engine) => {
    const r = reports.get(engine)!
    expect(r.gold.not_one).toEqual([])
    expect(r.gold.ones).toBe(r.questions)
    expect(r.wrong.n).toBe(r.questions)
    expect(r.wrong.max).toBeLessThan(1)
  })
})
