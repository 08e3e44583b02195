// gym/world-view: GymWorld, the only view of a world the gym has — search, access, QA lookup. Implemented by the
// fixture (tests/fixtures/gym-fixture-world) and by openGymWorld (a built world folder + its SearchIndex).
import type { Qa, RetrieveUnit, Split } from '../world'

/** One search hit as the agent sees it. */
export interface SearchResult {
  title: string
  url: string
  snippet: string
  /** Engine relevance score, when the engine gives one (higher is better). */
  score?: number
}

/** A document as Access returns it. */
export interface Page {
  title: string
  url: string
  text: string
}

export interface GymWorld {
  /** Human-readable name (world name or 'fixture'). */
  readonly name: string
  /** The world's content hash (a built world's manifest; absent for fixtures): /health says it, and the launch scripts
   * compare it with the hash of the world they were exported from. */
  readonly hash?: string
  /** Top-k hits for a query, best first. May throw (engine down); the env turns that into an observation. */
  search(query: string, k: number): Promise<SearchResult[]>
  /** Several queries at once (engines that batch); optional, the server falls back to search(). */
  searchMany?(queries: string[], k: number): Promise<SearchResult[][]>
  /** Worker threads that answer whole /retrieve slices off the server's event loop (openGymWorld searchThreads). */
  readonly retrieveSlices?: SliceAnswerer
  /** The full document at a URL, or undefined when there is no such page. */
  access(url: string): Promise<Page | undefined>
  qa(id: string): Qa | undefined
  /** All QA, or one split, in a stable order. */
  listQa(split?: Split): Qa[]
  close(): Promise<void>
}

/** Answers /retrieve slices (search + page text + JSON) on worker threads: gym/retrieve-workers. */
export interface SliceAnswerer {
  /** Worker threads answering slices in parallel. */
  readonly threads: number
  /** The comma-joined JSON of these queries' /retrieve result lists, in order: whole pages, or ~100-word passages. */
  sliceJson(queries: string[], topk: number, withScores: boolean, unit?: RetrieveUnit): Promise<string>
}
