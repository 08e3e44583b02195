#!/usr/bin/env node
// bin/searchgym: the `searchgym` command. Runs the compiled CLI (dist/cli.mjs, built by bin/build-cli.mjs at install
// time) when it is fresh — present and built from the sources as they are now — and otherwise loads the TypeScript
// through tsx (development: an edited source is used at once, at tsx's start-up cost). SEARCHGYM_TSX=1 forces tsx;
// SEARCHGYM_DEBUG=1 also says which one runs and maps bundle stack traces back to the .ts sources.
import { staleReason, BUNDLE } from './build-cli.mjs'
import { pathToFileURL } from 'node:url'

const why = process.env.SEARCHGYM_TSX === '1' ? 'SEARCHGYM_TSX=1' : staleReason()
let main
if (why === '') {
  if (process.env.SEARCHGYM_DEBUG) {
    process.setSourceMapsEnabled(true)
    process.stderr.write(`searchgym: running ${BUNDLE}\n`)
  }
  ;({ main } = await import(pathToFileURL(BUNDLE).href))
} else {
  if (process.env.SEARCHGYM_DEBUG) process.stderr.write(`searchgym: running the TypeScript through tsx (${why})\n`)
  const { register } = await import('tsx/esm/api')
  register()
  ;({ main } = await import('../cli.ts'))
}
await main()
