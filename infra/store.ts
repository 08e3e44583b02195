// infra/store: opening SQLite files (better-sqlite3, WAL) and small helpers; knows nothing of worlds or runs.
import Database from 'better-sqlite3'
import { StoreError } from './errors'

export type Db = Database.Database

export function openDb(path: string, opts: { readonly?: boolean; mustExist?: boolean } = {}): Db {
  try {
    const db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.mustExist ?? false })
    if (!opts.readonly) {
      db.pragma('journal_mode = WAL')
      db.pragma('synchronous = NORMAL')
    }
    db.pragma('foreign_keys = ON')
    return db
  } catch (e) {
    throw new StoreError('store.open', `cannot open database ${path}: ${(e as Error).message}`, { cause: e })
  }
}

/** Run fn inside one transaction: all or nothing, so a killed process never leaves half a step. */
export function tx<T>(db: Db, fn: () => T): T {
  return db.transaction(fn)()
}
