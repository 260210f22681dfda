import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';

/** What an install says about a database that is not on the node its shard is bound to. */
export interface NodeOptions {
  /** A shard of its own: the database becomes a new one (new database_id) with this shard. */
  readonly shard?: number | undefined;
  /** The original is gone for good: keep its shard and database_id, bound to this node now. */
  readonly moved?: boolean | undefined;
  /** A physical clone, which no check can tell from its original: a database of its own with `shard`. */
  readonly clone?: boolean | undefined;
}

interface NodeRow {
  readonly bound: unknown;
  readonly live: unknown;
  readonly database_name: unknown;
  readonly database_id: unknown;
  readonly shard_id: unknown;
}

const presentQuery = `select exists (select from information_schema.columns where table_schema = 'sheaf'
  and table_name = 'settings' and column_name = 'node_identity') as present`;

const nodeQuery = `select s.node_identity as bound, sheaf.node_identity() as live, s.database_name,
    s.database_id::text as database_id, s.shard_id
  from (select) x left join sheaf.settings s on true`;

/**
 * PostgreSQL, from version 16 (docs/replication.md): before an install configures anything or asks a
 * registry, checks that the database runs on the node its shard is bound to. A copy (a restore, a
 * template, a logical sync, a replicated settings row) is refused with DATABASE_COPIED unless the
 * install gives it a shard of its own (it becomes a new database) or says it was moved; a missing
 * settings row is refused with STATE_DAMAGED unless a shard is given. Never adopts a shard from a
 * row written on another node.
 */
export async function checkNode(session: SqlExecutor, options: NodeOptions): Promise<void> {
  if (options.clone && options.moved) {
    throw new SheafError(
      'INVALID_ARGUMENT',
      'install: clone (a database of its own) and moved (the same one) contradict',
    );
  }
  if (options.clone && options.shard === undefined) {
    throw new SheafError('INVALID_ARGUMENT', 'install: a clone needs a shard of its own (shard: N)');
  }
  if (session.dialect.name !== 'postgres') return;
  const installed = await session.query<{ installed: unknown }>(
    "select to_regclass('sheaf.settings') is not null as installed",
  );
  if (installed[0]?.installed !== true) return;
  const [present] = await session.query<{ present: unknown }>(presentQuery);
  if (present?.present !== true) return;
  const [row] = await session.query<NodeRow>(nodeQuery);
  if (row?.database_id == null) {
    if (options.shard === undefined) {
      throw new SheafError(
        'STATE_DAMAGED',
        'sheaf.settings has no row, so this database no longer records its shard: install with the shard ' +
          'it issued (sheaf install --url <url> --shard <N>) to repair it',
      );
    }
    await session.query('select sheaf._repair()');
    return;
  }
  if (options.clone) {
    await session.query('select sheaf.bind_node(true)');
    return;
  }
  if (row.bound === row.live) return;
  if (options.moved) {
    await session.query('select sheaf.bind_node(false)');
    return;
  }
  if (options.shard !== undefined) {
    await session.query('select sheaf.bind_node(true)');
    return;
  }
  throw copiedError(row);
}

function copiedError(row: NodeRow): SheafError {
  const original = String(row.database_name);
  return new SheafError(
    'DATABASE_COPIED',
    `this database is a copy of ${original} (database_id ${String(row.database_id)}, shard ${String(row.shard_id)}): ` +
      `its shard is bound to node ${String(row.bound)} and it runs on node ${String(row.live)}, so it may not ` +
      "issue that database's ids, and install adopts nothing from it. If schema sheaf is replicated from " +
      'another database, stop replicating it (docs/replication.md). Give this database a shard of its own: ' +
      'sheaf install --url <url> --shard <N>; or, if the original is gone for good, confirm the move: ' +
      'sheaf install --url <url> --moved',
    {
      details: {
        original,
        databaseId: String(row.database_id),
        shard: Number(row.shard_id),
        boundNode: String(row.bound),
        node: String(row.live),
      },
    },
  );
}
