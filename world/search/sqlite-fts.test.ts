// world/search/sqlite-fts.test: the SQLite FTS5 engine passes the shared SearchIndex contract.
import { runSearchIndexContract } from './search-index.contract'
import { SqliteFtsIndex } from './sqlite-fts'

runSearchIndexContract({ name: 'sqlite (FTS5)', make: async () => new SqliteFtsIndex() })

describe('SqliteFtsIndex', () => {
  it('quotes every word of the query', () => {
    expect(SqliteFtsIndex.matchExpression('Mabel AND "Smith" NEAR(x*)')).toBe('"mabel" OR "and" OR "smith" OR "near" OR "x"')
    expect(SqliteFtsIndex.matchExpression('🙂 ** ')).toBe('')
  })
})
