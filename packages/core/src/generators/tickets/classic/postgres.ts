import type { SqlExecutor } from '../../../executor.js';
import { int8 } from '../../shared/id-kind.js';
import { seriesNumber } from '../refusals.js';
import { placeOf, type TicketSource, ticketSource } from '../source.js';
import { type ClassicTable, classicTableError } from './table.js';

/**
 * The id sequence's increment and start, where the server is, and the table's shape, in one row.
 * `$1` is the quoted table name; a missing table is a null oid, not an error. The sequence is the
 * one the id column owns (serial: 'a', identity: 'i'), else the one its default calls (a
 * `nextval('…')` of a sequence created apart), found by oid: pg_get_serial_sequence parses its text
 * argument and raises for a missing table even where a join would never call it.
 */
const checkSql = `select c.oid is not null as found, current_database() as db, host(inet_server_addr()) as host,
    inet_server_port() as port, s.seqincrement::text as step, s.seqstart::text as start,
    a.attidentity as identity, q.seq::text as sequence,
    exists (select from pg_index i where i.indrelid = c.oid and i.indisunique and i.indpred is null
      and i.indnkeyatts = 1 and i.indkey[0] = st.attnum) as stub_unique,
    case when st.atttypmod > 4 then st.atttypmod - 4 end as stub_length
  from (select to_regclass($1) as oid) c
  left join pg_attribute a on a.attrelid = c.oid and a.attname = 'id' and not a.attisdropped
  left join pg_attribute st on st.attrelid = c.oid and st.attname = 'stub' and not st.attisdropped
  left join lateral (
    select d.objid::regclass as seq from pg_depend d join pg_class sc on sc.oid = d.objid and sc.relkind = 'S'
    where d.classid = 'pg_class'::regclass and d.refclassid = 'pg_class'::regclass and d.refobjid = c.oid
      and d.refobjsubid = a.attnum and d.deptype in ('a', 'i')
    union all
    select d.refobjid::regclass from pg_attrdef ad
    join pg_depend d on d.classid = 'pg_attrdef'::regclass and d.objid = ad.oid and d.refclassid = 'pg_class'::regclass
    join pg_class sc on sc.oid = d.refobjid and sc.relkind = 'S'
    where ad.adrelid = c.oid and ad.adnum = a.attnum
    limit 1
  ) q on true
  left join pg_sequence s on s.seqrelid = q.seq`;

/**
 * Flickr's ticket server on PostgreSQL: one statement inserts the stub or, when its row is there,
 * moves the row's id to the value the insert drew from the sequence. (`do update set stub =
 * excluded.stub` would return the row's old id every time.) A GENERATED ALWAYS identity can only be
 * updated to DEFAULT, which draws a second value: its tickets advance by two steps.
 */
export function classicPostgres(executor: SqlExecutor, target: ClassicTable): TicketSource {
  const q = executor.dialect.quoteIdent;
  const table = `${target.schema === undefined ? '' : `${q(target.schema)}.`}${q(target.table)}`;
  const upsert = (value: string) =>
    `insert into ${table} (stub) values ($1) on conflict (stub) do update set id = ${value} returning id::text as id`;
  let draw = upsert('excluded.id');
  return ticketSource({
    kind: 'classic',
    async series() {
      const [row] = await executor.query<Record<string, unknown>>(checkSql, [table]);
      const where = placeOf(row?.db, row?.host, row?.port);
      const problem = classicTableError(target, where, {
        found: row?.found === true,
        counted: typeof row?.step === 'string',
        stubUnique: row?.stub_unique === true,
        stubLength: row?.stub_length === null || row?.stub_length === undefined ? undefined : Number(row.stub_length),
        counter: 'sequence (serial or identity)',
      });
      if (problem) throw problem;
      const step = seriesNumber(row?.step, `${where}: the increment of sequence ${row?.sequence}`);
      const offset = seriesNumber(row?.start, `${where}: the start of sequence ${row?.sequence}`);
      if (row?.identity === 'a') draw = upsert('default');
      const read = `table ${target.table}, sequence ${row?.sequence} increment ${step} start ${offset}`;
      return { step, offset, where, read };
    },
    async draw() {
      const [row] = await executor.query<{ id: unknown }>(draw, [target.stub]);
      return { id: int8(row?.id, `${table}.id`) };
    },
  });
}
