import knex, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { freshPglite } from './pglite-template.js';
import type { TargetName } from './targets.js';

/** A knex instance on the test database of `target` (PGlite: an embedded database of its own). */
export async function connectKnex(target: TargetName, url: string | undefined): Promise<Knex> {
  if (target === 'postgres') return knex({ client: 'pg', connection: url });
  if (target === 'mariadb') {
    // BIGINT as exact strings; knex's own mysql2 results would round ids to numbers otherwise.
    return knex({
      client: 'mysql2',
      connection: { uri: url, supportBigNumbers: true, bigNumberStrings: true } as never,
    });
  }
  // A PGlite of its own: knex-pglite closes its instance on destroy().
  return knex({
    client: ClientPgLite as never,
    dialect: 'postgres',
    connection: { pglite: await freshPglite() } as never,
  });
}
