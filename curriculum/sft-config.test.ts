// curriculum/sft-config: the SFT defaults are the old `train sft` flags' defaults; a config file, an experiment block
// and a command line are refused by the keys they spell (an experiment user is never told about a flag).
import { jest } from '@jest/globals'
import { fieldArgs, tableFlags } from '../infra/field-args'
import { fieldDefaults, fieldsMarkdown } from '../infra/fields'
import { checkSftConfig, parseSftMix, resolveSftConfig, SFT_FIELDS, type SftConfig } from './sft-config'

test('the defaults are those of the 33 flags they replace', () => {
  expect(fieldDefaults(SFT_FIELDS)).toEqual({
    questions: 0, epochs: 3, batch: 16, lr: 1e-3, seed: 0, heldOut: 64, loraRank: 32, loraEmbed: false, backend: 'auto', protocol: 'hermes',
    maxHops: 0, oraclePages: 'needed', oracleAnswer: 'open', firstTurns: 0, answerOnly: false, full: false, spread: false, shortFirst: false,
    eval: { questions: 100, hops: [1, 2] },
  })
  // Every old flag is an alias of exactly one key; only backend stays a visible flag.
  const { visible, aliases } = tableFlags(SFT_FIELDS)
  expect(visible).toEqual(['backend'])
  expect(new Set(aliases).size).toBe(aliases.length)
  expect(aliases.length + visible.length).toBe(28)
})

test('an experiment block is refused by its own keys, the cross-field checks included', () => {
  const at = 'experiment.start.phases[0]'
  expect(() => resolveSftConfig({ turn: 1, answerOnly: true }, at)).toThrow(`${at}.turn trains one turn alone: it excludes ${at}.answerOnly and ${at}.answerWeight`)
  expect(() => resolveSftConfig({ batchSize: 2 }, at)).toThrow(`unknown config key '${at}.batchSize'`)
  expect(() => resolveSftConfig({ full: true, initAdapter: 'a' }, at)).toThrow(`${at}.full trains the model's own weights: it takes no ${at}.initAdapter`)
  expect(() => resolveSftConfig({ gym: { protocol: 'hermes' } }, at)).toThrow(`${at}.gym may not set protocol: use ${at}.protocol`)
  expect(() => resolveSftConfig({ gym: { topK: 0 } }, at)).toThrow(/topK must be an integer in \[1, 100\]/)
  expect(() => resolveSftConfig({ mix: { demo: 1, copy: 2 } }, at)).toThrow(`${at}.mix: 'copy' is not a kind`)
  expect(resolveSftConfig({ mix: { demo: 1 }, eval: { every: 5 } }, at)).toMatchObject({ mix: { demo: 1 }, eval: { every: 5, hops: [1, 2] } })
  // An experiment's own defaults under the given keys.
  expect(resolveSftConfig({ lr: 0.01 }, at, { epochs: 2, loraRank: 64 })).toMatchObject({ lr: 0.01, epochs: 2, loraRank: 64, batch: 16 })
})

test('the command line: old flags and --set give the same config, errors name the key and how it was given', () => {
  const err = jest.spyOn(process.stderr, 'write').mockImplementation(() => true)
  try {
    const old = fieldArgs<SftConfig>(SFT_FIELDS, { epochs: '2', batch: '2', 'held-out': '0', 'lora-embed': true, mix: 'demo=1,read=2', 'eval-world': ['a', 'b'], 'eval-hops': '1' }).config
    const now = fieldArgs<SftConfig>(SFT_FIELDS, { set: ['epochs=2', 'batch=2', 'heldOut=0', 'loraEmbed=true', 'mix=demo=1,read=2', 'eval.worlds=a,b', 'eval.hops=1'] }).config
    expect(now).toEqual(old)
    expect(old).toMatchObject({ epochs: 2, batch: 2, heldOut: 0, loraEmbed: true, mix: { demo: 1, read: 2 }, eval: { worlds: ['a', 'b'], hops: [1], questions: 100 } })
    const r = fieldArgs<SftConfig>(SFT_FIELDS, { turn: '1', set: ['answerOnly=true'] })
    expect(() => checkSftConfig(r.config, r.name)).toThrow('turn (--turn) trains one turn alone: it excludes answerOnly (--set) and answerWeight')
    expect(() => fieldArgs(SFT_FIELDS, { set: ['mix=demo=1,demo=2'] })).toThrow('mix (--set) names demo twice; give each kind once')
  } finally {
    err.mockRestore()
  }
})

test('mix text and the docs table', () => {
  expect(parseSftMix('demo=1, answer=2.5,read')).toEqual({ demo: 1, answer: 2.5, read: 1 })
  expect(fieldsMarkdown(SFT_FIELDS)).toContain('| `eval.every` | ~~--eval-every~~ | integer ≥ 1 | — |')
})
