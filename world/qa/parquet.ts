// world/qa/parquet: writing a Parquet file from columns and a hand-written schema (hyparquet-writer), with the schema
// element helpers the QA exporters share (optional UTF-8 strings, ints, lists, structs). hyparquet-writer is imported
// when a file is written (only `world export` writes Parquet; every other command that reaches this file skips it).
import { writeFileSync } from 'node:fs'

export const S = (name: string) => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' })
export const I64 = (name: string) => ({ name, type: 'INT64', repetition_type: 'OPTIONAL' })
export const I32 = (name: string) => ({ name, type: 'INT32', repetition_type: 'OPTIONAL' })
export const LIST = (name: string) => [
  { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
]
export const STRLIST = (name: string) => [...LIST(name), S('element')]

export type SchemaElement = Record<string, unknown>
export type Column = { name: string; data: unknown[] }

export async function writeParquet(path: string, columns: Column[], schema: SchemaElement[]): Promise<void> {
  const { parquetWriteBuffer } = await import('hyparquet-writer')
  const buf = parquetWriteBuffer({ columnData: columns as never, schema: [{ name: 'root', num_children: columns.length }, ...schema] as never })
  writeFileSync(path, new Uint8Array(buf))
}

/** A struct (group) of `n` children; the children follow it in the schema list. */
export const STRUCT = (name: string, n: number) => ({ name, repetition_type: 'OPTIONAL', num_children: n })
