import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

// The folders made while a test file runs, removed when it ends (this module is imported by test
// files, so the hook belongs to the importing file).
const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** What {@link drizzleKitGenerate} made: the folder for `migrate()` and its SQL, file by file. */
export interface Generated {
  readonly folder: string;
  readonly sql: readonly string[];
}

/**
 * Runs the real drizzle-kit CLI on a schema of docs/guides/examples into a fresh folder. tsx with
 * test/tsconfig.json's paths lets it load `@sheaf/drizzle` from source, with no build first.
 * `custom` adds an empty custom migration (drizzle-kit's `--custom`) filled with those statements.
 * The folder is removed when the test file ends.
 */
export async function drizzleKitGenerate(
  dialect: 'postgresql' | 'mysql',
  schema: string,
  custom?: readonly string[],
): Promise<Generated> {
  const folder = await mkdtemp(join(tmpdir(), 'sheaf-drizzle-'));
  made.push(folder);
  const cli = async (...extra: string[]) =>
    run(process.execPath, [join(root, 'node_modules/drizzle-kit/bin.cjs'), 'generate', ...extra], {
      // drizzle-kit prefixes `./` to the output folder, so it must be relative to cwd.
      cwd: dirname(folder),
      env: {
        ...process.env,
        NODE_OPTIONS: `--import ${pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs'))}`,
        TSX_TSCONFIG_PATH: join(root, 'test/tsconfig.json'),
      },
    });
  const args = [
    '--dialect',
    dialect,
    '--schema',
    join(root, 'docs/guides/examples/drizzle', schema),
    '--out',
    basename(folder),
  ];
  await cli(...args);
  if (custom) {
    await cli(...args, '--custom', '--name', 'sheaf_triggers');
    const file = (await sqlFiles(folder)).find((name) => name.endsWith('_sheaf_triggers.sql'))!;
    await writeFile(join(folder, file), custom.join('\n--> statement-breakpoint\n'));
  }
  const files = await sqlFiles(folder);
  return { folder, sql: await Promise.all(files.map((file) => readFile(join(folder, file), 'utf8'))) };
}

async function sqlFiles(folder: string): Promise<string[]> {
  return (await readdir(folder)).filter((name) => name.endsWith('.sql')).sort();
}
