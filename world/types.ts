// world/types: what crosses the world package's boundary — schema specs, entities, edges, documents, QA.
// Plain data only; the graph library, the store and the engines are implementation details behind it.

export type EntityId = string
export type EdgeId = string
export type AttrValue = string | number
export type Cardinality = '1-1' | '1-n' | 'n-1' | 'n-n'

/** A typed attribute of an entity type. */
export interface AttributeSpec {
  /** Key in Entity.attrs, e.g. 'population'. */
  name: string
  /** Value kind: numbers are comparable/addable (Parallel questions). */
  kind: 'string' | 'int' | 'float' | 'year' | 'date'
  /** Human label used in documents and questions, e.g. 'population'. */
  label: string
  /** Optional unit printed after numbers, e.g. 'km²'. */
  unit?: string
}

export interface EntityTypeSpec {
  /** Type name, PascalCase, e.g. 'Person'. */
  name: string
  /** Noun used in text and questions, e.g. 'person', 'city'. */
  noun: string
  attributes: AttributeSpec[]
}

/** A relation type with domain, range, cardinality and verbal forms in both directions. */
export interface RelationSpec {
  /** e.g. 'wrote' — stable id used in edges. */
  name: string
  domain: string
  range: string
  /** '1-n': one source has many targets, each target has one source; 'n-1': many sources share one target. */
  cardinality: Cardinality
  /** Must not form a cycle (parent/child, subsidiary-of). */
  acyclic?: boolean
  /** Sentences with {s} (source name) and {t} (target name): "{s} wrote {t}." — several phrasings. */
  forward: string[]
  /** Sentences from the target's side: "{t} was written by {s}." */
  inverse: string[]
  /** Optional list form from the target's side for many sources at once: "{t} wrote {list}." ({list} = names). */
  inverseMany?: string[]
  /** Noun phrases describing the target given the source: "the author of {s}" — used to verbalise chains. */
  targetPhrases: string[]
  /** Noun phrases describing the source given the target: "the book written by {t}" (only unique for 1-1/1-n). */
  sourcePhrases: string[]
  /** Question forms asking for the target: "Who wrote {s}?" */
  questions: string[]
  /** Keyword forms for search queries, e.g. ['author', 'writer']. */
  keywords: string[]
}

export interface Entity {
  id: EntityId
  type: string
  name: string
  /** Typed attribute values by AttributeSpec.name. */
  attrs: Record<string, AttrValue>
  /** Unique URL of the entity's document. */
  url: string
}

export interface Edge {
  id: EdgeId
  relation: string
  source: EntityId
  target: EntityId
}

/** One fact a document states, with the exact sentence that states it. */
export interface DocFact {
  kind: 'edge' | 'attr'
  /** Edge id, or `${entityId}#${attrName}` for attributes. */
  ref: string
  sentence: string
}

export interface Doc {
  url: string
  entityId: EntityId
  title: string
  /** Full text (lead, infobox block, sections). */
  text: string
  facts: DocFact[]
}

export type QaType = 'simple' | 'parallel' | 'combo'
export type Split = 'train' | 'bench'

export interface QaEvidence {
  /** Index of the hop in `path` (or -1 for attribute reads in Parallel questions). */
  hop: number
  url: string
  sentence: string
}

export interface Qa {
  id: string
  type: QaType
  hops: number
  question: string
  answer: string
  aliases: string[]
  /** Edge ids in reasoning order (for Parallel: both paths concatenated; see meta). */
  path: EdgeId[]
  /** URLs of the documents needed. */
  docs: string[]
  evidence: QaEvidence[]
  split: Split
  /** Type-specific details (e.g. parallel operator, the two sub-paths, attribute names). */
  meta: Record<string, unknown>
}
