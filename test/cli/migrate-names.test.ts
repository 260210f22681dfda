// Names holding line breaks: a migration writes table names into comments (SQL `--`, knex's `//`)
// and progress lines, where a raw line break would turn the rest of the name into live code.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { onDatabase, urlFor } from './cli-targets.js';
import { sheaf } from './run-sheaf.js';

const timeout = 60_000;
const nasty = 't\ndrop table x; --\r\u2028y';
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const ddl = {
  postgres: [
    'create table x (id integer primary key)',
    `create table "${nasty}" (id serial primary key, v integer)`,
    `insert into "${nasty}" (v) select g from generate_series(1, 20) g`,
  ],
  mysql: [
    'create table x (id integer primary key)',
    `create table \`${nasty}\` (id integer not null auto_increment primary key, v integer)`,
    `insert into \`${nasty}\` (v) values (1), (2), (3)`,
  ],
};

describeTargets('sheaf migrate with line breaks in a table name', (db, target) => {
  const dialect = target === 'mariadb' ? 'mysql' : 'postgres';

  it(
    'spells out line breaks in every comment and progress line; the generated files run as written',
    async () => {
      const url = await urlFor(target, db());
      expect((await sheaf(['install', '--url', url])).code).toBe(0);
      await onDatabase(url, db(), async (sql) => {
        for (const statement of ddl[dialect]) await sql.query(statement);
      });
      const written: Record<string, string[]> = {};
      for (const format of ['sql', 'knex', 'drizzle', 'prisma']) {
        const out = await mkdtemp(join(tmpdir(), 'sheaf-names-'));
        dirs.push(out);
        const run = await sheaf(['migrate', '--url', url, '--table', nasty, '--format', format, '--out', out]);
        expect(run.code, run.stderr).toBe(0);
        const files = (await readdir(out, { recursive: true, withFileTypes: true })).filter((file) => file.isFile());
        written[format] = files.map((file) => join(file.parentPath, file.name));
        const texts = await Promise.all(written[format].map((file) => readFile(file, 'utf8')));
        expect(texts.join('\n'), format).toMatch(/\\(u000a|n)drop table x; --\\(u000d|r)\\u2028y/);
      }
      // A `//` comment cut by a raw line break would leave `drop table x; …` as code: a SyntaxError.
      const knexFile = written.knex?.find((file) => file.endsWith('.cjs')) as string;
      expect(createRequire(import.meta.url)(knexFile).up).toBeTypeOf('function');
      if (target === 'postgres') {
        // The .sql file as a whole, as psql would send it: a broken comment would drop the canary.
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(await readFile(written.sql?.[0] as string, 'utf8'));
        } finally {
          await client.end();
        }
      } else {
        const applied = await sheaf(['migrate', '--url', url, '--table', nasty, '--apply']);
        expect(applied.code, applied.stderr).toBe(0);
        expect(applied.stderr).toMatch(/\\(u000a|n)drop table x/);
      }
      await onDatabase(url, db(), async (sql) => {
        const [row] = await sql.query<{ n: unknown }>('select count(*) as n from x');
        expect(Number(row?.n)).toBe(0);
        const column =
          dialect === 'postgres'
            ? `select data_type as type from information_schema.columns where table_name = $1 and column_name = 'id'`
            : `select data_type as type from information_schema.columns where table_schema = database() and table_name = ? and column_name = 'id'`;
        expect(await sql.query(column, [nasty])).toEqual([{ type: 'bigint' }]);
      });
    },
    timeout,
  );
});
