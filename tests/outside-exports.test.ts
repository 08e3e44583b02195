// tests/outside-exports: `searchgym world export --format search-r1 | verl | asearcher` on the run's real tiny world, read
// back by hyparquet (a reader separate from the writer, hyparquet-writer) and JSON.parse — every field each trainer
// reads, a data_source each accepts, the world's identity kept, the Search-R1 prompt's single `<answer> … </answer>`
// example, and the tool config / launch snippet next to the data.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parquetReadObjects } from 'hyparquet'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld, type SharedWorld } from './helpers/shared-world'

type J = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

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

describe('world export for outside trainers', () => {
  let world: SharedWorld
  let out: string
  const exported = async (format: string) => {
    const dir = join(out, format)
    const r = await runCli(['world', 'export', world.dir, '--format', format, '--out', dir])
    expect(r.stderr.trim()).toBe('')
    expect(r.code).toBe(0)
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
    expect(readFileSync(join(dir, 'launch-search-r1.sh'), 'utf8')).toMatch(/retriever\.url="http:\/\/127\.0\.0\.1:8000\/retrieve"/)
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
      expect(ck).toEqual({ ground_truth: row.reward_model.ground_truth, question: row.extra_info.question, data_source: row.data_source })
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
})
