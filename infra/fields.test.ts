// infra/fields + infra/field-args: a small table through every derivation — defaults, strict objects, the command line
// (flags, old aliases, --config, --set, precedence, one-line errors naming key and flag), help and the markdown table.
import { jest } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import yargs from 'yargs'
import { fieldArgs, fieldOptions, keysHelp, setLayer, tableFlags } from './field-args'
import { fieldDefaults, fieldsMarkdown, problemCheck, resolveFields, type FieldTable } from './fields'

const TABLE: FieldTable = [
  { key: 'epochs', type: 'int', default: 3, min: 1, max: 1000, help: 'passes over the data', flag: 'epochs' },
  { key: 'lr', type: 'number', default: 1e-3, gt: 0, max: 1, help: 'learning rate', aliases: ['learning-rate'] },
  { key: 'mode', type: 'enum', choices: ['open', 'read'], default: 'open', help: 'how the answer is given' },
  { key: 'full', type: 'bool', default: false, help: 'every weight', aliases: ['full'] },
  { key: 'turn', type: 'int', optional: true, min: 1, help: 'one turn alone', aliases: ['turn'] },
  { key: 'gym', type: 'json', default: {}, help: 'gym options' },
  { key: 'eval.hops', type: 'list', of: 'int', min: 1, max: 12, default: [1, 2], help: 'hop counts', aliases: ['eval-hops'] },
  { key: 'eval.worlds', type: 'list', optional: true, help: 'unseen worlds', aliases: ['eval-world'] },
]

const root = mkdtempSync(join(tmpdir(), 'sg-fields-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

test('defaults are the nested object the keys spell; optional fields are left out', () => {
  expect(fieldDefaults(TABLE)).toEqual({ epochs: 3, lr: 1e-3, mode: 'open', full: false, gym: {}, eval: { hops: [1, 2] } })
})

test('an object over the defaults: unknown keys, wrong types and bounds refused by their dotted key', () => {
  expect(resolveFields(TABLE, { epochs: 2, eval: { worlds: ['a'] } }, 'start.sft')).toMatchObject({ epochs: 2, eval: { hops: [1, 2], worlds: ['a'] } })
  expect(() => resolveFields(TABLE, { epoch: 2 }, 'start.sft')).toThrow(/unknown config key 'start\.sft\.epoch'/)
  expect(() => resolveFields(TABLE, { eval: { hop: [1] } }, 'x')).toThrow(/unknown config key 'x\.eval\.hop'/)
  expect(() => resolveFields(TABLE, { epochs: 1.5 }, 'x')).toThrow(/x\.epochs must be an integer in \[1, 1000\], got 1\.5/)
  expect(() => resolveFields(TABLE, { mode: 'shut' }, 'x')).toThrow(/x\.mode must be one of open, read, got "shut"/)
  expect(() => resolveFields(TABLE, { eval: { hops: [0] } }, 'x')).toThrow(/x\.eval\.hops must be a list of integers in \[1, 12\], got 0/)
  expect(() => resolveFields(TABLE, { __proto__: 1 } as unknown, 'x')).not.toThrow() // an own __proto__ key is not created by a literal
  expect(() => resolveFields(TABLE, JSON.parse('{"__proto__": {}}'), 'x')).toThrow(/unknown config key 'x\.__proto__'/)
  // A base (an experiment's own defaults) under the given keys.
  expect(resolveFields(TABLE, { lr: 0.5 }, 'x', { epochs: 2, mode: 'read' })).toMatchObject({ epochs: 2, lr: 0.5, mode: 'read' })
})

describe('the command line', () => {
  let err: jest.SpiedFunction<typeof process.stderr.write>
  beforeEach(() => (err = jest.spyOn(process.stderr, 'write').mockImplementation(() => true)))
  afterEach(() => err.mockRestore())

  test('defaults < file < flags < --set, and how each key was given names it in errors', () => {
    const file = join(root, 'c.json')
    writeFileSync(file, JSON.stringify({ epochs: 5, mode: 'read', eval: { hops: [2] } }))
    const r = fieldArgs<{ epochs: number; lr: number; mode: string; eval: { hops: number[] } }>(TABLE, { config: file, epochs: '7', set: ['lr=0.01'] })
    expect(r.config).toMatchObject({ epochs: 7, lr: 0.01, mode: 'read', eval: { hops: [2] } })
    expect(r.name('epochs')).toBe('epochs (--epochs)')
    expect(r.name('lr')).toBe('lr (--set)')
    expect(r.name('mode')).toBe(`${file}: mode`)
    expect(r.name('full')).toBe('full')
    expect([...r.given].sort()).toEqual(['epochs', 'eval.hops', 'lr', 'mode'])
  })

  test('wrong types, bounds, unknown keys and repeats: one line naming the key and the flag', () => {
    expect(() => fieldArgs(TABLE, { epochs: 'x' })).toThrow(/^epochs \(--epochs\) must be an integer in \[1, 1000\], got NaN$/)
    expect(() => fieldArgs(TABLE, { epochs: '0' })).toThrow(/epochs \(--epochs\) must be an integer/)
    expect(() => fieldArgs(TABLE, { epochs: ['1', '2'] })).toThrow(/--epochs was given 2 times; give it once/)
    expect(() => fieldArgs(TABLE, { set: ['epoch=2'] })).toThrow(/--set epoch=2: unknown config key 'epoch' \(did you mean epochs\?\)/)
    expect(() => fieldArgs(TABLE, { set: ['mode=shut'] })).toThrow(/mode \(--set\) must be one of open, read/)
    expect(() => fieldArgs(TABLE, { set: ['epochs'] })).toThrow(/--set epochs: write KEY=VALUE/)
    expect(() => fieldArgs(TABLE, { epochs: '2', set: ['epochs=3'] })).toThrow(/epochs was given twice: --epochs and --set epochs=…/)
    expect(() => fieldArgs(TABLE, { set: ['full=yes'] })).toThrow(/full \(--set\) must be true or false, got 'yes'/)
    expect(() => fieldArgs(TABLE, { set: ['gym={'] })).toThrow(/gym \(--set\) is not valid JSON/)
    const bad = join(root, 'bad.json')
    writeFileSync(bad, JSON.stringify({ eval: { every: 2 } }))
    expect(() => fieldArgs(TABLE, { config: bad })).toThrow(new RegExp(`unknown config key '${bad}: eval\\.every'`))
  })

  test('old flags work, print their new spelling once, and lists take repeats and commas', () => {
    const r = fieldArgs<Record<string, unknown>>(TABLE, { 'learning-rate': '0.5', turn: '2', full: true, 'eval-hops': '1,3', 'eval-world': ['a', 'b'] })
    expect(r.config).toMatchObject({ lr: 0.5, turn: 2, full: true, eval: { hops: [1, 3], worlds: ['a', 'b'] } })
    const lines = err.mock.calls.map((c) => String(c[0]))
    expect(lines).toContain('searchgym: note: --learning-rate is deprecated; write --set lr=0.5\n')
    expect(lines).toContain('searchgym: note: --eval-world is deprecated; write --set eval.worlds=a,b\n')
    fieldArgs(TABLE, { 'learning-rate': '0.5' })
    expect(err.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('--learning-rate')).length).toBe(1)
    expect(() => fieldArgs(TABLE, { turn: '0' })).toThrow(/^turn \(--turn\) must be an integer ≥ 1, got 0$/)
  })
})

test('on yargs: visible flags only for fields with one, old ones hidden, the keys in the help', async () => {
  expect(tableFlags(TABLE)).toEqual({ visible: ['epochs'], aliases: ['learning-rate', 'full', 'turn', 'eval-hops', 'eval-world'] })
  let help = ''
  await fieldOptions(yargs([]), TABLE).strict().help().wrap(null).parseAsync(['--help'], {}, (_e: unknown, _a: unknown, out: string) => {
    help = out
  })
  expect(help).toMatch(/--epochs\s+passes over the data \(key epochs; integer in \[1, 1000\]\) \[default: 3\]/)
  expect(help).not.toMatch(/--learning-rate/)
  expect(help).toContain(keysHelp(TABLE))
  const argv = (await fieldOptions(yargs([]), TABLE).strict().parseAsync(['--learning-rate', '0.2', '--full', '--set', 'mode=read'])) as Record<string, unknown>
  expect(argv.full).toBe(true)
  expect(argv.epochs).toBeUndefined() // no yargs default: an unset flag leaves the file's value alone
})

test('the markdown option table: one row per key', () => {
  const md = fieldsMarkdown(TABLE)
  expect(md.split('\n').filter((l) => l.startsWith('| `')).length).toBe(TABLE.length)
  expect(md).toContain('| `epochs` | `--epochs` | integer in [1, 1000] | `3` | passes over the data |')
  expect(md).toContain('| `eval.worlds` | ~~--eval-world~~ | list of strings | — | unseen worlds |')
})

test('setLayer: --set over a config without a table, each value typed by the key it replaces', () => {
  const base = { seed: 0, write: { model: '', concurrency: 4, questions: true, price: { inputPerMillion: null } }, search: { engines: ['a'] } }
  expect(setLayer(base, ['write.model=m', 'write.concurrency=8', 'write.questions=false', 'write.price.inputPerMillion=0.5', 'search.engines=["b"]'])).toEqual({
    write: { model: 'm', concurrency: 8, questions: false, price: { inputPerMillion: 0.5 } },
    search: { engines: ['b'] },
  })
  expect(() => setLayer(base, ['write.modle=m'])).toThrow(/unknown config key 'write\.modle' \(did you mean write\.model\?\)/)
  expect(() => setLayer(base, ['write.concurrency=x'])).toThrow(/^write\.concurrency \(--set\) must be a number, got NaN$/)
  expect(() => setLayer(base, ['seed=1', 'seed=2'])).toThrow(/seed was set twice/)
  expect(() => setLayer(base, ['search.engines=[b'])).toThrow(/search\.engines \(--set\) is not valid JSON/)
})

test('problemCheck: a function saying what is wrong with a value becomes a field check, named as given', () => {
  const t: FieldTable = [{ key: 'host', type: 'string', default: 'h', help: 'bind host', check: problemCheck((v: string) => (v.trim() === '' ? 'must be a host name' : undefined)) }]
  expect(resolveFields(t, { host: 'a' })).toEqual({ host: 'a' })
  expect(() => resolveFields(t, { host: ' ' }, 'serve')).toThrow(/^serve\.host must be a host name$/)
})
