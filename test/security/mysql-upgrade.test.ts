import { install, type SqlExecutor, sqlVersion, uninstall } from '@sheaf/core';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';

const shard = 4;

/** The real executor, except that it fails right after the server ran the statement matching `at`. */
function failingAfter(executor: SqlExecutor, at: RegExp): SqlExecutor {
  const wrap = (inner: SqlExecutor): SqlExecutor => ({
    dialect: inner.dialect,
    async query<R extends object>(sql: string, params?: readonly unknown[]) {
      const rows = await inner.query<R>(sql, params);
      if (at.test(sql)) throw new Error(`injected failure after ${sql}`);
      return rows;
    },
    session: (fn) => inner.session((session) => fn(wrap(session))),
  });
  return wrap(executor);
}

// Version 5 replaces sheaf_next_id() and makes three routines SQL SECURITY INVOKER; a test install
// replaces the function once more. Whatever the path, the routines end as a fresh install's.
describeTargets(
  'MySQL/MariaDB upgrades to version 5',
  (db) => {
    const routines = () =>
      db().executor.query(
        `select routine_name, routine_type, security_type, routine_definition from information_schema.routines
          where routine_schema = database() order by routine_name`,
      );

    for (const testClock of [false, true]) {
      // Two installs per earlier version: 25-50 s at 11 versions on a loaded 2-core machine.
      it(`from every earlier version, and repaired after failing in 0005, end as a fresh install (testClock ${testClock})`, async () => {
        const sql = db().executor;
        await uninstall(sql, { force: true });
        await install(sql, { shard, testClock });
        const fresh = await routines();
        for (let from = 1; from < sqlVersion('mysql'); from++) {
          await uninstall(sql, { force: true });
          await install(sql, { shard, testClock, upTo: from });
          await install(sql, { shard, testClock });
          expect(await routines(), `from ${from}`).toEqual(fresh);
        }
        // An upgrade that lost its connection right after dropping the old sheaf_next_id.
        await uninstall(sql, { force: true });
        await install(sql, { shard, testClock, upTo: 4 });
        const failing = failingAfter(sql, /^drop function if exists sheaf_next_id$/m);
        await expect(install(failing, { testClock })).rejects.toThrow(/injected/);
        await install(sql, { shard, testClock });
        expect(await routines(), 'repaired').toEqual(fresh);
      }, 180_000);
    }
  },
  { only: ['mariadb'] },
);
