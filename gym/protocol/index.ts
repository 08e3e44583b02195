// gym/protocol/index: the protocol registry (hermes default, openai, search-r1) and the protocol types.
import { GymError } from '../../infra/errors'
import { ownLookup } from '../../infra/lookup'
import { hermesProtocol } from './hermes'
import { openAiProtocol } from './openai'
import { searchR1Protocol } from './search-r1'
import { PROTOCOL_NAMES, type Protocol, type ProtocolName } from './types'

export * from './types'
export { toolSchemas, TOOL_SCHEMAS } from './tools'

export const PROTOCOLS: Record<ProtocolName, Protocol> = {
  hermes: hermesProtocol,
  openai: openAiProtocol,
  'search-r1': searchR1Protocol,
}

export function getProtocol(p: ProtocolName | Protocol | undefined): Protocol {
  if (p === undefined) return hermesProtocol
  if (typeof p !== 'string') return p
  const found = ownLookup<Protocol>(PROTOCOLS, p)
  if (!found) throw new GymError('protocol.unknown', `unknown protocol '${String(p).slice(0, 60)}': use one of ${PROTOCOL_NAMES.join(', ')}`)
  return found
}
