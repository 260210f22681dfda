import { requireInstalled, SheafError, type SqlExecutor } from '@sheaf/core';
import type { Inspection, QualifiedName, SkippedTable, TableSelection, TableToMigrate } from '../model.js';
import { display, nameKey } from '../names.js';
import { checkFloor, type KeyHigh } from './floor-check.js';
import { dependentIndexes, dependentTriggers, dependentViews } from './postgres-dependents.js';
import { type ForeignKeyGraph, foreignKeyClosure, type KeyColumn, readForeignKeys } from './postgres-foreign-keys.js';
import { inspectKey } from './postgres-keys.js';
import { partitionKeyClashes } from './postgres-partitions.js';
import { postgresSharedKeys } from './postgres-shared-keys.js';
import { listPostgresTables, selectTables } from './postgres-tables.js';
import { postgresWarnings } from './postgres-warnings.js';

/**
 * Reads what `sheaf migrate` needs from pg_catalog, in one read-only snapshot: the selected tables'
 * keys and generators, every column that references them, the foreign keys, views, triggers and
 * indexes around those columns, and the first id sheaf issues now. Throws NOT_INSTALLED,
 * UNKNOWN_TABLE, UNSUPPORTED_KEY (a `--table` whose key sheaf cannot take) or KEYS_ABOVE_FLOOR.
 *
 * @example
 * const inspection = await inspectPostgres(executor, { tables: ['orders'] });
 */
export async function inspectPostgres(executor: SqlExecutor, selection: TableSelection): Promise<Inspection> {
  await requireInstalled(executor);
  return executor.session(async (session) => {
    const [path] = await session.query<{ schemas: string }>(
      'select array_to_json(current_schemas(false))::text as schemas',
    );
    await session.query('begin isolation level repeatable read read only');
    try {
      // Catalog functions print names schema-qualified only when they are not on the search path:
      // with nothing but pg_catalog on it, every definition read here can run in any session.
      await session.query('set local search_path = pg_catalog');
      const inspection = await inspectSnapshot(session, selection, JSON.parse(path?.schemas ?? '[]') as string[]);
      return { ...inspection, warnings: await postgresWarnings(session, inspection) };
    } finally {
      await session.query('rollback');
    }
  });
}

async function inspectSnapshot(
  session: SqlExecutor,
  selection: TableSelection,
  searchPath: string[],
): Promise<Inspection> {
  const [floorRow] = await session.query<{ floor: string; at: string }>(
    `select sheaf.id_floor(now())::text as floor,
       to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at`,
  );
  const sheafFloor = BigInt(floorRow?.floor ?? '0');
  const selected = selectTables(await listPostgresTables(session), selection, searchPath);
  const tables: TableToMigrate[] = [];
  const keys: KeyColumn[] = [];
  const highs: KeyHigh[] = [];
  const skipped: SkippedTable[] = [];
  const sharedKeys = await postgresSharedKeys(session);
  for (const table of selected) {
    const verdict = await inspectKey(session, table);
    if (verdict.kind === 'unsupported' && !('all' in selection)) {
      throw new SheafError('UNSUPPORTED_KEY', verdict.reason, { details: { table: display(table) } });
    }
    if (verdict.kind !== 'migrate') {
      skipped.push({ table: { schema: table.schema, name: table.name }, reason: verdict.reason });
      continue;
    }
    const shared = sharedKeys.get(table.oid);
    if (shared !== undefined) {
      skipped.push({ table: { schema: table.schema, name: table.name }, reason: shared });
      continue;
    }
    tables.push(verdict.table);
    keys.push({ oid: table.oid, attnum: verdict.attnum, column: verdict.table.primaryKey });
    highs.push({ table: verdict.table.table, high: verdict.table.maxId, what: 'holds keys up to' });
    const generator = verdict.table.generator;
    if ('sequence' in generator) {
      highs.push({
        table: verdict.table.table,
        high: verdict.sequenceLast,
        what: `has its sequence ${display(generator.sequence)} at`,
      });
    }
  }
  const graph = await readForeignKeys(session);
  const kept = await withoutPartitionKeyClashes(session, graph, keys, selection, skipped);
  const migrating = (entry: { table: QualifiedName }) => kept.some((key) => sameName(key.column.table, entry.table));
  checkFloor(highs.filter(migrating), sheafFloor, floorRow?.at ?? '', 'postgres');
  const closure = foreignKeyClosure(graph, kept);
  const dependents = [
    ...(await dependentViews(session, closure.widened)),
    ...(await dependentTriggers(session, closure.widened)),
    ...(await dependentIndexes(session, closure.widened)),
  ];
  return {
    dialect: 'postgres',
    tables: tables.filter(migrating),
    columns: closure.columns,
    foreignKeys: closure.foreignKeys,
    dependents,
    sheafFloor,
    skipped,
  };
}

/**
 * The keys left once those referenced from a partition key are out (see partitionKeyClashes): such a
 * key is refused (UNSUPPORTED_KEY) when named by `--table`, and skipped with the reason under `--all`.
 */
async function withoutPartitionKeyClashes(
  session: SqlExecutor,
  graph: ForeignKeyGraph,
  keys: readonly KeyColumn[],
  selection: TableSelection,
  skipped: SkippedTable[],
): Promise<KeyColumn[]> {
  const clashes = await partitionKeyClashes(session, graph, keys);
  for (const [key, reason] of clashes) {
    if (!('all' in selection)) {
      throw new SheafError('UNSUPPORTED_KEY', reason, { details: { table: display(key.column.table) } });
    }
    skipped.push({ table: key.column.table, reason });
  }
  return keys.filter((key) => !clashes.has(key));
}

const sameName = (a: QualifiedName, b: QualifiedName) => nameKey(a) === nameKey(b);
