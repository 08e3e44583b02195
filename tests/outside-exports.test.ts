// tests/outside-exports: `searchgym world export --format search-r1 | verl | asearcher` on the run's real tiny world, read
// back by hyparquet (a reader separate from the writer, hyparquet-writer) and JSON.parse — every field each trainer
// reads, a data_source each accepts, the world's identity kept, the Search-R1 prompt's single `<answer> … </answer>`
// example, and the tool config / launch snippet next to the data; launch batch sizes against the row counts; the staged
// (--curriculum) export; and full episodes through the shipped verl gym tool (tests/replicas/verl_gym_episodes.py).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parquetReadObjects } from 'hyparquet'
import { fileURLToPath } from 'node:url'
import { engineProfile } from '../world'
import { runCli } from './helpers/cli-process'
import { startGymServe } from './helpers/outside-clients'
import { sharedTinyWorld, type SharedWorld } from './helpers/shared-world'

type J = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
const REPLICA = fileURLToPath(new URL('./replicas/verl_gym_episodes.py', import.meta.url))

// The trainers' own accepted names (Search-R1 main_ppo's list; verl's default reward's searchR1_ prefixed list).
const SEARCH_R1_SOURCES = ['nq', 'triviaqa', 'popqa', 'hotpotqa', '2wikimultihopqa', 'musique', 'bamboogle']
const VERL_SOURCES = SEARCH_R1_SOURCES.map((s) => `searchR1_${s}`)

const readParquet = async (path: string): Promise<J[]> => {
  const b = readFileSync(path)
  return (await parquetReadObjects({ file: b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) })) as J[]
}
const readJsonl = (path: string): J[] => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as J)

/** Search-R1's answer extraction: the last `<answer>` match of prompt + response, none unless there are two or more. */
function searchR1Extract(text: string): string | null {
  const m = [...text.matchAll(/<answer>(.*?)<\/answer>/gs)]
  return m.length <= 1 ? null : m[m.length - 1][1].trim()
}

/** `key=value` flags of a launch script (one a line, as in its LIMITS array), as numbers. */
const flagsOf = (script: string): Record<string, number> =>
  Object.fromEntries([...script.matchAll(/^\s+([\w.]+)=(\d+)(?: \\)?$/gm)].map((m) => [m[1], Number(m[2])]))

describe('world export for outside trainers', () => {
  let world: SharedWorld
  let out: string
  const done = new Map<string, string>()
  const exported = async (format: string) => {
    if (done.has(format)) return done.get(format)!
    const dir = join(out, format)
    const r = await runCli(['world', 'export', world.dir, '--format', format, '--out', dir])
    expect(r.stderr.trim()).toBe('')
    expect(r.code).toBe(0)
    done.set(format, dir)
    return dir
  }
  beforeAll(async () => {
    world = await sharedTinyWorld()
    out = mkdtempSync(join(tmpdir(), 'sg-outside-export-'))
  })
  afterAll(() => rmSync(out, { recursive: true, force: true }))

  it('search-r1: rows Search-R1 trains on, an accepted data_source, exactly one <answer> example in the prompt', async () => {
    const dir = await exported('search-r1')
    for (const [file, split] of [['train.parquet', 'train'], ['test.parquet', 'test']] as const) {
      const rows = await readParquet(join(dir, file))
      expect(rows.length).toBeGreaterThan(split === 'test' ? 20 : 300)
      rows.forEach((row, i) => {
        expect(SEARCH_R1_SOURCES).toContain(row.data_source)
        expect(row.ability).toBe('fact-reasoning')
        expect(row.prompt).toHaveLength(1)
        expect(row.prompt[0].role).toBe('user')
        expect(row.prompt[0].content).toContain(`Question: ${row.question}`)
        expect([...row.prompt[0].content.matchAll(/<answer>(.*?)<\/answer>/gs)]).toHaveLength(1)
        expect(row.reward_model.style).toBe('rule')
        expect(row.reward_model.ground_truth.target.length).toBeGreaterThan(0)
        expect(row.extra_info).toMatchObject({ split, qa_id: row.id, world: 'tiny', world_hash: world.hash })
        expect(Number(row.extra_info.index)).toBe(i)
      })
      // Search-R1's reward sees the prompt's example plus the response's answer: the response's is the one scored.
      const gold = rows[0].reward_model.ground_truth.target[0] as string
      expect(searchR1Extract(rows[0].prompt[0].content + `<think>...</think><answer> ${gold} </answer>`)).toBe(gold)
      expect(searchR1Extract(rows[0].prompt[0].content + 'no answer given')).toBeNull()
    }
    expect(readFileSync(join(dir, 'launch-search-r1.sh'), 'utf8')).toMatch(/retriever\.url="http:\/\/127\.0\.0\.1:\$PORT\/retrieve"/)
  })

  it('verl: tool_agent rows with tools_kwargs.search.create_kwargs, an accepted data_source, a hermes tool config', async () => {
    const dir = await exported('verl')
    const rows = await readParquet(join(dir, 'train.parquet'))
    expect(rows.length).toBeGreaterThan(300)
    for (const row of rows) {
      expect(VERL_SOURCES).toContain(row.data_source)
      expect(row.agent_name).toBe('tool_agent')
      expect(row.prompt.map((m: J) => m.role)).toEqual(['system', 'user'])
      expect(row.reward_model.ground_truth.target.length).toBeGreaterThan(0)
      const ck = row.extra_info.tools_kwargs.search.create_kwargs
      expect(ck).toEqual({ ground_truth: row.reward_model.ground_truth, question: row.extra_info.question, data_source: row.data_source, qa_id: row.extra_info.qa_id })
      expect(row.prompt[1].content).toContain(ck.question)
      expect(row.extra_info).toMatchObject({ need_tools_kwargs: true, split: 'train', world: 'tiny', world_hash: world.hash })
    }
    expect((await readParquet(join(dir, 'test.parquet'))).every((r) => r.extra_info.split === 'test')).toBe(true)
    const yaml = readFileSync(join(dir, 'search_tool_config.yaml'), 'utf8')
    expect(yaml).toMatch(/class_name: verl\.tools\.search_tool\.SearchTool/)
    expect(yaml).toMatch(/retrieval_service_url: http:\/\/127\.0\.0\.1:8000\/retrieve/)
    expect(yaml).toMatch(/name: search\n/)
    expect(readFileSync(join(dir, 'launch-verl.sh'), 'utf8')).toMatch(/multi_turn\.format=hermes/)
  })

  it('asearcher: JSONL {id, question, answer} with ids free of @, and a launch snippet with the address file', async () => {
    const dir = await exported('asearcher')
    const rows = readJsonl(join(dir, 'train.jsonl'))
    expect(rows.length).toBeGreaterThan(300)
    const ids = new Set<string>()
    for (const row of rows) {
      expect(typeof row.id).toBe('string')
      expect(row.id).not.toContain('@')
      ids.add(row.id)
      expect(typeof row.question).toBe('string')
      expect(Array.isArray(row.answer) && row.answer.length > 0 && row.answer.every((a: unknown) => typeof a === 'string')).toBe(true)
      expect(row).toMatchObject({ world: 'tiny', world_hash: world.hash })
    }
    expect(ids.size).toBe(rows.length)
    expect(readJsonl(join(dir, 'test.jsonl')).length).toBeGreaterThan(20)
    const launch = join(dir, 'launch-asearcher.sh')
    expect(readFileSync(launch, 'utf8')).toMatch(/--address-file "\$RAG_SERVER_ADDR_DIR"/)
    expect(statSync(launch).mode & 0o111).not.toBe(0)
  })

  it('each launch script: batch sizes the trainer accepts for the exported rows, and the shipped limits of engine-profile.json', async () => {
    for (const format of ['search-r1', 'verl', 'asearcher']) {
      const dir = await exported(format)
      const prof = JSON.parse(readFileSync(join(dir, 'engine-profile.json'), 'utf8')) as J
      // The data files' extension is the profile's (world/qa/engines); their rows are read by a reader of that format.
      const ext = engineProfile(format).dataExt
      const rowsOf = async (split: string) => (ext === 'jsonl' ? readJsonl(join(dir, `${split}.jsonl`)) : await readParquet(join(dir, `${split}.${ext}`))).length
      const trainRows = await rowsOf('train')
      const testRows = await rowsOf('test')
      expect(prof.rows).toEqual({ train: trainRows, test: testRows })
      // >= 95 % solvable under the shipped limits, or only the solvable ones exported (and counted).
      expect(prof.shipped.fraction >= 0.95 || prof.filtered === prof.shipped.total - prof.shipped.solved).toBe(true)
      expect(prof.stock.total).toBe(trainRows + testRows + prof.filtered)
      const f = flagsOf(readFileSync(join(dir, `launch-${format}.sh`), 'utf8'))
      const L = prof.shipped.limits
      if (format === 'asearcher') {
        // AReaL's dataloader drops the last partial batch: at least one full one (ASearcher/configs/asearcher_local.yaml:108).
        expect(f['train_dataset.batch_size']).toBeLessThanOrEqual(trainRows)
        expect(f).toMatchObject({ max_turns: 2 * L.toolCalls + 2, topk: L.topk, 'actor.mb_spec.max_tokens_per_mb': L.context + 1024 })
        continue
      }
      // Search-R1 a14dc3a verl/trainer/ppo/ray_trainer.py:390-418 and verl b178a3c ray_trainer.py:346-367: training
      // drop_last=True (>= 1 batch asserted); Search-R1's validation drop_last=True too (no row may be left out).
      const tb = f['data.train_batch_size']
      const vb = f['data.val_batch_size']
      expect(Math.floor(trainRows / tb)).toBeGreaterThanOrEqual(1)
      expect(tb % f['actor_rollout_ref.actor.ppo_mini_batch_size']).toBe(0)
      expect(Math.floor(testRows / vb)).toBeGreaterThanOrEqual(1)
      expect(testRows % vb).toBe(0)
      if (format === 'search-r1') {
        expect(f).toMatchObject({ max_turns: L.toolCalls, 'data.max_obs_length': L.obs, 'data.max_prompt_length': L.context, 'retriever.topk': L.topk })
        // train_grpo.sh:27: max_prompt_length >= max_start_length + max_response_length * (max_turns - 1) + max_obs_length * max_turns
        expect(L.context).toBeGreaterThanOrEqual(2048 + 500 * (L.toolCalls - 1) + L.obs * L.toolCalls)
      } else {
        expect(f).toMatchObject({
          'actor_rollout_ref.rollout.multi_turn.max_assistant_turns': L.toolCalls + 1,
          'actor_rollout_ref.rollout.multi_turn.max_tool_response_length': L.obs,
          'data.max_response_length': L.context,
        })
        expect(readFileSync(join(dir, 'search_tool_config.yaml'), 'utf8')).toContain(`topk: ${L.topk}\n`)
      }
    }
  })

  it('--curriculum two-stage: stage files partition the training pool by the preset\'s filters; the phases chain with a resume', async () => {
    const dir = join(out, 'asearcher-two-stage')
    const r = await runCli(['world', 'export', world.dir, '--format', 'asearcher', '--curriculum', 'two-stage', '--stage1-steps', '40', '--out', dir])
    expect(r.code).toBe(0)
    const pool = readJsonl(join(dir, 'train.jsonl'))
    const s1 = readJsonl(join(dir, 'stage1-stage1.jsonl'))
    const s2 = readJsonl(join(dir, 'stage2-stage2.jsonl'))
    // curriculum/stages.ts two-stage: stage 1 = simple, 1-6 hops; stage 2 = every type, 1-12 hops.
    expect(s1.length).toBeGreaterThan(0)
    expect(s2.length).toBeGreaterThan(0)
    for (const q of s1) expect(q.type === 'simple' && q.hops >= 1 && q.hops <= 6).toBe(true)
    for (const q of s2) expect(!(q.type === 'simple' && q.hops <= 6) && q.hops <= 12).toBe(true)
    const ids = [...s1, ...s2].map((q) => q.id)
    expect(new Set(ids).size).toBe(ids.length) // disjoint
    expect(ids.sort()).toEqual(pool.map((q) => q.id).sort()) // and together the whole pool
    expect(readJsonl(join(dir, 'phase2.jsonl')).map((q) => q.id).sort()).toEqual(pool.map((q) => q.id).sort())
    // ASearcher's loop reads epochs only (asearcher.py:390-392): phase 1's 40 steps as epochs of its per-rank batches;
    // phase 2 starts from the folder phase 1's saver wrote for its last step (the whole chain: tests/outside-launch).
    const launch = readFileSync(join(dir, 'launch-asearcher-two-stage.sh'), 'utf8')
    expect(launch).toMatch(/FROM="\$MODEL"\n[\s\S]*trial_name=phase1 \\\n    actor\.path="\$FROM" train_dataset\.path="\$DATA\/phase1\.jsonl" total_train_epochs=\d+ /)
    expect(launch).toMatch(/SAVES1="\$CKPT\/areal\/checkpoints\/\*\/searchgym\/phase1\/default"\nLAST1=epoch\d+epochstep\d+globalstep\d+\n/)
    expect(launch).toMatch(/PREV_MODEL=\$DONE1\n[\s\S]*FROM="\$PREV_MODEL"\n[\s\S]*trial_name=phase2 \\\n    actor\.path="\$FROM" train_dataset\.path="\$DATA\/phase2\.jsonl" total_train_epochs=\d+ /)
    expect(launch).not.toMatch(/total_train_steps=|STAGE1_MODEL/)
    const bad = await runCli(['world', 'export', world.dir, '--format', 'verl', '--curriculum', 'adaptive', '--out', join(out, 'x')])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr.trim()).toMatch(/^searchgym: error: 'adaptive' samples adaptively/)
  })

  it('verl gym tool: full episodes (search, access, answer) through the exported tool module give the F1 searchgym score gives', async () => {
    const dir = await exported('verl')
    // One implementation: the exported module is the Python package's python/src/searchgym/verl_tool.py, byte for byte.
    expect(readFileSync(join(dir, 'searchgym_verl_tool.py'), 'utf8')).toBe(readFileSync(fileURLToPath(new URL('../python/src/searchgym/verl_tool.py', import.meta.url)), 'utf8'))
    const rows = (await readParquet(join(dir, 'train.parquet'))).slice(0, 4)
    // Per question: the gold answer, a wrong one, and a partial one (its first word): F1 1, 0 and in between.
    const eps = rows.flatMap((r) => {
      const gold = r.reward_model.ground_truth.target[0] as string
      const ck = r.extra_info.tools_kwargs.search.create_kwargs
      return [gold, 'Nowhere At All', gold.split(' ')[0]].map((answer) => ({ qa_id: ck.qa_id, question: ck.question, answer, answers: r.reward_model.ground_truth.target }))
    })
    const s = await startGymServe(world.dir)
    try {
      const { execFileSync } = await import('node:child_process')
      const outLines = execFileSync('python3', [REPLICA, join(dir, 'searchgym_verl_tool.py'), s.url, JSON.stringify(eps)], { encoding: 'utf8', timeout: 120_000 }).trim().split('\n')
      const got = outLines.map((l) => JSON.parse(l) as J)
      expect(got.pop()).toEqual({ open_envs: 0 }) // every trajectory's env closed by its answer
      const scoreIn = join(out, 'verl-answers.jsonl')
      writeFileSync(scoreIn, eps.map((e) => JSON.stringify({ prediction: e.answer, answers: e.answers })).join('\n') + '\n')
      const scored = await runCli(['score', '--in', scoreIn])
      expect(scored.code).toBe(0)
      const want = scored.stdout.trim().split('\n').map((l) => (JSON.parse(l) as J).f1 as number)
      expect(got.map((g) => g.f1)).toEqual(want)
      expect(got.map((g) => g.compute_score)).toEqual(want)
      expect(want.filter((f) => f === 1).length).toBeGreaterThanOrEqual(rows.length) // gold (and a one-word gold's "first word")
      expect(want.filter((f) => f === 0).length).toBeGreaterThanOrEqual(rows.length)
      for (const g of got) {
        expect(g.search_urls).toBeGreaterThan(0)
        expect(g.page_starts.length).toBeGreaterThan(0)
      }
    } finally {
      await s.stop()
    }
  })
})
