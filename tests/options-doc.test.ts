// tests/options-doc: docs/options.md is what the field tables say now (regenerate it with bench/perf/option-tables.ts).
import { readFileSync } from 'node:fs'
import { optionsPage } from '../bench/perf/option-tables'

test('docs/options.md is generated from the field tables and current', () => {
  expect(readFileSync(new URL('../docs/options.md', import.meta.url), 'utf8')).toBe(optionsPage())
})
