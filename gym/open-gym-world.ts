// gym/open-gym-world: a GymWorld over a built world folder — its QA and documents (world/open) and the search engine
// the world was verified with (world/search). Placeholder until those land on main.
import { GymError } from '../infra/errors'
import type { GymWorld } from './world-view'

export async function openGymWorld(dir: string): Promise<GymWorld> {
  throw new GymError('world.unavailable', `cannot open world '${dir}': the world reader (world/open) has not landed in this build yet`)
}
