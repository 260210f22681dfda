import type { SqlExecutor } from '@sheaf/core';

/**
 * Resolves once `count` sessions of the current database wait for a lock (PostgreSQL), so a test
 * knows a concurrent statement is really blocked before it lets the blocker go. Fails after 10 s.
 *
 * @example
 * const pending = b.query("select sheaf.create_ticket('t')");
 * await lockWaiters(observer, 1);
 */
export async function lockWaiters(observer: SqlExecutor, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [row] = await observer.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if ((row?.n ?? 0) >= count) return;
    if (Date.now() > deadline) throw new Error(`expected ${count} sessions waiting for a lock, saw ${row?.n}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Samples, every few ms until `stop()`, how many sessions of the current database wait for a lock
 * held by backend `blocker`; `stop()` resolves to the most seen at once. A wait too short to sample
 * can slip through, so pair it with a statement timeout that fails a long one.
 *
 * @example
 * const watch = watchLockWaits(observer, holderPid);
 * await work();
 * expect(await watch.stop()).toBe(0);
 */
export function watchLockWaits(observer: SqlExecutor, blocker: number): { stop(): Promise<number> } {
  let most = 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      const [row] = await observer.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock' and $1 = any(pg_blocking_pids(pid))`,
        [blocker],
      );
      most = Math.max(most, row?.n ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  return {
    async stop() {
      running = false;
      await sampling;
      return most;
    },
  };
}
