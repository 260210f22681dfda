import type { SqlExecutor } from '@sheaf/core';

/** How long a DDL transaction may wait for a table lock, and how often it tries. */
export interface LockPolicy {
  /** Per lock wait, in milliseconds: while it waits, every later query on the table queues behind it. */
  readonly lockTimeoutMs: number;
  /** Attempts in all before the lock timeout is reported. */
  readonly attempts: number;
  /** Called before each retry, e.g. to print why the run is waiting. */
  readonly onRetry?: (attempt: number, error: unknown) => void;
}

/**
 * lock_not_available (lock_timeout expired) and deadlock_detected: either way the server rolled the
 * whole transaction back, so running it again from the start is safe. A deadlock is the swap
 * meeting an application transaction that locks the same tables in another order (an insert
 * checking a foreign key takes a lock on the referenced table).
 */
const retryable = new Set(['55P03', '40P01']);

/**
 * Runs `work` in one transaction with `lock_timeout` set, retrying it from the start (after a growing
 * pause) when a lock was not granted in time or a deadlock cancelled it, so a long-running query on the table delays the
 * migration instead of stalling the application's queries queued behind the migration's lock request.
 */
export async function lockingTransaction<T>(
  executor: SqlExecutor,
  policy: LockPolicy,
  work: (session: SqlExecutor) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction(executor, async (session) => {
        await setLockTimeout(session, policy.lockTimeoutMs);
        return work(session);
      });
    } catch (error) {
      if (!isLockConflict(error) || attempt >= policy.attempts) throw error;
      policy.onRetry?.(attempt, error);
      await sleep(Math.min(200 * 2 ** attempt, 10_000));
    }
  }
}

/**
 * Takes ACCESS EXCLUSIVE locks on `tables` (qualified, quoted names) inside a
 * {@link lockingTransaction}. Only the first lock waits as the policy allows: while it holds one,
 * the transaction waits for the others at most half the server's deadlock_timeout in all. An
 * application statement that holds a later table and waits for an earlier one (an insert into
 * `orders` reading `customers`) closes a cycle with it; the lock timeout then ends the cycle, and
 * the transaction is tried again, before the application's own deadlock check could cancel the
 * application's statement.
 */
export async function lockTables(session: SqlExecutor, tables: readonly string[], policy: LockPolicy): Promise<void> {
  const [first, ...rest] = tables;
  if (first === undefined) return;
  await session.query(`lock table ${first} in access exclusive mode`);
  if (rest.length === 0) return;
  const [row] = await session.query<{ ms: number }>(
    `select setting::integer as ms from pg_settings where name = 'deadlock_timeout'`,
  );
  await setLockTimeout(session, (row?.ms ?? 1000) / 2 / rest.length);
  await session.query(`lock table ${rest.join(', ')} in access exclusive mode`);
  await setLockTimeout(session, policy.lockTimeoutMs);
}

/** `lock_timeout` for the rest of the transaction, in whole milliseconds, at least 1 (0 would mean none). */
async function setLockTimeout(session: SqlExecutor, ms: number): Promise<void> {
  await session.query(`set local lock_timeout = ${Math.max(1, Math.floor(ms))}`);
}

/** Runs `work` between `begin` and `commit` on one connection; rolls back when it throws. */
export function transaction<T>(executor: SqlExecutor, work: (session: SqlExecutor) => Promise<T>): Promise<T> {
  return executor.session(async (session) => {
    await session.query('begin');
    try {
      const result = await work(session);
      await session.query('commit');
      return result;
    } catch (error) {
      await session.query('rollback').catch(() => undefined);
      throw error;
    }
  });
}

/** Whether `error` is PostgreSQL's lock timeout or a deadlock this transaction lost. */
function isLockConflict(error: unknown): boolean {
  return retryable.has(String((error as { code?: unknown } | null)?.code));
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Why {@link lockingTransaction} is retrying, for the progress output. */
export function lockConflict(error: unknown): string {
  return (error as { code?: unknown } | null)?.code === '40P01'
    ? 'a deadlock with another transaction rolled the step back'
    : 'a table lock was not granted in time';
}
