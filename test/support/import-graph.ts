// The relative imports between a package's source files, and the circles among them. Pure text
// scanning (no compiler API, no dependency): sheaf's sources import with literal specifiers only.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Each file (relative path) and the files it imports, sorted. */
export type ImportGraph = Map<string, readonly string[]>;

// Statements only: a specifier inside a doc comment's example sits on a line starting with `*`, not
// with `import`/`export`. `import type` and `export type` count: a type-only circle costs nothing at
// run time, but it still ties the files so neither can be read or moved without the other.
const statement = /^[ \t]*(?:import|export)\b[^;'"]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/gm;
const sideEffect = /^[ \t]*import\s*['"](\.{1,2}\/[^'"]+)['"]/gm;
const dynamic = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** The relative specifiers (`./x.js`, `../y.js`) a module's source imports or re-exports. */
export function relativeImports(source: string): string[] {
  return [statement, sideEffect, dynamic].flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1]!));
}

/** Every `.ts` file under `dir`, recursively, as absolute paths. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The file a specifier names: NodeNext `.js` specifiers stand for the `.ts` source beside them. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((candidate) => candidate.endsWith('.ts') && existsSync(candidate));
}

/** The import graph of every `.ts` file under `dir`, keyed by paths relative to `dir`. */
export function importGraph(dir: string): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of tsFiles(dir).sort()) {
    const targets = relativeImports(readFileSync(file, 'utf8'))
      .map((specifier) => resolveSpecifier(file, specifier))
      .filter((target): target is string => target !== undefined)
      .map((target) => relative(dir, target));
    graph.set(relative(dir, file), [...new Set(targets)].sort());
  }
  return graph;
}

/**
 * The import circles of a graph: each strongly connected component of two or more files, or one
 * file importing itself, as sorted file lists (Tarjan's algorithm, so each circle is found once
 * however many paths run around it).
 */
export function findCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
