import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { install, type SqlExecutor } from '@sheaf/core';
import { beforeAll, expect, it } from 'vitest';
import { statementsOf } from '../../packages/core/src/install/sql-file.js';
import { describeGeneratorPaths, expectGeneratorPath } from '../support/generator-paths.js';

// sql/postgres/routines/ and sql/postgres/tables.sql hold the current definition of everything a
// fresh install creates (docs/development.md, "SQL"): each routine is named by exactly one file,
// running the files changes nothing, the tables come out as the numbered files leave them, and no
// version-stamped helper of an earlier version is left.

const dir = fileURLToPath(new URL('../../sql/postgres/', import.meta.url));
const routineFiles = readdirSync(`${dir}routines`)
  .filter((file) => file.endsWith('.sql'))
  .sort()
  .map((file) => ({ file, sql: readFileSync(`${dir}routines/${file}`, 'utf8') }));

/**
 * Routines a file may name that a fresh install does not always have, with the reason. All are
 * rendered by _bake(), which creates or drops them with the settings and the path.
 */
const conditional: Record<string, string> = {
  _test_pause: 'test installs only',
  _test_reset: 'test installs only',
  _native_anchor: 'the native path chosen by a superuser only',
};

/**
 * The routines a file names: those it creates with `create or replace function sheaf.<name>(`, and
 * for _bake.sql also those its header lists as rendered there (the slow path's signature is filled
 * in, so its name is not written after `function`).
 */
function namedBy(sql: string): Set<string> {
  const names = [...sql.matchAll(/create or replace function sheaf\.(\w+)\(/g)].map((match) => match[1]!);
  const header = sql.slice(0, sql.indexOf('\ncreate '));
  names.push(...[...header.matchAll(/^--\s+sheaf\.(\w+)\(/gm)].map((match) => match[1]!));
  return new Set(names);
}

const routineCatalog = (sql: SqlExecutor) =>
  sql.query<{ name: string; language: string; definition: string; acl: string | null }>(
    `select p.oid::regprocedure::text as name, l.lanname as language, pg_get_functiondef(p.oid) as definition,
       p.proacl::text as acl
     from pg_proc p join pg_language l on l.oid = p.prolang
     where p.pronamespace = 'sheaf'::regnamespace
       -- The extension's own functions are defined by native/postgres, not here.
       and not exists (select from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid
         and d.deptype = 'e')
     order by 1`,
  );

const tableCatalog = async (sql: SqlExecutor) => ({
  columns: await sql.query(
    `select table_name, column_name, data_type, column_default, is_nullable
     from information_schema.columns where table_schema = 'sheaf' order by 1, 2`,
  ),
  constraints: await sql.query(
    `select conrelid::regclass::text as on_table, conname, pg_get_constraintdef(oid) as definition
     from pg_constraint where connamespace = 'sheaf'::regnamespace order by 1, 2`,
  ),
  indexes: await sql.query("select indexname, indexdef from pg_indexes where schemaname = 'sheaf' order by 1"),
  sequences: await sql.query(
    `select s.sequencename, s.data_type::text, s.start_value::text, s.min_value::text, s.max_value::text,
       s.increment_by::text, s.cycle, s.cache_size::text, c.relpersistence
     from pg_sequences s join pg_class c on c.oid = (quote_ident(s.schemaname) || '.' || quote_ident(s.sequencename))::regclass
     where s.schemaname = 'sheaf' order by 1`,
  ),
});

/** Runs `work` in a transaction on one session and rolls it back. */
async function rolledBack<T>(sql: SqlExecutor, work: (session: SqlExecutor) => Promise<T>): Promise<T> {
  return sql.session(async (session) => {
    await session.query('begin');
    try {
      return await work(session);
    } finally {
      await session.query('rollback');
    }
  });
}

describeGeneratorPaths(
  'current definitions under sql/postgres',
  (db, target, path) => {
    const sql = () => db().executor;

    beforeAll(async () => {
      await install(sql(), { ...path.install(target), testClock: true });
      await expectGeneratorPath(sql(), path);
    });

    it('names every routine of a fresh install in exactly one file, and every routine a file names exists', async () => {
      const installed = new Set((await routineCatalog(sql())).map((row) => row.name.replace(/\(.*$/, '').slice(6)));
      const filesOf = new Map<string, string[]>();
      for (const { file, sql: text } of routineFiles) {
        for (const name of namedBy(text)) filesOf.set(name, [...(filesOf.get(name) ?? []), file]);
      }
      const unnamed = [...installed].filter((name) => filesOf.get(name)?.length !== 1);
      expect(unnamed.map((name) => `${name}: ${filesOf.get(name)?.join(', ') ?? 'no file'}`)).toEqual([]);
      const missing = [...filesOf.keys()].filter((name) => !installed.has(name) && !(name in conditional));
      expect(missing).toEqual([]);
    });

    it('runs every routine file and sheaf._bake() without changing a routine or its privileges', async () => {
      const before = await routineCatalog(sql());
      const after = await rolledBack(sql(), async (session) => {
        for (const { sql: text } of routineFiles) {
          for (const statement of statementsOf(text)) await session.query(statement);
        }
        await session.query('select sheaf._bake()');
        return routineCatalog(session);
      });
      expect(after).toEqual(before);
    });

    it('has tables.sql create the tables and sequences the numbered files leave', async () => {
      const installed = await tableCatalog(sql());
      expect(installed.sequences.length).toBeGreaterThanOrEqual(8);
      const described = await rolledBack(sql(), async (session) => {
        await session.query('alter schema sheaf rename to sheaf_installed');
        for (const statement of statementsOf(readFileSync(`${dir}tables.sql`, 'utf8'))) await session.query(statement);
        return tableCatalog(session);
      });
      expect(described).toEqual(installed);
    });

    it('leaves no version-stamped routine', async () => {
      const stamped = await sql().query(
        "select p.oid::regprocedure::text as name from pg_proc p where p.pronamespace = 'sheaf'::regnamespace and p.proname ~ '_[0-9]{4}$'",
      );
      expect(stamped).toEqual([]);
    });
  },
  { only: ['postgres', 'pglite'] },
);
