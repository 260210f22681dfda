import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';

describeTargets('connectivity', (db) => {
  it('runs a query with parameters in its own database', async () => {
    const { executor } = db();
    const sql = `select ${executor.dialect.placeholder(1)} + 1 as answer`;
    const [row] = await executor.query<{ answer: unknown }>(sql, [41]);
    expect(Number(row?.answer)).toBe(42);
  });

  it('returns 64-bit integers without losing precision', async () => {
    const { executor } = db();
    const type = executor.dialect.name === 'postgres' ? 'bigint' : 'signed';
    const [row] = await executor.query<{ big: unknown }>(`select cast(9223372036854775807 as ${type}) as big`);
    expect(String(row?.big)).toBe('9223372036854775807');
  });

  it('keeps a session on one connection', async () => {
    const { executor } = db();
    const set =
      executor.dialect.name === 'postgres' ? "select set_config('sheaf.probe', '7', false)" : 'set @sheaf_probe = 7';
    const get =
      executor.dialect.name === 'postgres' ? "select current_setting('sheaf.probe') as v" : 'select @sheaf_probe as v';
    const value = await executor.session(async (session) => {
      await session.query(set);
      const [row] = await session.query<{ v: unknown }>(get);
      return String(row?.v);
    });
    expect(value).toBe('7');
  });

  it('is a database of its own, empty of user tables', async () => {
    const { executor } = db();
    const sql =
      executor.dialect.name === 'postgres'
        ? "select count(*) as n from information_schema.tables where table_schema = 'public'"
        : 'select count(*) as n from information_schema.tables where table_schema = database()';
    const [row] = await executor.query<{ n: unknown }>(sql);
    expect(Number(row?.n)).toBe(0);
  });
});
