import { randomBytes } from 'node:crypto';
import { mysql2Executor, type SqlExecutor } from '@sheaf/core';
import mysql from 'mysql2/promise';
import type { TestDatabase } from './database.js';

/** A MySQL/MariaDB account made for one suite (accounts belong to the whole server). */
export interface SuiteAccount {
  /** `user@%`, as mysqlAppGrants takes it. */
  readonly name: string;
  /** `'user'@'%'`, as GRANT takes it. */
  readonly sql: string;
  /** What a driver needs to log in as it to the suite's database. */
  readonly login: { host: string; port: number; user: string; password: string; database: string };
  /** Runs `fn` on a connection of its own, logged in as this account, closed afterwards. */
  as<T>(fn: (session: SqlExecutor, connection: mysql.Connection) => Promise<T>): Promise<T>;
}

/** Accounts of one suite's database; `drop()` removes every one made. */
export interface SuiteAccounts {
  create(label: string): Promise<SuiteAccount>;
  drop(): Promise<void>;
}

/**
 * Makes accounts with unique names and random passwords that can log in to the suite's MariaDB
 * database; grant them what a test needs.
 *
 * @example
 * const accounts = suiteAccounts(db());
 * const app = await accounts.create('app');
 * await db().executor.query(`grant execute on function sheaf_next_id to ${app.sql}`);
 */
export function suiteAccounts(db: TestDatabase): SuiteAccounts {
  const made: string[] = [];
  const url = new URL(String(db.url));
  return {
    async create(label) {
      const user = `sheaf_${label}_${randomBytes(4).toString('hex')}`;
      const password = randomBytes(12).toString('hex');
      const sql = `'${user}'@'%'`;
      await db.executor.query(`create user ${sql} identified by '${password}'`);
      made.push(sql);
      const login = {
        host: url.hostname,
        port: Number(url.port || 3306),
        user,
        password,
        database: url.pathname.slice(1),
      };
      return {
        name: `${user}@%`,
        sql,
        login,
        async as(fn) {
          const connection = await mysql.createConnection({
            ...login,
            supportBigNumbers: true,
            bigNumberStrings: true,
          });
          try {
            return await fn(mysql2Executor(connection), connection);
          } finally {
            await connection.end();
          }
        },
      };
    },
    async drop() {
      for (const sql of made.splice(0)) await db.executor.query(`drop user if exists ${sql}`);
    },
  };
}
