import { SheafError, type SqlExecutor } from '@sheaf/core';
import { bigintOf, highestOf } from './classic-bigints.js';
import type { ClassicReading, ClassicTable, HandedOut } from './classic-types.js';

/**
 * The table, whether it has the column, the sequence the column takes its values from (serial,
 * identity, or a default nextval() of a sequence it does not own), and that sequence's increment,
 * start and last value (NULL before its first nextval). A missing table is a NULL oid, not an error.
 */
const shapeSql = `select c.oid::regclass::text as table_name, a.attnum is not null as has_column, q.seq as sequence,
    s.seqincrement::text as step, s.seqstart::text as start, pg_sequence_last_value(q.seq::regclass)::text as last_value
  from (select to_regclass($1) as oid) c
  left join pg_attribute a on a.attrelid = c.oid and a.attname = $2 and a.attnum > 0 and not a.attisdropped
  left join lateral (
    select coalesce(pg_get_serial_sequence(c.oid::regclass::text, $2),
      (select d.refobjid::regclass::text from pg_attrdef ad
        join pg_depend d on d.classid = 'pg_attrdef'::regclass and d.objid = ad.oid and d.refclassid = 'pg_class'::regclass
        join pg_class sc on sc.oid = d.refobjid and sc.relkind = 'S'
        where ad.adrelid = c.oid and ad.adnum = a.attnum limit 1)) as seq
    where a.attnum is not null) q on true
  left join pg_sequence s on s.seqrelid = q.seq::regclass`;

/**
 * The PostgreSQL equivalent of Flickr's table: ids from a sequence with `increment by <step> start
 * <offset>`, drawn by `insert … on conflict (stub) do update set id = excluded.id returning id`. The
 * sequence's last value is the truth: it counts values cached by sessions and taken by rolled-back
 * inserts, and the upsert leaves one row whose id may be below it.
 */
export async function readClassicPostgres(
  executor: SqlExecutor,
  { table, column }: ClassicTable,
  server: string,
): Promise<ClassicReading> {
  const [row] = await executor.query<Record<string, unknown>>(shapeSql, [table, column]);
  if (typeof row?.table_name !== 'string') {
    throw new SheafError('UNKNOWN_TABLE', `no ticket table ${table} in ${server}`, { details: { table, server } });
  }
  if (typeof row.sequence !== 'string') {
    throw new SheafError(
      'UNSUPPORTED_KEY',
      `ticket table ${row.table_name} in ${server}: column ${column} ${row.has_column ? 'takes no values from a sequence' : 'does not exist'}`,
      { details: { table: row.table_name, column, server } },
    );
  }
  const [max] = await executor.query<{ max_id: unknown }>(
    `select max(${executor.dialect.quoteIdent(column)})::text as max_id from ${row.table_name}`,
  );
  const last = bigintOf(row.last_value);
  const maxId = bigintOf(max?.max_id);
  const step = Number(row.step);
  const start = BigInt(row.start as string);
  const handedOut: HandedOut[] = [];
  if (last !== undefined) handedOut.push({ what: `the last value of sequence ${row.sequence}`, value: last });
  if (maxId !== undefined) handedOut.push({ what: `max(${column})`, value: maxId });
  return {
    table: row.table_name,
    counter: `sequence ${row.sequence}`,
    counterValue: last,
    maxId,
    highest: highestOf([last, maxId]),
    handedOut,
    configured: {
      step,
      offset: step > 0 ? Number((((start - 1n) % BigInt(step)) + BigInt(step)) % BigInt(step)) + 1 : 0,
      source: `sequence ${row.sequence} (increment ${step}, start ${start})`,
    },
  };
}
