// gym/world-qa: the QA a world serves — train and bench rows of the world file's `qa` table (rows the split stage
// excluded are not served), in stored order, through the QA stage's own reader; a world without QA is an error.
import type { Db } from '../infra/store'
import { GymError } from '../infra/errors'
import { hasQaTable, readQa } from '../world'
import type { Qa } from '../world'

export function readServedQa(db: Db, where: string): Qa[] {
  if (!hasQaTable(db)) throw new GymError('world.no_qa', `world ${where} has no QA table; build it with the qa stage (searchgym world build)`)
  return readQa(db, ['train', 'bench'])
}
