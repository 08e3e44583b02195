// bench/perf/longest-functions: the longest functions of the packages' sources (tests apart), by lines from the
// declaration to its closing brace — a named function, method, or arrow / function expression bound to a name or a
// property (an object literal's `handler:`). Read with the TypeScript parser; nothing is run. `--root DIR` measures
// another checkout (e.g. `git archive eae8d52` unpacked), for a before → after.
//   node bin/run-ts.mjs bench/perf/longest-functions.ts [--root DIR] [--top 15]
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import ts from 'typescript'

export interface FunctionLength {
  file: string
  name: string
  lines: number
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    if (name === 'node_modules' || name.startsWith('.') || name === 'dist') return []
    if (statSync(p).isDirectory()) return sources(p)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts') ? [p] : []
  })
}

/** Every named function of the packages under `root`, longest first. */
export function functionLengths(root: string): FunctionLength[] {
  const out: FunctionLength[] = []
  for (const pkg of ['infra', 'world', 'gym', 'agent', 'curriculum', 'bench', 'view'])
    for (const file of sources(join(root, pkg))) {
      const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true)
      const lines = (n: ts.Node) => src.getLineAndCharacterOfPosition(n.getEnd()).line - src.getLineAndCharacterOfPosition(n.getStart(src)).line + 1
      const visit = (n: ts.Node) => {
        let name: string | undefined
        if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) && n.name) name = n.name.getText(src)
        else if ((ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && (ts.isVariableDeclaration(n.parent) || ts.isPropertyAssignment(n.parent))) name = n.parent.name.getText(src)
        else if ((ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && ts.isCallExpression(n.parent) && ts.isPropertyAssignment(n.parent.parent)) name = n.parent.parent.name.getText(src)
        if (name) out.push({ file: relative(root, file), name, lines: lines(n) })
        ts.forEachChild(n, visit)
      }
      visit(src)
    }
  return out.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file))
}

if (process.argv[1]?.endsWith('longest-functions.ts')) {
  const arg = (k: string) => {
    const i = process.argv.indexOf(k)
    return i > 0 ? process.argv[i + 1] : undefined
  }
  const root = resolve(arg('--root') ?? '.')
  const top = Number(arg('--top') ?? 15)
  for (const f of functionLengths(root).slice(0, top)) process.stdout.write(`${String(f.lines).padStart(5)}  ${f.name}  ${f.file}\n`)
}
