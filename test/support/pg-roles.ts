import type { SqlExecutor } from '@sheaf/core';
import type { TestDatabase } from './database.js';

/** Roles made for one suite: unique names (roles belong to the whole server), dropped by `drop()`. */
export interface SuiteRoles {
  /** Owns schema sheaf: has CREATE on the database (or is a superuser) and installed it. */
  readonly owner: string;
  /** Gets exactly what `grant()` gives. */
  readonly app: string;
  /** Can connect and nothing more. */
  readonly stranger: string;
  /** Runs `fn` in a session acting as `role` (`set role`), reset afterwards. */
  as<T>(role: string, fn: (session: SqlExecutor) => Promise<T>, on?: SqlExecutor): Promise<T>;
  drop(): Promise<void>;
}

/**
 * Creates an owner, an application and a stranger role for the suite's database (PostgreSQL or
 * PGlite), with CREATE on the database for the owner only. `superuserOwner`: the owner is a superuser,
 * as the native path needs (only a superuser may create the extension sheaf_native).
 *
 * @example
 * const roles = await suiteRoles(db());
 * await roles.as(roles.app, (app) => app.query('select sheaf.next_id()'));
 */
export async function suiteRoles(db: TestDatabase, options: { superuserOwner?: boolean } = {}): Promise<SuiteRoles> {
  const suffix = `${db.target === 'pglite' ? 'lite' : 'pg'}_${Math.random().toString(36).slice(2, 8)}`;
  const owner = `sheaf_owner_${suffix}`;
  const app = `sheaf_app_${suffix}`;
  const stranger = `sheaf_stranger_${suffix}`;
  const sql = db.executor;
  const database = db.url ? new URL(db.url).pathname.slice(1) : 'postgres';
  await sql.query(`create role ${owner} ${options.superuserOwner ? 'superuser' : 'nosuperuser'}`);
  for (const role of [app, stranger]) await sql.query(`create role ${role} nosuperuser`);
  await sql.query(`grant create on database ${database} to ${owner}`);
  await sql.query(`grant create, usage on schema public to ${owner}`);
  await sql.query(`grant usage on schema public to ${app}, ${stranger}`);
  return {
    owner,
    app,
    stranger,
    async as(role, fn, on = sql) {
      return on.session(async (session) => {
        await session.query(`set role ${role}`);
        try {
          return await fn(session);
        } finally {
          await session.query('reset role');
        }
      });
    },
    async drop() {
      await sql.query(`drop owned by ${owner}, ${app}, ${stranger} cascade`);
      for (const role of [owner, app, stranger]) await sql.query(`drop role ${role}`);
    },
  };
}
