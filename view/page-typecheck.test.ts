// view/page-typecheck.test: the page's TypeScript (view/page/app.ts) type-checks against the DOM library and the API
// shapes of view/types.ts. It has its own tsconfig (view/page/tsconfig.json): the DOM library would clash with
// Node's types in the root program that `npm test` checks.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

test('view/page type-checks with the DOM library', () => {
  const r = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'view/page/tsconfig.json'], { cwd: ROOT, encoding: 'utf8' })
  expect(r.stdout + r.stderr).toBe('')
  expect(r.status).toBe(0)
}, 300_000)
