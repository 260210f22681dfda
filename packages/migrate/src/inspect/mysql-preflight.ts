import { inState, mysqlDialect, requireInstalled, SheafError, type SqlExecutor } from '@sheaf/core';
import type { ForeignKey, QualifiedName, TableToMigrate } from '../model.js';
import { display, displayPart } from '../names.js';

const q = mysqlDialect.quoteIdent;

/** The first id sheaf issues now on this database, and that instant as ISO text. Throws NOT_INSTALLED. */
export async function mysqlSheafFloor(executor: SqlExecutor): Promise<{ floor: bigint; at: string }> {
  await requireInstalled(executor);
  // sheaf_id_floor reads its argument as UTC, as the generator's clock is.
  // sheaf's own function, not the forward in this database, which its owner could replace.
  const { floor } = await inState(executor, {
    floor: `select cast({state}.sheaf_id_floor(t.at) as char) as floor, cast(t.at as char) as at
     from (select utc_timestamp(3) as at) t`,
  });
  const [row] = await executor.query<{ floor: string; at: string }>(floor);
  return { floor: BigInt(row?.floor ?? '0'), at: `${(row?.at ?? '').replace(' ', 'T')}Z` };
}

/** The name sheaf's trigger gets on a migrated table (trigger names are 64 characters at most). */
export const sheafTriggerName = (table: string): string => `${table}_sheaf_id`.slice(0, 64);

/**
 * Refuses (NAME_TAKEN) when a trigger of the name sheaf's would take already exists: MySQL would
 * stop the migration there, after its ALTERs had committed.
 */
export async function checkTriggerNames(executor: SqlExecutor, tables: readonly TableToMigrate[]): Promise<void> {
  const rows = await executor.query<{ name: string; table_name: string }>(
    `select trigger_name as name, event_object_table as table_name
     from information_schema.triggers where trigger_schema = database()`,
  );
  const taken = new Map(rows.map((row) => [row.name, row.table_name]));
  const clashes = tables.flatMap(({ table }) => {
    const owner = taken.get(sheafTriggerName(table.name));
    if (owner === undefined) return [];
    const [name, on, wanted] = [sheafTriggerName(table.name), owner, table.name].map((n) => displayPart(n, 'mysql'));
    return [`${name} (on ${on}, wanted for ${wanted})`];
  });
  if (clashes.length === 0) return;
  throw new SheafError(
    'NAME_TAKEN',
    `trigger names already taken: ${clashes.join('; ')}; rename or drop those triggers`,
    {
      details: { triggers: clashes },
    },
  );
}

/**
 * Refuses (VERIFY_FAILED) when rows break a foreign key that must be re-created: possible after
 * `foreign_key_checks = 0`, and re-adding it would fail midway, after the ALTERs before it committed.
 */
export async function checkOrphans(executor: SqlExecutor, foreignKeys: readonly ForeignKey[]): Promise<void> {
  const broken: string[] = [];
  for (const fk of foreignKeys) {
    const [row] = await executor.query<{ orphans: string }>(orphansSql(fk));
    const orphans = Number(row?.orphans ?? 0);
    if (orphans > 0)
      broken.push(
        `${displayPart(fk.name, 'mysql')} on ${display(fk.table, 'mysql')} (${orphans} rows without a parent)`,
      );
  }
  if (broken.length === 0) return;
  throw new SheafError(
    'VERIFY_FAILED',
    `foreign keys that could not be re-created: ${broken.join('; ')}; fix or delete those rows first`,
    { details: { foreignKeys: broken } },
  );
}

const table = (name: QualifiedName) => `${q(name.schema)}.${q(name.name)}`;

function orphansSql(fk: ForeignKey): string {
  const on = fk.columns.map((column, i) => `p.${q(fk.referencedColumns[i] ?? '')} = c.${q(column)}`).join(' and ');
  const present = fk.columns.map((column) => `c.${q(column)} is not null`).join(' and ');
  return `select count(*) as orphans from ${table(fk.table)} c
    where ${present} and not exists (select 1 from ${table(fk.references)} p where ${on})`;
}
