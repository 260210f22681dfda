// The online migration's schema steps against a real deadlock: an application transaction that
// locks the tables in the other order. PostgreSQL cancels one of the two; when it is the step, the
// step must start over rather than fail the migration.
import { expect, it } from 'vitest';
import { lockingTransaction, lockTables } from '../../packages/migrate/src/online/online-transaction.js';
import { describeTargets } from '../support/database.js';
import { lockWaiters } from '../support/lock-waits.js';

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

    const deadlockTimeout = '4s';

    it('gives way when an application statement that waited first closes a cycle with its later locks', async () => {
      const sql = db().executor;
      await sql.query('create table dl_customers (id integer)');
      await sql.query('create table dl_orders (id integer)');
      const blocker = await db().connect();
      const app = await db().connect();
      try {
        // Holds the swap's first lock back, so the application queues on that table before the
        // swap asks for the second one: the application's deadlock check would run first.
        await blocker.executor.query('begin');
        await blocker.executor.query('lock table dl_customers in share mode');
        await app.executor.query('begin');
        // 4 s on both sides instead of 1 s: the swap's later lock waits at most 2 s, and a slow
        // machine has that long, not 0.5 s, to close the cycle before the application's check runs.
        await app.executor.query(`set local deadlock_timeout = '${deadlockTimeout}'`);
        await app.executor.query('insert into dl_orders values (1)');
        const retried: unknown[] = [];
        const policy = {
          lockTimeoutMs: 30_000,
          attempts: 3,
          onRetry: (_: number, error: unknown) => retried.push(error),
        };
        const swap = lockingTransaction(sql, policy, async (session) => {
          await session.query(`set local deadlock_timeout = '${deadlockTimeout}'`);
          await lockTables(session, ['dl_customers', 'dl_orders'], policy);
          return 'swapped';
        });
        await waitForLockWait(sql, 'dl_customers');
        const read = app.executor.query('select count(*) from dl_customers');
        await lockWaiters(sql, 2);
        // The swap takes dl_customers and waits for dl_orders, which the application holds while it
        // waits for dl_customers: a cycle. The swap's wait ends within half of deadlock_timeout, so
        // its lock timeout ends the cycle before the application's deadlock check, due first.
        await blocker.executor.query('commit');
        await expect(read).resolves.toHaveLength(1);
        await app.executor.query('commit');
        expect(await swap).toBe('swapped');
        expect(retried.map((error) => (error as { code?: string }).code)).toEqual(['55P03']);
      } finally {
        await app.executor.query('rollback').catch(() => undefined);
        await blocker.executor.query('rollback').catch(() => undefined);
        await app.close();
        await blocker.close();
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
