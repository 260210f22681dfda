import { auditGrants, decodeId, grant, install, type SqlExecutor } from '@sheaf/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { describeGeneratorPaths, expectGeneratorPath, nativePath } from '../support/generator-paths.js';
import { idsOf } from '../support/pg-clock.js';
import { type SuiteRoles, suiteRoles } from '../support/pg-roles.js';

/** The SQLSTATE a refused statement failed with. */
async function refusal(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  return (error as { code?: string } | undefined)?.code ?? cause?.code ?? (error ? 'error' : undefined);
}

const shard = 5;
const shardsOf = (ids: readonly bigint[]) => new Set(ids.map((id) => decodeId(id).shardId));

// Every reproduction of the least-privilege findings, replayed as the application role that
// `grant()` sets up and as a role that can merely connect, on a production install.
describeGeneratorPaths(
  'least privilege on PostgreSQL',
  (db, target, path) => {
    let roles: SuiteRoles;

    beforeAll(async () => {
      // Only a superuser may create sheaf_native: the native path's owner is one.
      roles = await suiteRoles(db(), { superuserOwner: path === nativePath });
      await roles.as(roles.owner, async (owner) => {
        await install(owner, { shard, ...path.install(target) });
        await owner.query('create table orders (id bigint primary key default sheaf.next_id(), n integer)');
        await owner.query(`grant insert, select on orders to ${roles.app}`);
        await grant(owner, roles.app);
      });
      await expectGeneratorPath(db().executor, path);
    });
    afterAll(async () => {
      await roles?.drop();
    });

    it('PUBLIC can execute no function of schema sheaf', async () => {
      const rows = await db().executor.query<{ fn: string }>(
        `select p.oid::regprocedure::text as fn
         from pg_proc p cross join lateral aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
         where p.pronamespace = 'sheaf'::regnamespace and a.grantee = 0`,
      );
      expect(rows.map((row) => row.fn)).toEqual([]);
    });

    it('the application role cannot move the generator sequences', async () => {
      await roles.as(roles.app, async (app) => {
        expect(await refusal(app.query("select nextval('sheaf.block')"))).toBe('42501');
        expect(await refusal(app.query("select setval('sheaf.counter', 0)"))).toBe('42501');
        expect(await refusal(app.query("select setval('sheaf.block', 0)"))).toBe('42501');
      });
    });

    it('a block moved past its shard never hands out another shard’s ids', async () => {
      // What a role left with USAGE on sheaf.block (the grants documented before version 8) did.
      await roles.as(roles.owner, (owner) =>
        owner.query("do $$ begin for i in 1..3000 loop perform nextval('sheaf.block'); end loop; end $$"),
      );
      const ids = await roles.as(roles.app, async (app) =>
        idsOf(await app.query<{ id: unknown }>('select sheaf.next_id() as id from generate_series(1, 5000)')),
      );
      expect(new Set(ids).size).toBe(5000);
      expect(shardsOf(ids)).toEqual(new Set([shard]));
    });

    it('install() narrows the grants documented before version 8', async () => {
      const legacy = `${roles.app}_legacy`;
      await db().executor.query(`create role ${legacy} nosuperuser`);
      try {
        await roles.as(roles.owner, async (owner) => {
          await owner.query(`grant usage on schema sheaf to ${legacy}`);
          await owner.query(`grant usage, select on all sequences in schema sheaf to ${legacy}`);
          await install(owner);
        });
        await roles.as(legacy, async (app) => {
          expect(await refusal(app.query("select nextval('sheaf.block')"))).toBe('42501');
          const ids = idsOf(await app.query<{ id: unknown }>('select sheaf.next_id() as id'));
          expect(shardsOf(ids)).toEqual(new Set([shard]));
        });
      } finally {
        await db().executor.query(`drop owned by ${legacy}`);
        await db().executor.query(`drop role ${legacy}`);
      }
    });

    it('the application role reaches no reservation ahead of the clock', async () => {
      await roles.as(roles.app, async (app) => {
        expect(await refusal(app.query('select sheaf._open_block(1000000)'))).toBe('42501');
        await app.query('select sheaf._next_block() from generate_series(1, 5000)');
      });
      const [row] = await db().executor.query<{ ahead: string }>(
        `select (pg_sequence_last_value('sheaf.block') >> 22)
           - (floor(extract(epoch from clock_timestamp()) * 1000)::bigint - 1704067200000) as ahead`,
      );
      // 5,000 ids are five blocks of 1,024: at most that far ahead beyond the 7 ms a hot block
      // leads, not 5,000 reservations.
      expect(Number(row?.ahead)).toBeLessThanOrEqual(7 + 6);
    });

    it('a stranger who can only connect calls nothing and reads nothing', async () => {
      await roles.as(roles.stranger, async (stranger) => {
        for (const statement of [
          'select sheaf.next_id()',
          'select sheaf._open_block(1)',
          'select * from sheaf.lock_secret',
          'select * from sheaf.workers',
          "select pg_sequence_last_value('sheaf.block')",
        ]) {
          expect(await refusal(stranger.query(statement)), statement).toBe('42501');
        }
      });
    });

    it('the application role cannot configure sheaf or read its tables', async () => {
      await roles.as(roles.app, async (app) => {
        for (const statement of [
          'select sheaf.configure(9)',
          'select sheaf.add_shard(9)',
          "select sheaf.create_ticket('x')",
          "select sheaf.create_segment('x')",
          'select * from sheaf.settings',
          'select * from sheaf.lock_secret',
          'select * from sheaf.workers',
          'update sheaf.workers set expires_at = null',
          'update sheaf.segments set max_id = 0',
        ]) {
          expect(await refusal(app.query(statement)), statement).toBe('42501');
        }
      });
      const [row] = await db().executor.query<{ shard_id: number }>('select shard_id from sheaf.settings');
      expect(row?.shard_id).toBe(shard);
    });

    it('tickets, segments and worker leases work through functions; a lease token stays with its holder', async () => {
      await roles.as(roles.owner, async (owner) => {
        await owner.query("select sheaf.create_ticket('orders', 2, 1)");
        await owner.query("select sheaf.create_segment('orders', 100)");
      });
      await roles.as(roles.app, async (app) => {
        const [ticket] = await app.query<{ t: string }>("select sheaf.next_ticket('orders') as t");
        expect(Number(ticket?.t) % 2).toBe(1);
        const [range] = await app.query<{ first_id: string; last_id: string }>(
          "select first_id::text, last_id::text from sheaf.alloc_segment('orders')",
        );
        expect([range?.first_id, range?.last_id]).toEqual(['1', '100']);
        const [lease] = await app.query<{ worker_id: number; lease_token: string }>(
          "select worker_id, lease_token::text from sheaf.lease_worker('a', 60000, 10)",
        );
        const [other] = await app.query<{ worker_id: number; lease_token: string }>(
          "select worker_id, lease_token::text from sheaf.lease_worker('b', 60000, 10)",
        );
        expect(other?.worker_id).not.toBe(lease?.worker_id);
        await app.query('select sheaf.heartbeat_worker($1, $2::uuid, 1, 60000)', [
          lease?.worker_id,
          lease?.lease_token,
        ]);
        // Another holder's token cannot be read, and guessing wrong changes nothing.
        expect(await refusal(app.query('select lease_token from sheaf.workers'))).toBe('42501');
        const [wrong] = await app.query<{ closed: boolean }>(
          'select sheaf.close_worker($1, gen_random_uuid(), 0) as closed',
          [other?.worker_id],
        );
        expect(wrong?.closed).toBe(false);
        const [closed] = await app.query<{ closed: boolean }>('select sheaf.close_worker($1, $2::uuid, 7) as closed', [
          lease?.worker_id,
          lease?.lease_token,
        ]);
        expect(closed?.closed).toBe(true);
      });
      const rows = await db().executor.query<{ worker_id: number; holder: string | null; last: string }>(
        "select worker_id, holder, last_timestamp_ms::text as last from sheaf.workers where kind = 'worker' order by worker_id",
      );
      expect(rows.map((row) => [row.holder, row.last])).toEqual([
        [null, '7'],
        ['b', '0'],
      ]);
    });

    it('next_id(shard) issues only shards this database was given', async () => {
      await roles.as(roles.app, async (app) => {
        await expectSheafRejection(app.query('select sheaf.next_id(6)'), 'SHARD_NOT_OWNED', 'shard 6', 'add_shard(6)');
        await expectSheafRejection(app.query('select sheaf.next_ids(600, 6)'), 'SHARD_NOT_OWNED', 'shard 6');
        await expectSheafRejection(app.query('select sheaf.next_id_durable(7)'), 'SHARD_NOT_OWNED', 'shard 7');
      });
      await roles.as(roles.owner, (owner) => owner.query('select sheaf.add_shard(6)'));
      await roles.as(roles.app, async (app) => {
        const single = idsOf(await app.query<{ id: unknown }>('select sheaf.next_id(6) as id'));
        const batch = idsOf(await app.query<{ id: unknown }>('select sheaf.next_ids(600, 6) as id'));
        const own = idsOf(await app.query<{ id: unknown }>('select sheaf.next_id(5) as id'));
        expect(shardsOf([...single, ...batch])).toEqual(new Set([6]));
        expect(shardsOf(own)).toEqual(new Set([5]));
        await expectSheafRejection(app.query('select sheaf.next_id(7)'), 'SHARD_NOT_OWNED', 'logical shards 6');
      });
    });

    it('a production install has no test hooks', async () => {
      const rows = await db().executor.query<{ fn: string }>(
        "select proname::text as fn from pg_proc where pronamespace = 'sheaf'::regnamespace and proname like '%test%'",
      );
      expect(rows).toEqual([]);
    });

    it('auditGrants names every privilege broader than an application’s, and none of grant()’s', async () => {
      const sql = db().executor;
      expect(await auditGrants(sql)).toEqual([]);
      const configure = 'sheaf.configure(integer, text, bigint, integer, integer, integer, boolean)';
      await roles.as(roles.owner, async (owner) => {
        await owner.query(`grant usage on sequence sheaf.block to ${roles.stranger}`);
        await owner.query(`grant select on sheaf.workers to ${roles.app}`);
        await owner.query(`grant execute on function ${configure} to public`);
      });
      try {
        const findings = await auditGrants(sql);
        expect(findings).toEqual(
          expect.arrayContaining([
            { grantee: roles.stranger, privilege: 'usage', object: 'sequence sheaf.block' },
            { grantee: roles.app, privilege: 'select', object: 'table sheaf.workers' },
            { grantee: 'PUBLIC', privilege: 'execute', object: expect.stringMatching(/^function sheaf\.configure\(/) },
          ]),
        );
        expect(findings).toHaveLength(3);
      } finally {
        await roles.as(roles.owner, async (owner) => {
          await owner.query(`revoke all on sequence sheaf.block from ${roles.stranger}`);
          await owner.query(`revoke all on sheaf.workers from ${roles.app}`);
          await owner.query(`revoke all on function ${configure} from public`);
        });
      }
      expect(await auditGrants(sql)).toEqual([]);
    });

    it('grant() refuses the owner, PUBLIC and unknown roles, and a dry run changes nothing', async () => {
      const sql: SqlExecutor = db().executor;
      await expectSheafRejection(grant(sql, roles.owner), 'INVALID_ARGUMENT', 'owns schema sheaf');
      await expectSheafRejection(grant(sql, 'public'), 'INVALID_ARGUMENT', 'PUBLIC');
      await expectSheafRejection(grant(sql, 'no_such_role_x'), 'INVALID_ARGUMENT', 'does not exist');
      const { statements, applied } = await grant(sql, roles.stranger, { dryRun: true });
      expect(applied).toBe(false);
      expect(statements).toContain(`grant usage on schema sheaf to "${roles.stranger}"`);
      await roles.as(roles.stranger, async (stranger) => {
        expect(await refusal(stranger.query('select sheaf.next_id()'))).toBe('42501');
      });
    });
  },
  { only: ['postgres', 'pglite'] },
);
