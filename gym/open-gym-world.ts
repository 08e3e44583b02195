// gym/open-gym-world: a GymWorld over a built world folder — the QA it serves (train and bench) and the search
// engine the world was verified with (world/search), whose document store answers access. With searchThreads, whole
// /retrieve slices are answered on that many worker threads (gym/retrieve-workers), each with its own copy of the index
// built from the world file (embedded and sqlite engines), so a large batch never holds the server's event loop. The
// world file is only read while opening; close() closes the engine and the threads (and stops a local Meilisearch).
import { basename, resolve } from 'node:path'
import { openWorld, POOLABLE_ENGINES, worldEngine } from '../world'
import { openSearchIndex, type OpenSearchOptions } from '../world'
import { gymWorldFromIndex } from './index-world'
import { RetrieveWorkers } from './retrieve-workers'
import { readServedQa } from './world-qa'
import type { GymWorld } from './world-view'

export interface OpenGymWorldOptions extends OpenSearchOptions {
  /** Worker threads for /retrieve batches (0: on the server's thread). Engines that cannot be pooled ignore it. */
  searchThreads?: number
}

export async function openGymWorld(dir: string, opts: OpenGymWorldOptions = {}): Promise<GymWorld & { searchThreads: number }> {
  const { searchThreads = 0, ...searchOpts } = opts
  // A corrupted file is refused here (one line) rather than served.
  const world = openWorld(dir, { check: true })
  let qas, index, engine
  const hash = world.hash
  try {
    qas = readServedQa(world.db, dir)
    index = await openSearchIndex(world, searchOpts)
    engine = searchOpts.engine ?? worldEngine(world)
  } finally {
    world.close()
  }
  let workers: RetrieveWorkers | undefined
  try {
    if (searchThreads > 0 && POOLABLE_ENGINES.includes(engine)) workers = await RetrieveWorkers.start(dir, engine, searchThreads)
  } catch (e) {
    await index.close()
    throw e
  }
  const gw = gymWorldFromIndex(basename(resolve(dir)), index, qas, () => workers?.close())
  return Object.assign(gw, { retrieveSlices: workers, searchThreads: workers?.threads ?? 0, ...(hash ? { hash } : {}) })
}
