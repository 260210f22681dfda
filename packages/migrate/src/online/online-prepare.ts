import { SheafError, type SqlExecutor } from '@sheaf/core';
import { copyFunction, copyTriggerName, display, dollarQuote, notNullCheckName, q, qualified } from './online-names.js';
import type { OnlineTable } from './online-plan.js';
import { insertState } from './online-state.js';
import { type LockPolicy, lockingTransaction } from './online-transaction.js';

/**
 * Adds the table's bigint shadow columns and the trigger that keeps them equal to the old columns on
 * every insert and update, and records the table as prepared, all in one short transaction: adding a
 * nullable column without a default changes only the catalog, so ACCESS EXCLUSIVE is held for
 * milliseconds. A NOT NULL column's shadow gets a `check (… is not null) not valid`, validated later
 * without blocking writes, which lets the swap set NOT NULL without scanning the table.
 */
export async function prepareTable(executor: SqlExecutor, entry: OnlineTable, policy: LockPolicy): Promise<void> {
  const table = qualified(entry.table);
  const fn = qualified(copyFunction(entry.oid));
  const assignments = entry.columns.map((c) => `  new.${q(c.shadow)} := new.${q(c.column)};\n`).join('');
  const body = `\nbegin\n${assignments}  return new;\nend\n`;
  const adds = entry.columns.flatMap((c) => [
    `add column ${q(c.shadow)} bigint`,
    ...(c.notNull
      ? [`add constraint ${q(notNullCheckName(c.attnum))} check (${q(c.shadow)} is not null) not valid`]
      : []),
  ]);
  await lockingTransaction(executor, policy, async (session) => {
    await refuseTakenNames(session, entry);
    await session.query(`alter table ${table} ${adds.join(', ')}`);
    await session.query(`create or replace function ${fn}() returns trigger language plpgsql as ${dollarQuote(body)}`);
    await session.query(
      `create trigger ${q(copyTriggerName)} before insert or update on ${table} for each row execute function ${fn}()`,
    );
    await insertState(session, entry.table, entry.oid);
  });
}

async function refuseTakenNames(session: SqlExecutor, entry: OnlineTable): Promise<void> {
  const taken = await session.query<{ name: string }>(
    `select attname as name from pg_attribute where attrelid = $1 and attname = any($2::text[]) and not attisdropped`,
    [entry.oid, entry.columns.map((c) => c.shadow)],
  );
  if (taken.length === 0) return;
  const names = taken.map((row) => row.name).join(', ');
  throw new SheafError(
    'NAME_TAKEN',
    `cannot add shadow column ${names} to ${display(entry.table)}: a column of that name already exists and no online migration of this table is recorded`,
    { details: { table: display(entry.table), columns: names } },
  );
}
