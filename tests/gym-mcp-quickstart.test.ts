// tests/gym-mcp-quickstart: gym/README.md's MCP quick start as written — its `mcpServers` JSON block is read from the
// README and exactly its command and arguments are started (only the world placeholder replaced by the run's tiny
// world; `searchgym` on PATH through the link the quick start makes) by the SDK's own stdio client, from a folder of
// its own as a desktop client would: the tools are listed and the oracle's episode is scored 1.0.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ORACLE_MAX_QUERIES_PER_PAGE, worldOracleKnowledge } from '../agent'
import { oraclePlan } from '../agent/oracle/oracle-plan'
import { openGymWorld } from '../gym'
import { openWorld, type Qa } from '../world'
import { sharedTinyWorld } from './helpers/shared-world'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PLACEHOLDER = '/ABSOLUTE/PATH/TO/worlds/tiny'

interface ServerEntry {
  command: string
  args: string[]
}

/** The quick start's config entry: the ```json block of gym/README.md's MCP section that holds "mcpServers". */
function quickStartEntry(): ServerEntry {
  const readme = readFileSync(join(ROOT, 'gym/README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## MCP server'), readme.indexOf('\n## ', readme.indexOf('## MCP server') + 1))
  const blocks = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]).filter((b) => b.includes('"mcpServers"'))
  expect(blocks).toHaveLength(1)
  const config = JSON.parse(blocks[0]) as { mcpServers: Record<string, ServerEntry> }
  expect(Object.keys(config.mcpServers)).toEqual(['searchgym'])
  return config.mcpServers.searchgym
}

interface ToolResult {
  content: { type: string; text?: string }[]
  structuredContent?: { reward: number; terminated: boolean; truncated: boolean; stopReason?: string; metrics: Record<string, number> }
}

const cleanup: (() => void)[] = []
afterAll(() => cleanup.forEach((f) => f()))

test('the README\'s client config entry runs as written: tools listed, the oracle\'s episode scores 1.0', async () => {
  const entry = quickStartEntry()
  const dir = (await sharedTinyWorld()).dir
  // Only the world placeholder is replaced, nothing else.
  expect(entry.args.filter((a) => a.includes(PLACEHOLDER))).toEqual([PLACEHOLDER])
  const args = entry.args.map((a) => (a === PLACEHOLDER ? dir : a))
  // The question the entry names (--split S --index N, in the env API's order: the world's QA list of that split).
  const split = args[args.indexOf('--split') + 1] as 'train' | 'bench'
  const index = Number(args[args.indexOf('--index') + 1])
  const w = openWorld(dir)
  cleanup.push(() => w.close())
  const gw = await openGymWorld(dir)
  const qa: Qa = gw.listQa(split)[index]
  await gw.close()
  const knowledge = worldOracleKnowledge(w)

  // `searchgym` on PATH as the quick start's step 1 puts it there (npm link's link: NAME -> bin/searchgym.mjs).
  const bin = mkdtempSync(join(tmpdir(), 'mcp-quickstart-bin-'))
  const home = mkdtempSync(join(tmpdir(), 'mcp-quickstart-client-'))
  cleanup.push(() => rmSync(bin, { recursive: true, force: true }), () => rmSync(home, { recursive: true, force: true }))
  symlinkSync(join(ROOT, 'bin/searchgym.mjs'), join(bin, 'searchgym'))
  const transport = new StdioClientTransport({
    command: entry.command,
    args,
    cwd: home,
    env: { ...(process.env as Record<string, string>), PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` },
    stderr: 'pipe',
  })
  const client = new Client({ name: 'quickstart-test', version: '0.0.0' })
  await client.connect(transport)
  try {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['access', 'answer', 'search'])
    const prompt = await client.getPrompt({ name: 'question' })
    expect(JSON.stringify(prompt.messages)).toContain(JSON.stringify(qa.question).slice(1, -1))

    const gen = oraclePlan(qa, knowledge, { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE })
    let r = gen.next('')
    let last: ToolResult | undefined
    for (let turn = 0; turn < 16 && !last; turn++) {
      if (r.done) {
        last = (await client.callTool({ name: 'answer', arguments: { answer: r.value } })) as ToolResult
        break
      }
      const res = (await client.callTool({ name: r.value.name, arguments: r.value.arguments })) as ToolResult
      expect(res.structuredContent?.terminated).toBe(false)
      expect(res.structuredContent?.truncated).toBe(false)
      r = gen.next(res.content.map((c) => c.text ?? '').join('\n'))
    }
    expect(last?.structuredContent).toMatchObject({ reward: 1, terminated: true, truncated: false, stopReason: 'answer' })
    expect(last!.structuredContent!.metrics.f1).toBe(1)
  } finally {
    await client.close()
  }
}, 120_000)
