// gym/reader-gym: the gym options every run of the reader start uses — named once (training, its funnel, the
// experiments that start from it, `bench funnel`'s default).
import type { GymOptionsJson } from './make-env'

/** The reader's gym: search-r1 tags with a one-line prompt (the protocol is set apart), 3 results, pages opened by a
 *  result's title (a small tokenizer spells URLs character by character), every line of a tool result starting with a
 *  space (names copied token-exact: the leadSpace option), a 2,000-character observation cap. */
export const READER_GYM: GymOptionsJson = Object.freeze({ topK: 3, observationCap: 2000, prompt: 'brief', accessByTitle: true, leadSpace: true })
