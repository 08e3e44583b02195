#!/usr/bin/env node
// bin/searchgym: the `searchgym` command. Loads the TypeScript CLI through tsx (no build step).
import { register } from 'tsx/esm/api'
register()
await import('../cli.ts')
