import { grant, install, type SqlExecutor } from '@sheaf/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeNative, expectGeneratorPath, nativePath } from '../support/generator-paths.js';
import { expectIncreasing, idsOf, pgClock } from '../support/pg-clock.js';
import { type SuiteRoles, suiteRoles } from '../support/pg-roles.js';

// The C path takes sheaf.counter's values itself and logs the counter a block of values ahead
// (docs/native.md, "The counter's WAL"); nextval() logs 32 values ahead. Its tuple keeps nextval()'s
// meaning, so both can take from it, and it refuses whom and what nextval() refuses.

interface CounterRow {
  last_value: string;
  log_cnt: string;
  is_called: boolean;
}

const counter = async (session: SqlExecutor) =>
  (await session.query<CounterRow>('select last_value, log_cnt, is_called from sheaf.counter'))[0]!;

describeNative('the counter on the native path', (db) => {
  let roles: SuiteRoles;
  beforeAll(async () => {
    roles = await suiteRoles(db(), { superuserOwner: true });
    await roles.as(roles.owner, async (owner) => {
      await install(owner, { shard: 9, native: true, testClock: true });
      await grant(owner, roles.app);
    });
    await expectGeneratorPath(db().executor, nativePath);
  });
  afterAll(async () => {
    await roles?.drop();
  });

  it('logs a block of 1,024 values ahead where nextval() logs 32', async () => {
    await db().executor.session(async (s) => {
      // One block for every call: the clock stands still past every block before.
      await pgClock.set(s, Date.now() + 5000);
      let most = 0;
      for (let i = 0; i < 100; i++) {
        await s.query('select sheaf.next_id()');
        most = Math.max(most, Number((await counter(s)).log_cnt));
      }
      await pgClock.reset(s);
      expect(most).toBeGreaterThan(32);
      expect(most).toBeLessThanOrEqual(1024);
      // The control: nextval() on the same counter logs no further than 32 ahead.
      await s.query("select setval('sheaf.counter', pg_sequence_last_value('sheaf.counter'))");
      await s.query("select nextval('sheaf.counter')");
      expect(Number((await counter(s)).log_cnt)).toBe(32);
      await s.query('select sheaf._test_reset()');
    });
  });

  it('logs the first value taken after a checkpoint, so a replay from it moves the counter past that value', async () => {
    await db().executor.session(async (s) => {
      await s.query('create extension if not exists pageinspect');
      await pgClock.set(s, Date.now() + 5000);
      // Values logged ahead are left: without the checkpoint's rule no record would follow.
      for (let i = 0; i < 3; i++) await s.query('select sheaf.next_id()');
      expect(Number((await counter(s)).log_cnt)).toBeGreaterThan(0);
      const pageAfterRedo = async () => {
        const [row] = await s.query<{ after: boolean }>(
          `select (select lsn from page_header(get_raw_page('sheaf.counter', 0))) >
             (select redo_lsn from pg_control_checkpoint()) as after`,
        );
        return row?.after;
      };
      await s.query('checkpoint');
      expect(await pageAfterRedo()).toBe(false);
      await s.query('select sheaf.next_id()');
      await pgClock.reset(s);
      expect(await pageAfterRedo()).toBe(true);
      await s.query('select sheaf._test_reset()');
    });
  });

  it('takes turns with nextval() without a gap or a repeat: C, then the PL/pgSQL version', async () => {
    await db().executor.session(async (s) => {
      // One millisecond's block holds them all: the clock stands still past every block before.
      await pgClock.set(s, Date.now() + 5000);
      const take = async (fn: string) => idsOf(await s.query<{ id: unknown }>(`select ${fn} as id`))[0]!;
      // Each version has seen the block once.
      await take('sheaf.next_id()');
      await take('sheaf._plpgsql_next_id()');
      const ids: bigint[] = [];
      for (let i = 0; i < 400; i++) ids.push(await take(i % 3 === 0 ? 'sheaf._plpgsql_next_id()' : 'sheaf.next_id()'));
      await pgClock.reset(s);
      expectIncreasing(ids);
      expect(ids.at(-1)! - ids[0]!).toBe(399n);
    });
  });

  it('refuses a role at its next call once the counter is revoked from it, in the same session', async () => {
    await roles.as(roles.app, async (app) => {
      await app.query('select sheaf.next_id()');
      await roles.as(roles.owner, (owner) => owner.query(`revoke usage on sequence sheaf.counter from ${roles.app}`));
      await expect(app.query('select sheaf.next_id()')).rejects.toThrow('permission denied for sequence counter');
      await roles.as(roles.owner, (owner) => grant(owner, roles.app));
      await app.query('select sheaf.next_id()');
    });
  });

  it('refuses a role at its next read of the block once the block is revoked from it, in the same session', async () => {
    await roles.as(roles.app, async (app) => {
      await app.query('select sheaf.next_id()');
      await roles.as(roles.owner, (owner) =>
        owner.query(`revoke select on sequence sheaf.live_block from ${roles.app}`),
      );
      // A later millisecond: the block this session saw accepts nothing, so the call reads it again.
      await pgClock.set(app, Date.now() + 10_000);
      await expect(app.query('select sheaf.next_id()')).rejects.toThrow('permission denied for sequence live_block');
      await pgClock.reset(app);
      await roles.as(roles.owner, (owner) => grant(owner, roles.app));
      await app.query('select sheaf.next_id()');
    });
  });

  it('refuses a role at its next call once the role it had the counter through is taken away', async () => {
    const member = `${roles.app}_member`;
    const sql = db().executor;
    await sql.query(`create role ${member} nosuperuser in role ${roles.app}`);
    // Everything but the counter its own, so that only the counter's check can refuse it.
    await sql.query(`grant usage on schema sheaf to ${member}`);
    await sql.query(`grant execute on function sheaf.next_id() to ${member}`);
    try {
      await roles.as(member, async (session) => {
        await session.query('select sheaf.next_id()');
        await sql.query(`revoke ${roles.app} from ${member}`);
        await expect(session.query('select sheaf.next_id()')).rejects.toThrow('permission denied for sequence counter');
      });
    } finally {
      await sql.query(`drop owned by ${member}`);
      await sql.query(`drop role ${member}`);
    }
  });

  it('refuses a read-only transaction, as nextval() does', async () => {
    await db().executor.session(async (s) => {
      await s.query('begin read only');
      try {
        await expect(s.query('select sheaf.next_id()')).rejects.toMatchObject({ code: 'READ_ONLY' });
      } finally {
        await s.query('rollback');
      }
    });
  });
});
