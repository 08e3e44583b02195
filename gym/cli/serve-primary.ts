// gym/cli/serve-primary: the primary of `gym serve --workers N` — no world of its own: it starts the workers (which
// open it), writes the address file once they are all up, prints the URL line and stops them on SIGINT/SIGTERM.
// How workers are forked, restarted and reported is serve-workers'.
import { basename, resolve } from 'node:path'
import { announceStop, runUntilSignal } from '../../infra/cli-util'
import { removeAddressFile } from '../address-file'
import { startWorkers } from './serve-workers'
import { unitNote, writeAddress, type ServeSetup } from './serve-setup'

export async function servePrimary(setup: ServeSetup): Promise<never> {
  const p = await startWorkers(setup.workers, setup.log)
  let addressFile: string | undefined
  try {
    addressFile = writeAddress(setup, p.ready.port)
  } catch (e) {
    await p.stop()
    throw e
  }
  if (addressFile) process.once('exit', () => removeAddressFile(addressFile))
  const r = p.ready
  setup.warnOpen()
  setup.log(`${basename(resolve(setup.dir))} (${r.qa} QA, ${setup.workers} workers, ${r.searchThreads} search thread${r.searchThreads === 1 ? '' : 's'} each${unitNote(setup)}) on ${r.url}${addressFile ? ` (address file ${addressFile})` : ''}`)
  announceStop('searchgym gym serve')
  return runUntilSignal(async () => {
    if (addressFile) removeAddressFile(addressFile)
    await p.stop()
  })
}
