// gym/open-gym-world: a GymWorld over a built world folder — the QA it serves (train and bench) and the search
// engine the world was verified with (world/search), whose document store answers access. The world file is only
// read while opening; close() closes the engine (and stops a local Meilisearch it started).
import { basename, resolve } from 'node:path'
import { openWorld } from '../world'
import { openSearchIndex, type OpenSearchOptions } from '../world'
import { gymWorldFromIndex } from './index-world'
import { readServedQa } from './world-qa'
import type { GymWorld } from './world-view'

export async function openGymWorld(dir: string, opts: OpenSearchOptions = {}): Promise<GymWorld> {
  const world = openWorld(dir)
  try {
    const qas = readServedQa(world.db, dir)
    const index = await openSearchIndex(world, opts)
    return gymWorldFromIndex(basename(resolve(dir)), index, qas)
  } finally {
    world.close()
  }
}
