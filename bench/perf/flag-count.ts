// bench/perf/flag-count: the flags of every leaf verb of the `searchgym` CLI (issue 61's front-door measure) — each
// command's real builder run against a recorder that counts the visible options it declares (hidden ones — old flag
// aliases kept for one release — apart; positionals and --help/--version not counted), beside the counts at eae8d52
// (before the field tables). It reads cli.ts's GROUPS (the one place that lists the packages' commands), so it sits
// above every package; it knows no command by name except the before column.
//   node bin/run-ts.mjs bench/perf/flag-count.ts [--json]
import { GROUPS, type CliDeps } from '../../cli'
import type { Command } from '../../infra/cli-util'

/** Visible flags per leaf verb at eae8d52, counted by this script on that commit: 25 leaf verbs, 243 flags, 142
 *  distinct names. The issue counted 24 verbs and 237 flags (141 names) by another reading; its six largest agree:
 *  bench run 33, train sft 33, gym serve 19, world build 17, model pretrain 17, train 17. */
export const BEFORE: Record<string, number> = {
  'bench compare': 4,
  'bench funnel': 14,
  'bench report': 1,
  'bench run': 33,
  'experiment report': 0,
  'experiment run': 3,
  'gym check': 12,
  'gym mcp': 12,
  'gym serve': 19,
  'model init': 14,
  'model pretrain': 17,
  'model serve': 12,
  score: 2,
  train: 17,
  'train budgets': 4,
  'train reader': 6,
  'train report': 0,
  'train sft': 33,
  view: 5,
  'world build': 17,
  'world export': 5,
  'world qa': 2,
  'world show': 2,
  'world stats': 3,
  'world verify': 6,
}

export interface VerbFlags {
  verb: string
  visible: string[]
  hidden: string[]
}

/** Every leaf verb under `cmd` with the options its builder declares (recorded, nothing parsed or run). */
export function leafVerbs(cmd: Command, prefix = ''): VerbFlags[] {
  const word = String(cmd.command).split(' ')[0]
  const verb = word === '$0' || word === '*' ? prefix : `${prefix} ${word}`.trim()
  const visible: string[] = []
  const hidden: string[] = []
  const subs: Command[] = []
  const recorder: unknown = new Proxy(
    {},
    {
      get: (_t, prop) => (...args: unknown[]) => {
        if (prop === 'option' || prop === 'options') {
          const opts = typeof args[0] === 'string' ? { [args[0]]: args[1] } : (args[0] as Record<string, unknown>)
          for (const [name, o] of Object.entries(opts)) ((o as { hidden?: boolean } | undefined)?.hidden ? hidden : visible).push(name)
        } else if (prop === 'command') {
          const c = args[0]
          if (Array.isArray(c)) subs.push(...(c as Command[]))
          else if (typeof c === 'object' && c !== null) subs.push(c as Command)
          else subs.push({ command: c as string, describe: args[1] as string, builder: args[2] as Command['builder'], handler: () => undefined })
        }
        return recorder
      },
    },
  )
  const b = cmd.builder
  if (typeof b === 'function') b(recorder as never)
  else if (b && typeof b === 'object') for (const [name, o] of Object.entries(b)) ((o as { hidden?: boolean }).hidden ? hidden : visible).push(name)
  const own = subs.flatMap((s) => leafVerbs(s, verb))
  // A group with a default sub-command ($0: `train`) is a verb too; a group without one is not.
  return subs.length > 0 ? own : [{ verb, visible: [...new Set(visible)], hidden: [...new Set(hidden)] }]
}

export async function flagCounts(deps: CliDeps = {}): Promise<VerbFlags[]> {
  const out: VerbFlags[] = []
  for (const g of GROUPS) out.push(...leafVerbs(await g.load(deps)))
  return out.sort((a, b) => a.verb.localeCompare(b.verb))
}

if (process.argv[1]?.endsWith('flag-count.ts')) {
  const verbs = await flagCounts()
  if (process.argv.includes('--json')) process.stdout.write(JSON.stringify(verbs.map((v) => ({ verb: v.verb, before: BEFORE[v.verb] ?? null, after: v.visible.length, old: v.hidden.length })), null, 1) + '\n')
  else {
    const w = Math.max(...verbs.map((v) => v.verb.length))
    process.stdout.write(`${'verb'.padEnd(w)}  before  after  (old aliases)\n`)
    for (const v of verbs) process.stdout.write(`${v.verb.padEnd(w)}  ${String(BEFORE[v.verb] ?? '?').padStart(6)}  ${String(v.visible.length).padStart(5)}  ${v.hidden.length ? `(${v.hidden.length})` : ''}\n`)
    const before = verbs.reduce((a, v) => a + (BEFORE[v.verb] ?? 0), 0)
    const after = verbs.reduce((a, v) => a + v.visible.length, 0)
    const distinct = new Set(verbs.flatMap((v) => v.visible)).size
    const over = verbs.filter((v) => v.visible.length > 15).map((v) => `${v.verb} ${v.visible.length}`)
    process.stdout.write(`${verbs.length} leaf verbs: ${before} flags before → ${after} after (${distinct} distinct names); over 15: ${over.join(', ') || 'none'}\n`)
  }
}
