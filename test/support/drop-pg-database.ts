import type pg from 'pg';

/**
 * Drops a PostgreSQL database once its sessions have gone. `pool.end()` and Prisma's `$disconnect()`
 * resolve before every backend has exited; forcing the drop then would terminate one mid-close, and
 * its client, no longer listening, would raise the FATAL as an unhandled error. The wait is bounded:
 * a session that outlives it is a leak the forced drop then ends.
 */
export async function dropPgDatabase(admin: pg.Client, name: string, maxWaitMs = 5000): Promise<void> {
  for (let waited = 0; waited < maxWaitMs; waited += 20) {
    const { rows } = await admin.query<{ n: number }>(
      'select count(*)::int as n from pg_stat_activity where datname = $1',
      [name],
    );
    if (rows[0]?.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await admin.query(`drop database if exists ${name} with (force)`);
}
