// infra/engine/lora.test: PEFT adapter files — names, a config as PEFT writes it, refusals with reasons.
import { mkdtempSync, rmSync, writeFileSync, readFileSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Rng } from '../rng'
import { presetConfig } from './config'
import { createLoraAdapter, loadLoraAdapter, parseLoraTargets, peftName, saveLoraAdapter } from './lora'
import { createTsBackend } from './ts-backend'

const tmp = mkdtempSync(join(tmpdir(), 'lora-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const be = createTsBackend()
const cfg = presetConfig('tiny', 20)

test('PEFT names and target parsing', () => {
  expect(peftName(3, 'gate', 'B')).toBe('base_model.model.model.layers.3.mlp.gate_proj.lora_B.weight')
  expect(parseLoraTargets(['v_proj', 'q', 'down_proj'])).toEqual(['q', 'v', 'down'])
  expect(parseLoraTargets('all-linear')).toHaveLength(7)
  expect(() => parseLoraTargets(['lm_head'])).toThrow(/unknown LoRA target 'lm_head'/)
})

test('an adapter_config.json in the shape PEFT writes (extra fields, any target order, null base) loads', () => {
  const dir = join(tmp, 'peft')
  const ad = createLoraAdapter(be, cfg, { rank: 2, alpha: 4, targets: ['q', 'v'] }, new Rng(1))
  saveLoraAdapter(dir, ad, be, 'x')
  const c = JSON.parse(readFileSync(join(dir, 'adapter_config.json'), 'utf8'))
  writeFileSync(join(dir, 'adapter_config.json'), JSON.stringify({
    ...c, base_model_name_or_path: null, target_modules: ['v_proj', 'q_proj'], lora_bias: false, exclude_modules: null,
    target_parameters: null, trainable_token_indices: null, layer_replication: null, megatron_config: null, corda_config: null,
  }))
  const back = loadLoraAdapter(dir, be, cfg)
  expect(back.config).toMatchObject({ rank: 2, alpha: 4, targets: ['q', 'v'] })
  expect(back.scale).toBe(2)
  expect(Array.from(be.toHost(back.layers[1].v!.a))).toEqual(Array.from(be.toHost(ad.layers[1].v!.a)))
})

test('adapters the engine cannot represent are refused with the reason', () => {
  const dir = join(tmp, 'bad')
  saveLoraAdapter(dir, createLoraAdapter(be, cfg, { rank: 2, alpha: 4, targets: ['q'] }, new Rng(2)), be, 'x')
  const c = JSON.parse(readFileSync(join(dir, 'adapter_config.json'), 'utf8'))
  const withCfg = (extra: Record<string, unknown>) => writeFileSync(join(dir, 'adapter_config.json'), JSON.stringify({ ...c, ...extra }))
  withCfg({ use_dora: true })
  expect(() => loadLoraAdapter(dir, be, cfg)).toThrow(/DoRA/)
  withCfg({ bias: 'lora_only' })
  expect(() => loadLoraAdapter(dir, be, cfg)).toThrow(/bias/)
  withCfg({ layers_to_transform: [0] })
  expect(() => loadLoraAdapter(dir, be, cfg)).toThrow(/layers_to_transform/)
  withCfg({ r: 3 })
  expect(() => loadLoraAdapter(dir, be, cfg)).toThrow(/shape \[2,64\], expected \[3,64\]/)
  withCfg({ target_modules: ['q_proj', 'k_proj'] })
  expect(() => loadLoraAdapter(dir, be, cfg)).toThrow(/missing tensor .*k_proj/)
  withCfg({})
  expect(() => loadLoraAdapter(dir, be, presetConfig('small', 20))).toThrow(/expected/)
  unlinkSync(join(dir, 'adapter_model.safetensors'))
  expect(() => loadLoraAdapter(dir, be, cfg)).toThrow(/no adapter_model.safetensors/)
  expect(() => loadLoraAdapter(join(tmp, 'nowhere'), be, cfg)).toThrow(/no adapter_config.json/)
})
