// No package has an import circle: a dispatcher and its dialect files share a types or helper module
// instead of importing each other (docs/development.md).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findCycles, type ImportGraph, importGraph, relativeImports } from '../support/import-graph.js';

const packagesDir = fileURLToPath(new URL('../../packages', import.meta.url));
const packages = readdirSync(packagesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

describe('import circles', () => {
  it.each(packages)('packages/%s/src has none', (name) => {
    const cycles = findCycles(importGraph(join(packagesDir, name, 'src')));
    expect(
      cycles.map((files) => files.join(' <-> ')),
      `import circles in packages/${name}/src`,
    ).toEqual([]);
  });

  it('scans every package with sources', () => {
    expect(packages).toEqual(expect.arrayContaining(['cli', 'core', 'migrate']));
    for (const name of packages) expect(importGraph(join(packagesDir, name, 'src')).size).toBeGreaterThan(0);
  });
});

describe('findCycles', () => {
  it('finds a circle once, with only its own files', () => {
    const graph = graphOf({
      'a.ts': ['b.ts'],
      'b.ts': ['c.ts', 'a.ts'],
      'c.ts': ['a.ts'],
      'd.ts': ['a.ts'],
      'e.ts': [],
    });
    expect(findCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('finds a file importing itself and separate circles apart', () => {
    const graph = graphOf({ 'a.ts': ['a.ts'], 'b.ts': ['c.ts'], 'c.ts': ['b.ts'], 'd.ts': ['b.ts'] });
    expect(findCycles(graph)).toEqual([['a.ts'], ['b.ts', 'c.ts']]);
  });

  it('finds none where imports only run one way', () => {
    const graph = graphOf({ 'a.ts': ['b.ts', 'c.ts'], 'b.ts': ['c.ts'], 'c.ts': [] });
    expect(findCycles(graph)).toEqual([]);
  });
});

describe('relativeImports', () => {
  it('reads imports, type imports, re-exports and dynamic imports, not packages or comments', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      'import {',
      '  c,',
      '  type C,',
      "} from './c.js';",
      "export { d } from './d.js';",
      "export * from './e.js';",
      "import './f.js';",
      "const g = await import('./g.js');",
      "import { SheafError } from '@sheaf/core';",
      ' * @example',
      " * import { h } from './h.js';",
      "const text = 'import from ./i.js';",
    ].join('\n');
    expect(relativeImports(source).sort()).toEqual([
      '../b.js',
      './a.js',
      './c.js',
      './d.js',
      './e.js',
      './f.js',
      './g.js',
    ]);
  });
});
