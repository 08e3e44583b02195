// infra/engine/create-backend.test: createBackend picks the named backend, 'auto' = native where it built (else ts
// with the recorded reason), 'cuda' and unknown names fail with one clear line.
import { backendFallbackReason, createBackend, parseBackendName } from './create-backend'
import { loadNativeAddon } from './native/addon'

test('ts, auto and native resolve; cuda and unknown names give one clear line', () => {
  expect(createBackend('ts').name).toBe('ts')
  const native = loadNativeAddon()
  if (native.addon) {
    expect(createBackend('native').name).toBe('native')
    expect(createBackend('auto').name).toBe('native')
    expect(backendFallbackReason()).toBeUndefined()
  } else {
    expect(() => createBackend('native')).toThrow(/native backend is not built|failed to load/)
    expect(createBackend('auto').name).toBe('ts')
    expect(backendFallbackReason()).toMatch(/native backend/)
  }
  expect(() => createBackend('cuda')).toThrow(/cuda backend is not available/)
  expect(() => parseBackendName('gpu')).toThrow(/unknown backend 'gpu'; use one of auto, native, ts, cuda/)
  expect(parseBackendName('native')).toBe('native')
})
