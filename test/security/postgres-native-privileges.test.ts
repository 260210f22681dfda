import { auditGrants, decodeId, grant, install } from '@sheaf/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { describeNative, expectGeneratorPath, nativePath, takeIds as take } from '../support/generator-paths.js';
import { expectDistinct, idsOf } from '../support/pg-clock.js';
import { type SuiteRoles, suiteRoles } from '../support/pg-roles.js';

// Who may take ids on the native path: what grant() gives, before or after the switch; nobody else.
describeNative('privileges on the native path', (db) => {
  let roles: SuiteRoles;
  let early: string;
  beforeAll(async () => {
    // Only a superuser may create sheaf_native (it is not trusted).
    roles = await suiteRoles(db(), { superuserOwner: true });
    early = `${roles.app}_early`;
    await db().executor.query(`create role ${early} nosuperuser`);
    await roles.as(roles.owner, async (owner) => {
      await install(owner, { shard: 5, native: false });
      await owner.query('create table orders (id bigint primary key default sheaf.next_id(), n integer)');
      await owner.query(`grant insert, select on orders to ${early}, ${roles.app}`);
      await owner.query('select sheaf.add_shard(6)');
      // Granted while PL/pgSQL runs: the switch must give it the C functions too.
      await grant(owner, early);
    });
  });
  afterAll(async () => {
    await db().executor.query(`drop owned by ${early}`);
    await db().executor.query(`drop role ${early}`);
    await roles?.drop();
  });

  /** Every way an application takes ids; all must work as `role` and give ids of shards 5 and 6. */
  async function takesIds(role: string): Promise<bigint[]> {
    return roles.as(role, async (app) => {
      const ids = [
        ...(await take(app, 300)),
        ...(await take(app, 300, 'sheaf.next_id(6)')),
        ...idsOf(await app.query<{ id: unknown }>('select sheaf.next_ids(20) as id')),
        ...idsOf(await app.query<{ id: unknown }>('select sheaf.next_ids(2000, 6) as id')),
        ...idsOf(
          await app.query<{ id: unknown }>('insert into orders (n) select 1 from generate_series(1, 300) returning id'),
        ),
      ];
      expect(new Set(ids.map((id) => decodeId(id).shardId))).toEqual(new Set([5, 6]));
      return ids;
    });
  }

  it('a role granted before the switch, and one granted after, take ids; a stranger gets permission denied', async () => {
    await roles.as(roles.owner, (owner) => install(owner, { native: true }));
    await expectGeneratorPath(db().executor, nativePath);
    await roles.as(roles.owner, (owner) => grant(owner, roles.app));
    const ids = [...(await takesIds(early)), ...(await takesIds(roles.app))];
    // Back to PL/pgSQL and native again: the extension's functions are new, the grants follow.
    await roles.as(roles.owner, (owner) => install(owner, { native: false }));
    ids.push(...(await takesIds(early)));
    await roles.as(roles.owner, (owner) => install(owner, { native: true }));
    ids.push(...(await takesIds(early)), ...(await takesIds(roles.app)));
    expectDistinct(ids);
    await roles.as(roles.stranger, async (stranger) => {
      for (const statement of [
        'select sheaf.next_id()',
        'select sheaf.next_id(5)',
        'select sheaf._native_next_id()',
        'select sheaf._native_next_id(5)',
      ]) {
        const error = await stranger.query(statement).catch((caught: unknown) => caught);
        const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
        expect(code, statement).toBe('42501');
      }
    });
  });

  it('auditGrants finds nothing beyond grant() on the native path', async () => {
    await expectGeneratorPath(db().executor, nativePath);
    expect(await auditGrants(db().executor)).toEqual([]);
    const [row] = await db().executor.query<{ app: boolean; stranger: boolean }>(
      `select has_function_privilege($1, 'sheaf._native_next_id(integer)', 'execute') as app,
           has_function_privilege($2, 'sheaf._native_next_id(integer)', 'execute') as stranger`,
      [roles.app, roles.stranger],
    );
    expect(row).toEqual({ app: true, stranger: false });
  });

  it('the settings load runs no code of the caller’s as the owner (a pg_temp type named like a built-in)', async () => {
    const connection = await db().connect();
    try {
      const app = connection.executor;
      await app.query(`set role ${roles.app}`);
      // Temporary types are found before pg_catalog's by an unqualified name: int8 would be this one.
      await app.query(`create function pg_temp.as_owner(v text) returns boolean language plpgsql as $$
          begin
            if current_user <> '${roles.app}' then
              raise exception 'caller code ran as %', current_user;
            end if;
            return true;
          end $$`);
      await app.query('create domain pg_temp.int8 as text check (pg_temp.as_owner(value))');
      await app.query('create domain pg_temp.int4 as text check (pg_temp.as_owner(value))');
      // A new backend: its first native call loads the settings.
      const ids = [...(await take(app, 10)), ...(await take(app, 10, 'sheaf.next_id(6)'))];
      expect(new Set(ids.map((id) => decodeId(id).shardId))).toEqual(new Set([5, 6]));
      await expectSheafRejection(
        app.query('select sheaf.next_id(7)'),
        'SHARD_NOT_OWNED',
        '(shard 5, logical shards 6)',
      );
    } finally {
      await connection.close();
    }
  });
});
