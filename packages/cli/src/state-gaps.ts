import type { SqlExecutor } from '@sheaf/core';

/** Something the generator needs that an installed database lacks (a tampered or partly copied schema). */
export interface StateGap {
  /** The object, as a sentence names it: `sheaf.settings`, `sequence sheaf.block`. */
  readonly object: string;
  /** What is wrong with it: `has no row`, `is missing`, `was never set`. */
  readonly problem: 'has no row' | 'is missing' | 'was never set';
  /** The settings row: its shard is recorded nowhere else, so only an install given the shard repairs it. */
  readonly settings?: true;
}

interface Relation {
  readonly name: string;
  readonly kind: 'table' | 'sequence';
  /** The SQL version that created it. */
  readonly since: number;
  /** A table that needs a row; a sequence that needs a value (pg_sequence_last_value not null). */
  readonly filled?: true;
}

/**
 * What the PostgreSQL generator reads, by the version that added it. sheaf.counter and
 * sheaf.opened_at are never called until the first id; from version 16 the fast path reads
 * sheaf.live_block, unlogged, which a crash restart or a promotion resets, and the next block starts
 * above anything issued (docs/replication.md) from the durable record sheaf.block, or, where that
 * was lost too (a schema copied without its sequences' values), above the clock and the lead bound:
 * neither is a gap. The lock's secret and epoch are, and `sheaf install` puts them back.
 */
const relations: readonly Relation[] = [
  { name: 'sheaf.settings', kind: 'table', since: 1 },
  { name: 'sheaf.counter', kind: 'sequence', since: 1 },
  { name: 'sheaf.block', kind: 'sequence', since: 1 },
  { name: 'sheaf.lock_secret', kind: 'table', since: 8, filled: true },
  { name: 'sheaf.lock_epoch', kind: 'sequence', since: 8, filled: true },
  { name: 'sheaf.live_block', kind: 'sequence', since: 16 },
  { name: 'sheaf.opened_at', kind: 'sequence', since: 16 },
  { name: 'sheaf.step_allowance', kind: 'sequence', since: 16 },
];

// One row per relation: whether it exists, and whether it holds a value where sheaf's reader may
// look (null where it may not: an application role has no SELECT on sheaf.opened).
const catalogSql = `select r.name, c.oid is not null as present,
    case when c.relkind = 'S' and has_sequence_privilege(c.oid, 'select')
      then pg_sequence_last_value(c.oid) is not null end as has_value,
    case when c.relkind = 'r' then has_table_privilege(c.oid, 'select') end as readable
  from unnest($1::text[]) r(name) left join pg_catalog.pg_class c on c.oid = to_regclass(r.name)`;

/**
 * PostgreSQL: the tables and sequences of version `version` that are missing, empty or never set.
 * A missing settings row is found where the settings are read, not here.
 */
export async function readStateGaps(executor: SqlExecutor, version: number): Promise<StateGap[]> {
  if (executor.dialect.name !== 'postgres') return [];
  const expected = relations.filter((relation) => relation.since <= version);
  const rows = await executor.query<{ name: unknown; present: unknown; has_value: unknown; readable: unknown }>(
    catalogSql,
    [expected.map((relation) => relation.name)],
  );
  const gaps: StateGap[] = [];
  for (const relation of expected) {
    const row = rows.find((each) => each.name === relation.name);
    const object = relation.kind === 'sequence' ? `sequence ${relation.name}` : relation.name;
    if (row?.present !== true) {
      gaps.push({ object, problem: 'is missing' });
      continue;
    }
    if (!relation.filled) continue;
    if (relation.kind === 'sequence' && row.has_value === false) gaps.push({ object, problem: 'was never set' });
    if (relation.kind === 'table' && row.readable === true && !(await hasRow(executor, relation.name))) {
      gaps.push({ object, problem: 'has no row' });
    }
  }
  return gaps;
}

async function hasRow(executor: SqlExecutor, table: string): Promise<boolean> {
  const [row] = await executor.query<{ found: unknown }>(`select exists (select from ${table}) as found`);
  return row?.found === true;
}

/**
 * The gaps in one sentence with the repair: `sheaf install` puts back what the generator needs, and a
 * settings row only with the shard the database issued, which nothing else records.
 *
 * @example
 * describeGaps([{ object: 'sheaf.settings', problem: 'has no row', settings: true }], 'postgres://db/app');
 * // 'sheaf.settings has no row (its shard is no longer recorded): sheaf install --url postgres://db/app
 * //  --shard <N>, with the shard this database issued, repairs it'
 */
export function describeGaps(gaps: readonly StateGap[], url: string): string {
  const noSettings = gaps.some((gap) => gap.settings);
  const said = gaps.map(({ object, problem, settings }) =>
    settings ? `${object} ${problem} (its shard is no longer recorded)` : `${object} ${problem}`,
  );
  const repair = noSettings
    ? `sheaf install --url ${url} --shard <N>, with the shard this database issued,`
    : `sheaf install --url ${url}`;
  return `${said.join('; ')}: ${repair} repairs ${gaps.length === 1 ? 'it' : 'them'}`;
}
