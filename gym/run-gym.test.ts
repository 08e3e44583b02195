// gym/make-env resolveRunGym / refuseGymProtocol: the one place a run's gym block meets its protocol — the block may not
// hold one (named as the caller's config spells the keys), and the two resolve together.
import { refuseGymProtocol, resolveRunGym } from './make-env'
import { keyNamer } from '../infra/fields'

test('a gym block with a protocol is refused naming both keys; without one it resolves with the run protocol', () => {
  expect(() => resolveRunGym({ protocol: 'hermes' } as never, 'search-r1')).toThrow('gym may not set protocol: use protocol')
  expect(() => refuseGymProtocol({ protocol: 'hermes' }, keyNamer('experiment'))).toThrow('experiment.gym may not set protocol: use experiment.protocol')
  const g = resolveRunGym({ topK: 3 }, 'search-r1')
  expect([g.protocol, g.topK]).toEqual(['search-r1', 3])
  expect(resolveRunGym(undefined, 'hermes').protocol).toBe('hermes')
  expect(() => refuseGymProtocol(undefined)).not.toThrow()
})
