// world/search/retrieve-units: what one retrieval hit is — a whole page, or a ~100-word passage of one (the unit the
// Wikipedia corpora of Search-R1, verl and ASearcher were cut into). World exports and the gym's /retrieve share it.

export const RETRIEVE_UNITS = ['page', 'passage'] as const
export type RetrieveUnit = (typeof RETRIEVE_UNITS)[number]
