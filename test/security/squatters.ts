import type { SqlExecutor } from '@sheaf/core';
import type { TestDatabase } from '../support/database.js';

/** A role that could create sheaf's objects before sheaf's owner does. */
export interface Squatter {
  readonly role: string;
  /** How it came by CREATE on the database, for test titles. */
  readonly kind: 'application role' | 'database owner';
}

/** The suite's squatters: unique names (roles belong to the whole server), dropped by `drop()`. */
export interface Squatters {
  readonly all: readonly Squatter[];
  /** Runs `fn` in a session acting as `role` (`set role`), reset afterwards. */
  as<T>(role: string, fn: (session: SqlExecutor) => Promise<T>): Promise<T>;
  drop(): Promise<void>;
}

/**
 * An application role with CREATE on the database (an app that runs its own migrations; tests give
 * it what `grant()` sets up once sheaf is installed) and a role that owns the database.
 *
 * @example
 * const squat = await squatters(db());
 * for (const { role } of squat.all) await squat.as(role, (s) => s.query('create schema sheaf'));
 */
export async function squatters(db: TestDatabase): Promise<Squatters> {
  const suffix = `${db.target === 'pglite' ? 'lite' : 'pg'}_${Math.random().toString(36).slice(2, 8)}`;
  const app = `sheaf_squat_app_${suffix}`;
  const owner = `sheaf_squat_dbo_${suffix}`;
  const database = db.url ? new URL(db.url).pathname.slice(1) : 'postgres';
  const sql = db.executor;
  await sql.query(`create role ${app} nosuperuser`);
  await sql.query(`create role ${owner} nosuperuser`);
  await sql.query(`grant create on database ${database} to ${app}`);
  await sql.query(`alter database ${database} owner to ${owner}`);
  return {
    all: [
      { role: app, kind: 'application role' },
      { role: owner, kind: 'database owner' },
    ],
    as: (role, fn) =>
      sql.session(async (session) => {
        await session.query(`set role ${role}`);
        try {
          return await fn(session);
        } finally {
          await session.query('reset role');
        }
      }),
    async drop() {
      await sql.query(`alter database ${database} owner to current_user`);
      await sql.query(`drop owned by ${app}, ${owner} cascade`);
      await sql.query(`drop role ${app}`);
      await sql.query(`drop role ${owner}`);
    },
  };
}

/** Removes every trace of sheaf from the database, as a superuser, for the next case. */
export async function removeSheaf(sql: SqlExecutor): Promise<void> {
  await sql.query('drop schema if exists sheaf cascade');
  await sql.query('drop extension if exists sheaf_native cascade');
}
