import { grant, install } from '@sheaf/core';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';

// No superuser anywhere: a plain role installs sheaf, and an application role with what `grant()`
// gives it uses it (managed PostgreSQL gives nothing more).
describeTargets(
  'sheaf without superuser',
  (db) => {
    const role = (name: string) => `${name}_${db().url ? 'pg' : 'lite'}_${Math.random().toString(36).slice(2, 7)}`;

    it('a role with CREATE on the database installs it, and an application role uses it', async () => {
      const owner = role('sheaf_owner');
      const app = role('sheaf_app');
      const sql = db().executor;
      await sql.query(`create role ${owner} nosuperuser`);
      await sql.query(`create role ${app} nosuperuser`);
      await sql.query(
        `grant create on database ${db().url ? new URL(db().url!).pathname.slice(1) : 'postgres'} to ${owner}`,
      );
      await sql.query(`grant create, usage on schema public to ${owner}, ${app}`);
      await sql.session(async (session) => {
        await session.query(`set role ${owner}`);
        try {
          await install(session, { shard: 11 });
          await session.query('create table orders (id bigint primary key default sheaf.next_id(), n integer)');
          await grant(session, app);
          await session.query(`grant insert, select on orders to ${app}`);
          await session.query(`set role ${app}`);
          await session.query('insert into orders (n) select g from generate_series(1, 3000) g');
          const batch = await session.query('select sheaf.next_ids(2000) as id');
          const durable = await session.query('select sheaf.next_id_durable() as id');
          const [row] = await session.query<{ n: string; shards: string }>(
            'select count(distinct id) as n, count(distinct (sheaf.decode_id(id)).shard_id) as shards from orders',
          );
          expect(Number(row?.n)).toBe(3000);
          expect(Number(row?.shards)).toBe(1);
          expect(batch).toHaveLength(2000);
          expect(durable).toHaveLength(1);
          // The application role cannot move the generator's state itself.
          const refused = await session.query("select setval('sheaf.counter', 0)").catch((error: unknown) => error);
          expect((refused as { code?: string }).code).toBe('42501');
        } finally {
          // Roles belong to the whole server: leave none behind.
          await session.query('reset role');
          await session.query(`drop owned by ${owner}, ${app} cascade`);
          await session.query(`drop role ${owner}`);
          await session.query(`drop role ${app}`);
        }
      });
    });
  },
  { only: ['postgres', 'pglite'] },
);
