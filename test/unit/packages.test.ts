// The packages as npm publishes them: one version, exact internal pins, and every entry point
// (exports, bin) produced by the build and shipped by `files`. test/outside/packed-app.test.ts
// installs the packed tarballs into an app; this catches the same mistakes without a database.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  main?: string;
  types?: string;
  exports?: Record<string, string | Record<string, string>>;
  bin?: Record<string, string>;
  files?: string[];
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const rootManifest = readJson('package.json');
const dirs: string[] = rootManifest.workspaces;
const packages = dirs.map((dir) => ({ dir, manifest: readJson(`${dir}/package.json`) as Manifest }));
const version = packages[0]!.manifest.version;

/** Every file an entry point of the package names: main, types, export conditions, bins. */
function entryFiles(manifest: Manifest): string[] {
  // npm always packs package.json.
  const exported = Object.entries(manifest.exports ?? {})
    .filter(([subpath]) => subpath !== './package.json')
    .flatMap(([, target]) => (typeof target === 'string' ? [target] : Object.values(target)));
  return [manifest.main, manifest.types, ...exported, ...Object.values(manifest.bin ?? {})]
    .filter((file): file is string => file !== undefined)
    .map((file) => file.replace(/^\.\//, ''));
}

/** Whether npm packs `file`: a `files` entry names it or a folder above it, and no `!` entry takes it out. */
function shipped(files: readonly string[], file: string): boolean {
  const covers = (entry: string) => file === entry || file.startsWith(`${entry.replace(/\/$/, '')}/`);
  return (
    files.some((entry) => !entry.startsWith('!') && covers(entry)) &&
    !files.some((entry) => entry.startsWith('!') && covers(entry.slice(1)))
  );
}

/** The source file that `tsc` (rootDir src, outDir dist) compiles into `file` under dist/. */
const sourceOf = (file: string) => file.replace(/^dist\//, 'src/').replace(/\.d\.ts$|\.js$/, '.ts');

describe('package versions', () => {
  it('are one version for every package, recorded as such in package-lock.json', () => {
    expect(dirs.sort()).toEqual(
      readdirSync(join(root, 'packages'))
        .map((dir) => `packages/${dir}`)
        .sort(),
    );
    const lock = readJson('package-lock.json');
    for (const { dir, manifest } of packages) {
      expect(manifest.version, manifest.name).toBe(version);
      expect(lock.packages[dir]?.version, `package-lock.json, ${dir}`).toBe(version);
    }
  });

  it('pin every internal dependency to exactly that version', () => {
    for (const { manifest } of packages) {
      for (const field of ['dependencies', 'peerDependencies', 'devDependencies', 'optionalDependencies'] as const) {
        for (const [name, range] of Object.entries(manifest[field] ?? {})) {
          if (name.startsWith('@sheaf/')) expect(range, `${manifest.name} ${field} ${name}`).toBe(version);
        }
      }
    }
  });
});

describe.each(packages)('$manifest.name', ({ dir, manifest }) => {
  it('is publishable: not private, a files list, a build on prepack, a README with its install line', () => {
    expect(manifest.private).toBeUndefined();
    expect(manifest.files).toContain('README.md');
    expect(manifest.scripts?.prepack).toBe('node ../../scripts/build.mjs');
    const readme = readFileSync(join(root, dir, 'README.md'), 'utf8');
    expect(readme).toMatch(new RegExp(`npm install (--save-dev )?${manifest.name}[ \\n]`));
  });

  it('has typed exports: types and default for each subpath', () => {
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (subpath === './package.json') continue;
      expect(Object.keys(target), `${subpath}`).toEqual(['types', 'default']);
      const { types, default: code } = target as Record<string, string>;
      expect(types).toBe(code!.replace(/\.js$/, '.d.ts'));
    }
  });

  it('has its exports and bins made by its build and listed in files', () => {
    const tsconfig = readJson(`${dir}/tsconfig.json`);
    expect(tsconfig.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
    const files = manifest.files ?? [];
    for (const file of entryFiles(manifest)) {
      expect(shipped(files, file), `${file} is not in files`).toBe(true);
      if (file.startsWith('dist/')) {
        expect(existsSync(join(root, dir, sourceOf(file))), `${file}: no ${sourceOf(file)}`).toBe(true);
        continue;
      }
      // A committed file (the CLI's bin shim): it exists before any build, and what it loads is built.
      const text = readFileSync(join(root, dir, file), 'utf8');
      for (const [, built] of text.matchAll(/'\.\.\/(dist\/[^']+\.js)'/g)) {
        expect(existsSync(join(root, dir, sourceOf(built!))), `${file} loads ${built}`).toBe(true);
      }
    }
  });

  it('declares every package its source imports', () => {
    const declared = new Set([
      manifest.name,
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    for (const file of readdirSync(join(root, dir, 'src'), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts') || file.endsWith('.generated.ts')) continue;
      const code = readFileSync(join(root, dir, 'src', file), 'utf8').replace(/^\s*(\*|\/\/).*$/gm, '');
      // Statements that start a line: SQL text in a string may hold `from '…'` too.
      for (const [, from, dynamic] of code.matchAll(
        /^(?:import|export)\b[^;]*?\bfrom '([^.'][^']*)'|import\('([^.'][^']*)'\)/gm,
      )) {
        const specifier = from ?? dynamic;
        const name = specifier!.match(/^(@[^/]+\/)?[^/]+/)![0];
        if (name.startsWith('node:') || builtinModules.includes(name)) continue;
        expect(declared.has(name), `${dir}/src/${file} imports ${specifier}`).toBe(true);
      }
    }
  });
});

it('@sheaf/cli ships every source file of native/postgres, and no build product, for sheaf native install', () => {
  const cli = packages.find(({ manifest }) => manifest.name === '@sheaf/cli')!;
  expect(shipped(cli.manifest.files ?? [], 'native/postgres/Makefile')).toBe(true);
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'native/postgres'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .map((file) => file.slice('native/postgres/'.length))
    .filter((file) => file !== '' && !file.startsWith('.'));
  // The build (scripts/build.mjs) made the copy: the test run's global setup runs it.
  expect(readdirSync(join(root, cli.dir, 'native/postgres')).sort()).toEqual(tracked.sort());
});

it('every @sheaf/* import the docs show is an export of that package', () => {
  const pages = ['README.md', ...packages.map(({ dir }) => `${dir}/README.md`)];
  for (const file of readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })) {
    if (/\.(md|ts)$/.test(file)) pages.push(`docs/${file}`);
  }
  const byName = new Map(packages.map(({ manifest }) => [manifest.name, manifest]));
  for (const page of pages) {
    const text = readFileSync(join(root, page), 'utf8');
    for (const [, name, subpath = ''] of text.matchAll(/from '(@sheaf\/[a-z-]+)(\/[a-z-]+)?'/g)) {
      const exportsOf = byName.get(name!)?.exports ?? {};
      expect(Object.keys(exportsOf), `${page} imports ${name}${subpath}`).toContain(`.${subpath}`);
    }
  }
});
