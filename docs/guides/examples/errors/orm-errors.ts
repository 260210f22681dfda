// docs/errors.md: an error that sheaf's SQL raised in a query of your own, through Prisma, Drizzle,
// Knex or a driver, as a SheafError. The tests run these with each ORM (test/integration/error-story.test.ts).
import { fromDatabaseError, isSheafError, type SheafErrorCode } from '@sheaf/core';
import { type SQL, sql } from 'drizzle-orm';

/** Runs a query; what sheaf's SQL raised in it (a column default, a trigger, a sheaf function) rejects as a SheafError. */
export async function withSheafErrors<T>(query: () => PromiseLike<T>): Promise<T> {
  try {
    return await query();
  } catch (error) {
    throw fromDatabaseError(error);
  }
}

/** The sheaf code inside any error (Prisma's, Drizzle's, Knex's, a driver's), or undefined. */
export function sheafCodeOf(error: unknown): SheafErrorCode | undefined {
  const converted = fromDatabaseError(error);
  return isSheafError(converted) ? converted.code : undefined;
}

/** A Drizzle database on PostgreSQL or PGlite: what `execute` is called on here. */
interface PgDrizzle {
  execute(query: SQL): PromiseLike<{ rows: unknown[] }>;
}

/** An id made on a shard a client asked for: a shard this database does not issue is the client's mistake (400). */
export async function idOnShard(db: PgDrizzle, shard: number): Promise<{ status: number; body: string }> {
  try {
    const { rows } = await db.execute(sql`select sheaf.next_id(${shard})::text as id`);
    return { status: 200, body: (rows[0] as { id: string }).id };
  } catch (error) {
    const converted = fromDatabaseError(error);
    if (isSheafError(converted, 'SHARD_OUT_OF_RANGE') || isSheafError(converted, 'SHARD_NOT_OWNED')) {
      return { status: 400, body: converted.message };
    }
    throw converted;
  }
}
