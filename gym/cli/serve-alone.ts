// gym/cli/serve-alone: `gym serve --workers 1` — one process: the world, the HTTP server with its own env sessions,
// the address file, the URL line; runs until SIGINT/SIGTERM. Knows no other process.
import { announceStop, runUntilSignal } from '../../infra/cli-util'
import { removeAddressFile } from '../address-file'
import { openServer, unitNote, writeAddress, type ServeSetup } from './serve-setup'

export async function serveAlone(setup: ServeSetup): Promise<never> {
  const { world, s } = await openServer(setup, setup.c.port)
  let addressFile: string | undefined
  try {
    addressFile = writeAddress(setup, s.port)
  } catch (e) {
    await s.close()
    await world.close()
    throw e
  }
  if (addressFile) process.once('exit', () => removeAddressFile(addressFile))
  setup.warnOpen()
  setup.log(`${world.name} (${world.listQa().length} QA, ${world.searchThreads} search thread${world.searchThreads === 1 ? '' : 's'}${unitNote(setup)}) on ${s.url}${addressFile ? ` (address file ${addressFile})` : ''}`)
  announceStop('searchgym gym serve')
  return runUntilSignal(async () => {
    if (addressFile) removeAddressFile(addressFile)
    await s.close()
    await world.close()
  })
}
