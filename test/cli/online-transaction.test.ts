// The online migration's schema steps against a real deadlock: an application transaction that
// locks the tables in the other order. PostgreSQL cancels one of the two; when it is the step, the
// step must start over rather than fail the migration.
import { expect, it } from 'vitest';
import { lockingTransaction } from '../../packages/migrate/src/online/online-transaction.js';
import { describeTargets } from '../support/database.js';

describeTargets(
  'lockingTransaction',
  (db) => {
    it('runs a step again after PostgreSQL chose it as a deadlock victim', async () => {
      const sql = db().executor;
      await sql.query('create table dl_a (id integer)');
      await sql.query('create table dl_b (id integer)');
      const app = await db().connect();
      try {
        await app.executor.query('begin');
        // The step's session keeps the default 1 s: it finds the deadlock first and is the victim.
        await app.executor.query("set local deadlock_timeout = '30s'");
        await app.executor.query('insert into dl_a values (1)');
        const retried: unknown[] = [];
        const policy = {
          lockTimeoutMs: 30_000,
          attempts: 3,
          onRetry: (_: number, error: unknown) => retried.push(error),
        };
        const step = lockingTransaction(sql, policy, async (session) => {
          await session.query('lock table dl_b in access exclusive mode');
          await session.query('lock table dl_a in access exclusive mode');
          return 'swapped';
        });
        await waitForLockWait(sql, 'dl_a');
        // The application now needs dl_b, which the step holds: a deadlock.
        await app.executor.query('insert into dl_b values (1)');
        await app.executor.query('commit');
        expect(await step).toBe('swapped');
        expect(retried.map((error) => (error as { code?: string }).code)).toEqual(['40P01']);
      } finally {
        await app.executor.query('rollback').catch(() => undefined);
        await app.close();
      }
    });
  },
  { only: ['postgres'] },
);

async function waitForLockWait(sql: { query<R extends object>(text: string): Promise<R[]> }, table: string) {
  for (let i = 0; i < 200; i++) {
    const [row] = await sql.query<{ n: number }>(
      `select count(*)::int as n from pg_locks where relation = '${table}'::regclass and not granted`,
    );
    if ((row?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nobody waited for a lock on ${table}`);
}
