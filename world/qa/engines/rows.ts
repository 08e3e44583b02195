// world/qa/engines/rows: what the engines' data rows share — the accepted answers of a question and the Parquet schema
// pieces of the veRL row layout (prompt messages, reward_model.ground_truth) that Search-R1 and verl both use.
import type { Qa } from '../../types'
import { LIST, S, STRLIST, STRUCT, type SchemaElement } from '../parquet'

/** Every accepted answer, the canonical one first. */
export const accepted = (q: Qa): string[] => [...new Set([q.answer, ...q.aliases])]

export const GROUND_TRUTH: SchemaElement[] = [STRUCT('ground_truth', 1), ...STRLIST('target')]
export const REWARD_MODEL: SchemaElement[] = [STRUCT('reward_model', 2), S('style'), ...GROUND_TRUTH]
export const PROMPT: SchemaElement[] = [...LIST('prompt'), { name: 'element', repetition_type: 'OPTIONAL', num_children: 2 }, S('role'), S('content')]
