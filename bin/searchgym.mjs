#!/usr/bin/env node
// bin/searchgym: the `searchgym` command. Loads the TypeScript CLI through tsx (no build step).
import { register } from 'tsx/esm/api'
register()
const { main } = await import('../cli.ts')
await main()
