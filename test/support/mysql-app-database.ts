import { mysql2Executor, type SqlExecutor } from '@sheaf/core';
import mysql from 'mysql2/promise';
import type { TestDatabase } from './database.js';
import type { SuiteAccount } from './mysql-accounts.js';

/** One more application database on the suite's MariaDB server, beside the suite's own. */
export interface AppDatabase {
  readonly name: string;
  /** `` `name` `` */
  readonly sql: string;
  /** `` `sheaf_name` ``, where sheaf keeps its state from SQL version 12 on. */
  readonly stateSql: string;
  /** A root connection whose current database is this one. */
  readonly root: SqlExecutor;
  /** Runs `fn` on a connection of its own to this database, as root or as `account`. */
  as<T>(account: SuiteAccount | null, fn: (session: SqlExecutor) => Promise<T>): Promise<T>;
  /** Drops this database and sheaf's beside it. */
  drop(): Promise<void>;
}

const options = { supportBigNumbers: true, bigNumberStrings: true };

/** Creates database `<suite database>_<suffix>`; accounts log in to it with their own password. */
export async function appDatabase(suite: TestDatabase, suffix: string): Promise<AppDatabase> {
  const url = new URL(String(suite.url));
  const name = `${url.pathname.slice(1)}_${suffix}`;
  const root = await mysql.createConnection({ uri: String(suite.url), ...options });
  await root.query(`create database \`${name}\``);
  await root.query(`use \`${name}\``);
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    name,
    sql: `\`${name}\``,
    stateSql: `\`sheaf_${name}\``,
    root: mysql2Executor(root),
    async as(account, fn) {
      const connection = account
        ? await mysql.createConnection({ ...account.login, database: name, ...options })
        : await mysql.createConnection({ uri: String(own), ...options });
      try {
        return await fn(mysql2Executor(connection));
      } finally {
        await connection.end();
      }
    },
    async drop() {
      await root.query(`drop database if exists \`${name}\``);
      await root.query(`drop database if exists \`sheaf_${name}\``);
      await root.end();
    },
  };
}
