// world/qa/engines/profile.test: the engines' stock limits as read from their code, overrides (config keys) and their bounds,
// and batch sizes that never leave zero training batches nor drop a validation row.
import { resolveFields } from '../../../infra/fields'
import { batchSizes, ENGINE_LIMIT_FIELDS, limitsWith, validationBatch } from './profile'
import { engineProfile, engineProfiles } from './registry'

describe('engine profiles', () => {
  it('hold the stock limits read from each engine, each with its source', () => {
    expect(engineProfile('search-r1').stock).toEqual({ toolCalls: 2, topk: 3, obs: 500, docChars: 0, context: 4096, access: false })
    expect(engineProfile('verl').stock).toMatchObject({ toolCalls: 1, obs: 256, topk: 3 })
    expect(engineProfile('asearcher').stock).toMatchObject({ toolCalls: 15, topk: 5, docChars: 5000, context: 6976 })
    for (const p of engineProfiles()) for (const k of Object.keys(p.stock)) expect(p.sources[k as keyof typeof p.sources]).toMatch(/\S/)
  })

  it('overrides replace the stock limits they set; the keys are bounded by ENGINE_LIMIT_FIELDS', () => {
    expect(limitsWith(engineProfile('verl').stock, { toolCalls: 8, obs: 4096, access: true, topk: undefined })).toEqual({ ...engineProfile('verl').stock, toolCalls: 8, obs: 4096, access: true })
    expect(() => resolveFields(ENGINE_LIMIT_FIELDS, { turns: 3 }, 'x')).toThrow(/unknown config key 'x\.turns' \(known keys: toolCalls, topk/)
    expect(() => resolveFields(ENGINE_LIMIT_FIELDS, { obs: -1 }, 'x')).toThrow(/x\.obs must be an integer in \[0, 10000000\]/)
    expect(() => resolveFields(ENGINE_LIMIT_FIELDS, { topk: 0 }, 'x')).toThrow(/x\.topk must be an integer in \[1, 10000000\]/)
    expect(() => resolveFields(ENGINE_LIMIT_FIELDS, { access: 'yes' }, 'x')).toThrow(/x\.access must be true or false/)
  })

  it('batch sizes: at least one full training batch, validation batches that divide the bench', () => {
    for (const [train, bench] of [
      [1, 1],
      [339, 29],
      [1841, 642],
      [100_000, 1312],
      [5000, 1031], // a prime bench over the cap: batches of 1 rather than dropped rows
    ]) {
      for (const p of ['search-r1', 'verl', 'asearcher'] as const) {
        const b = batchSizes(engineProfile(p), train, bench)
        expect(b.train).toBeGreaterThanOrEqual(1)
        expect(b.train).toBeLessThanOrEqual(train)
        expect(b.train % b.miniBatch).toBe(0)
        expect(bench % b.val).toBe(0)
        expect(b.val).toBeLessThanOrEqual(bench)
      }
    }
    expect(validationBatch(642)).toBe(642)
    expect(validationBatch(1312)).toBe(656)
    expect(() => batchSizes(engineProfile('verl'), 0, 5)).toThrow(/no training rows/)
  })

  it("Search-R1's max_prompt_length comes with the limits; verl's max_model_len holds prompt + response", () => {
    const l = { ...engineProfile('search-r1').stock, toolCalls: 8, context: 9548 }
    expect(engineProfile('search-r1').launchFlags(l, batchSizes(engineProfile('search-r1'), 339, 29))).toEqual(
      expect.arrayContaining(['max_turns=8', 'data.max_prompt_length=9548', 'data.val_batch_size=29', 'data.train_batch_size=256']),
    )
    const v = engineProfile('verl').launchFlags({ ...engineProfile('verl').stock, toolCalls: 8, obs: 4096, context: 13023 }, batchSizes(engineProfile('verl'), 339, 29))
    expect(v).toEqual(expect.arrayContaining(['actor_rollout_ref.rollout.multi_turn.max_assistant_turns=9', 'actor_rollout_ref.rollout.max_model_len=17119']))
  })
})
