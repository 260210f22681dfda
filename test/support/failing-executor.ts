import type { SqlExecutor } from '@sheaf/core';

/**
 * The real executor, except that the statement matching `at` fails: before the server sees it, or
 * after the server applied it (a connection lost before the answer came back).
 *
 * @example
 * await expect(install(failingAt(executor, /^create procedure sheaf_alloc_segment/m, 'before'))).rejects.toThrow();
 */
export function failingAt(executor: SqlExecutor, at: RegExp, when: 'before' | 'after'): SqlExecutor {
  const wrap = (inner: SqlExecutor): SqlExecutor => ({
    dialect: inner.dialect,
    async query(sql, params) {
      if (!at.test(sql)) return inner.query(sql, params);
      if (when === 'after') await inner.query(sql, params);
      throw new Error(`injected failure ${when} ${sql.slice(0, 40)}`);
    },
    session: (fn) => inner.session((session) => fn(wrap(session))),
  });
  return wrap(executor);
}
