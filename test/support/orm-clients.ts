import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import { sheaf } from '@sheaf/prisma';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzleMysql } from 'drizzle-orm/mysql2';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import mariadb from 'mariadb';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient as MysqlClient } from '../.generated/prisma/mysql/client.js';
import { PrismaClient as PgClient } from '../.generated/prisma/postgres/client.js';
import type { TestDatabase } from './database.js';

/** The clients an application talks to a test database with, none of them through sheaf's executors. */
export interface OrmClients {
  /** Each driver of the target, by name, running one statement. */
  readonly drivers: Readonly<Record<string, (sql: string) => Promise<unknown>>>;
  readonly drizzle: { execute(query: SQL): PromiseLike<unknown> };
  /** The generated client of the example schema (the PostgreSQL type stands for both). */
  readonly prisma: PgClient;
  /** The same client with the sheaf extension (no model assigns ids in the application). */
  readonly extended: ReturnType<typeof withExtension>;
  close(): Promise<void>;
}

const withExtension = (prisma: PgClient) => prisma.$extends(sheaf({ models: {} }));

/** Opens every client on `db`; `close()` ends them, leaving `db` itself to its owner. */
export function ormClients(db: TestDatabase): OrmClients {
  if (db.target === 'pglite') {
    const pglite = db.pglite!;
    const prisma = new PgClient({ adapter: new PrismaPGlite(pglite) });
    return {
      drivers: { pglite: (sql) => pglite.query(sql) },
      drizzle: drizzlePglite(pglite),
      prisma,
      extended: withExtension(prisma),
      close: () => prisma.$disconnect(),
    };
  }
  if (db.target === 'postgres') {
    const pool = new pg.Pool({ connectionString: db.url });
    const prisma = new PgClient({ adapter: new PrismaPg({ connectionString: db.url! }) });
    return {
      drivers: { pg: (sql) => pool.query(sql) },
      drizzle: drizzlePg(pool),
      prisma,
      extended: withExtension(prisma),
      close: async () => {
        await prisma.$disconnect();
        await pool.end();
      },
    };
  }
  const mysql2Pool = mysql.createPool({ uri: db.url!, connectionLimit: 2 });
  const mariadbPool = mariadb.createPool({ ...mariadbConfig(db.url!), connectionLimit: 2 });
  const prisma = new MysqlClient({
    adapter: new PrismaMariaDb(db.url!.replace(/^mysql:/, 'mariadb:')),
  }) as unknown as PgClient;
  return {
    drivers: { mysql2: (sql) => mysql2Pool.query(sql), mariadb: (sql) => mariadbPool.query(sql) },
    drizzle: drizzleMysql(mysql2Pool),
    prisma,
    extended: withExtension(prisma),
    close: async () => {
      await prisma.$disconnect();
      await mysql2Pool.end();
      await mariadbPool.end();
    },
  };
}

function mariadbConfig(url: string) {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 3306),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: parsed.pathname.slice(1),
  };
}

/** What a promise rejected with; fails when it resolved. */
export async function rejectionOf(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}
