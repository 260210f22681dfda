import { decodeId, install, pgExecutor, SnowflakeGenerator, type SqlExecutor } from '@sheaf/core';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeTargets, type Opened, openDatabase } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';

interface Holding {
  worker_id: number;
  kind: string;
  database_id: string | null;
  holder: string | null;
  pending: boolean;
  last_ms: string;
}

/** Every row of the id space, by value. */
async function holdings(executor: SqlExecutor): Promise<Holding[]> {
  return executor.query<Holding>(
    `select worker_id, kind, database_id::text as database_id, holder, coalesce(expires_at = 'infinity', false) as pending,
      last_timestamp_ms::text as last_ms from sheaf.workers order by worker_id`,
  );
}

async function settings(executor: SqlExecutor) {
  const [row] = await executor.query<{
    shard_id: number;
    database_id: string;
    database_name: string;
    registry: string;
  }>('select shard_id, database_id::text as database_id, database_name, registry from sheaf.settings');
  return row!;
}

async function leaseAny(executor: SqlExecutor, holder = 'test'): Promise<number> {
  const [row] = await executor.query<{ worker_id: number }>(
    'select worker_id from sheaf.lease_worker($1, 60000, 4095)',
    [holder],
  );
  return row!.worker_id;
}

async function schemaExists(executor: SqlExecutor): Promise<boolean> {
  const [row] = await executor.query<{ present: boolean }>("select to_regnamespace('sheaf') is not null as present");
  return row!.present;
}

describeTargets(
  'one id space: database shards and worker ids',
  (db, target) => {
    const extra: Opened[] = [];
    /** Another fresh database of this target, dropped after the test. */
    async function another(): Promise<SqlExecutor> {
      const opened = await openDatabase(target);
      extra.push(opened);
      return opened.database.executor;
    }

    beforeEach(async () => {
      await db().executor.query('drop schema if exists sheaf cascade');
      await install(db().executor, { shard: 1 });
    });
    afterEach(async () => {
      await Promise.all(extra.splice(0).map((opened) => opened.close(true)));
    });

    it('records the installed shard as taken, and no lease ever gets it', async () => {
      const own = (await holdings(db().executor)).find((row) => row.worker_id === 1);
      expect(own).toMatchObject({ worker_id: 1, kind: 'database', pending: false });
      expect(own!.database_id).toBe((await settings(db().executor)).database_id);
      const leased = [];
      for (let i = 0; i < 4; i++) leased.push(await leaseAny(db().executor));
      expect(leased).toEqual([0, 2, 3, 4]);
      const generator = await SnowflakeGenerator.start(db().executor);
      try {
        expect(generator.workerId).toBe(5);
        expect(decodeId(generator.next()).shardId).toBe(5);
      } finally {
        await generator.close();
      }
    });

    it('refuses a lease on the database’s own shard, naming the database', async () => {
      const { database_name: name } = await settings(db().executor);
      await expectSheafRejection(
        db().executor.query("select * from sheaf.lease_worker_id('app', 60000, 1)"),
        'SHARD_TAKEN',
        `worker id 1 is the shard of database '${name}'`,
      );
      await expectSheafRejection(SnowflakeGenerator.start(db().executor, { workerId: 1 }), 'SHARD_TAKEN', name);
      const generator = await SnowflakeGenerator.start(db().executor, { workerId: 9, holder: 'explicit' });
      try {
        expect(generator.workerId).toBe(9);
        await expectSheafRejection(
          SnowflakeGenerator.start(db().executor, { workerId: 9 }),
          'SHARD_TAKEN',
          "worker id 9 is leased by 'explicit' until",
        );
      } finally {
        await generator.close();
      }
    });

    it('refuses a shard a live worker holds, changing nothing', async () => {
      await db().executor.query("select * from sheaf.lease_worker_id('pid 42', 60000, 5)");
      const before = await holdings(db().executor);
      await expectSheafRejection(
        install(db().executor, { shard: 5 }),
        'SHARD_TAKEN',
        "shard 5 is leased by worker 'pid 42'",
      );
      await expectSheafRejection(db().executor.query('select sheaf.add_shard(5)'), 'SHARD_TAKEN', "'pid 42'");
      expect((await settings(db().executor)).shard_id).toBe(1);
      expect(await holdings(db().executor)).toEqual(before);
    });

    it('claims logical shards, and gives a shard back with the last millisecond it issued', async () => {
      await db().executor.query('select sheaf.add_shard(7)');
      await expectSheafRejection(
        db().executor.query("select * from sheaf.lease_worker_id('app', 60000, 7)"),
        'SHARD_TAKEN',
      );
      const [{ id }] = (await db().executor.query<{ id: string }>('select sheaf.next_id()::text as id')) as [
        { id: string },
      ];
      await install(db().executor, { shard: 3 });
      const released = (await holdings(db().executor)).find((row) => row.worker_id === 1)!;
      expect(released).toMatchObject({ kind: 'worker', database_id: null, holder: null });
      expect(Number(released.last_ms)).toBeGreaterThanOrEqual(decodeId(id).ms);
      const [lease] = await db().executor.query<{ worker_id: number; last_timestamp_ms: string }>(
        "select worker_id, last_timestamp_ms::text as last_timestamp_ms from sheaf.lease_worker_id('app', 60000, 1)",
      );
      expect(lease).toEqual({ worker_id: 1, last_timestamp_ms: released.last_ms });
      const kinds = Object.fromEntries((await holdings(db().executor)).map((row) => [row.worker_id, row.kind]));
      expect(kinds).toMatchObject({ 1: 'worker', 3: 'database', 7: 'database' });
    });

    it('registers a database’s shard in a registry, which alone leases worker ids', async () => {
      const registry = db().executor;
      const other = await another();
      await install(other, { shard: 2, registry });
      const mine = await settings(other);
      expect(mine.registry).toBe(
        `${(await settings(registry)).database_name} (${(await settings(registry)).database_id})`,
      );
      expect((await holdings(registry)).find((row) => row.worker_id === 2)).toMatchObject({
        kind: 'database',
        database_id: mine.database_id,
        holder: mine.database_name,
        pending: false,
      });
      await expectSheafRejection(leaseAny(other), 'REGISTRY_ELSEWHERE', 'worker ids are leased from the registry');
      await expectSheafRejection(SnowflakeGenerator.start(other), 'REGISTRY_ELSEWHERE');
      expect([await leaseAny(registry), await leaseAny(registry), await leaseAny(registry)]).toEqual([0, 3, 4]);
      // An app that upgrades at start-up without naming the registry keeps everything.
      await install(other);
      expect(await settings(other)).toEqual(mine);
    });

    it('refuses a shard that another database registered, before anything changes', async () => {
      const registry = db().executor;
      const first = await another();
      await install(first, { shard: 2, registry });
      const { database_name: holder } = await settings(first);
      const second = await another();
      await expectSheafRejection(
        install(second, { shard: 2, registry }),
        'SHARD_TAKEN',
        `shard 2 is held by database '${holder}'`,
      );
      expect(await schemaExists(second)).toBe(false);
      await expectSheafRejection(install(second, { shard: 1, registry }), 'SHARD_TAKEN', 'shard 1 is held by database');
      expect(await schemaExists(second)).toBe(false);
      expect((await holdings(registry)).filter((row) => row.kind === 'database').map((row) => row.worker_id)).toEqual([
        1, 2,
      ]);
    });

    it('moves a registered database to another shard in the registry too', async () => {
      const registry = db().executor;
      const other = await another();
      await install(other, { shard: 2, registry });
      await other.query('select sheaf.next_id()');
      await install(other, { shard: 6, registry });
      const rows = await holdings(registry);
      expect(rows.find((row) => row.worker_id === 2)).toMatchObject({ kind: 'worker', database_id: null });
      expect(BigInt(rows.find((row) => row.worker_id === 2)!.last_ms)).toBeGreaterThan(0n);
      expect(rows.find((row) => row.worker_id === 6)).toMatchObject({ kind: 'database', pending: false });
    });

    it('takes over its own pending claim when an interrupted install runs again', async () => {
      const registry = db().executor;
      const other = await another();
      // What an install that stopped between its claim and its commit leaves in the registry.
      const [{ name }] = (await other.query<{ name: string }>(
        "select current_database() || coalesce(' on ' || host(inet_server_addr()) || ':' || inet_server_port(), '') as name",
      )) as [{ name: string }];
      const ghost = '00000000-0000-4000-8000-000000000001';
      await registry.query('select sheaf.claim_shard(2, $1::uuid, $2, true)', [ghost, name]);
      // Another server's database has another name (PGlite instances all call themselves postgres).
      if (target === 'postgres') {
        const third = await another();
        await expectSheafRejection(
          install(third, { shard: 2, registry }),
          'SHARD_TAKEN',
          'whose install has not confirmed it since',
        );
      }
      await install(other, { shard: 2, registry });
      const { database_id: id } = await settings(other);
      expect((await holdings(registry)).find((row) => row.worker_id === 2)).toMatchObject({
        database_id: id,
        pending: false,
      });
      expect(id).not.toBe(ghost);
    });

    it('keeps the registry out of reach from nothing: an unreachable registry refuses the install', async () => {
      const other = await another();
      const unreachable = new pg.Pool({ connectionString: 'postgresql://postgres@127.0.0.1:1/none', max: 1 });
      try {
        await expectSheafRejection(
          install(other, { shard: 4, registry: pgExecutor(unreachable) }),
          'REGISTRY_UNAVAILABLE',
          'the registry database failed to read its settings',
        );
      } finally {
        await unreachable.end();
      }
      expect(await schemaExists(other)).toBe(false);
    });
  },
  { only: ['postgres', 'pglite'] },
);

describeTargets(
  'one id space under concurrency',
  (db) => {
    it('never lets a lease and a database claim hold one value', async () => {
      await install(db().executor, { shard: 0 });
      const sessions = await db().sessions(12);
      const leased: number[] = [];
      const claimed: number[] = [];
      await Promise.all(
        sessions.map(async (session, index) => {
          for (let round = 0; round < 15; round++) {
            if (index % 3 === 0) {
              const shard = 1 + ((index * 15 + round) % 40);
              try {
                await session.query('select sheaf.add_shard($1)', [shard]);
                claimed.push(shard);
              } catch (error) {
                expect(error).toMatchObject({ code: 'SHARD_TAKEN' });
              }
            } else {
              leased.push(await leaseAny(session, `worker ${index}`));
            }
          }
        }),
      );
      const rows = await holdings(db().executor);
      const byValue = new Map(rows.map((row) => [row.worker_id, row]));
      for (const shard of claimed) expect(byValue.get(shard)?.kind).toBe('database');
      for (const worker of leased) expect(byValue.get(worker)?.kind).toBe('worker');
      expect(new Set(leased).size).toBe(leased.length);
      expect(claimed.filter((shard) => leased.includes(shard))).toEqual([]);
    });
  },
  { only: ['postgres'] },
);

describeTargets(
  'one id space while the registry is down',
  (db, target) => {
    it('keeps every registered database issuing, and refuses installs and leases until it is back', async () => {
      const registry = await openDatabase(target);
      const third = await openDatabase(target);
      try {
        await install(registry.database.executor, { shard: 0 });
        await install(db().executor, { shard: 1, registry: registry.database.executor });
        const before = await db().executor.query<{ id: string }>('select sheaf.next_id()::text as id');
        await registry.close(true);
        const ids = await db().executor.query<{ id: string }>(
          'select sheaf.next_id()::text as id from generate_series(1, 2000)',
        );
        const all = [...before, ...ids].map((row) => BigInt(row.id));
        expect(new Set(all).size).toBe(all.length);
        for (const id of all) expect(decodeId(id).shardId).toBe(1);
        await expectSheafRejection(SnowflakeGenerator.start(db().executor), 'REGISTRY_ELSEWHERE');
        await expectSheafRejection(
          install(third.database.executor, { shard: 2, registry: registry.database.executor }),
          'REGISTRY_UNAVAILABLE',
        );
        expect(await schemaExists(third.database.executor)).toBe(false);
        await expectSheafRejection(
          install(db().executor, { shard: 3, registry: registry.database.executor }),
          'REGISTRY_UNAVAILABLE',
        );
        expect((await settings(db().executor)).shard_id).toBe(1);
      } finally {
        await third.close(true);
      }
    });
  },
  { only: ['pglite'] },
);
