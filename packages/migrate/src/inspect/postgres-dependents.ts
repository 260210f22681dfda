import type { SqlExecutor } from '@sheaf/core';
import type { Dependent } from '../model.js';
import { qualify } from '../names.js';
import type { ColumnRef } from './postgres-foreign-keys.js';

// The changing columns as a relation, from one jsonb parameter (no array types needed in drivers),
// with their copies in every partition (by name): ALTER TYPE on a partitioned table changes those
// too, so a view or trigger on one partition blocks it as well.
const seed = `given as (
  select (e->>0)::oid as oid, (e->>1)::int2 as attnum from jsonb_array_elements($1::jsonb) e
), seed as (
  select given.oid, given.attnum from given
  union
  select a.attrelid, a.attnum from given
  join pg_attribute ga on ga.attrelid = given.oid and ga.attnum = given.attnum
  cross join lateral pg_partition_tree(given.oid) tree
  join pg_attribute a on a.attrelid = tree.relid and a.attname = ga.attname and not a.attisdropped)`;

// Views reading a changing column, then views reading those views, with the longest path to each:
// re-creating by increasing depth puts every view after all the views it reads.
const viewsSql = `
  with recursive ${seed}, deps(view_oid, base, depth) as (
    select r.ev_class, seed.oid, 1
    from seed
    join pg_depend d on d.classid = 'pg_rewrite'::regclass and d.refclassid = 'pg_class'::regclass
      and d.refobjid = seed.oid and d.refobjsubid = seed.attnum
    join pg_rewrite r on r.oid = d.objid and r.ev_class <> seed.oid
    union
    select r.ev_class, deps.base, deps.depth + 1
    from deps
    join pg_depend d on d.classid = 'pg_rewrite'::regclass and d.refclassid = 'pg_class'::regclass
      and d.refobjid = deps.view_oid
    join pg_rewrite r on r.oid = d.objid and r.ev_class <> deps.view_oid
  ), deepest as (
    select view_oid, max(depth) as depth, (array_agg(base order by depth))[1] as base from deps group by view_oid)
  select c.oid::text as oid, n.nspname as schema, c.relname as name, c.relkind::text as relkind,
    rtrim(pg_get_viewdef(c.oid), ';') as query, array_to_string(c.reloptions, ', ') as options,
    c.relispopulated as populated, obj_description(c.oid, 'pg_class') as comment,
    pg_get_userbyid(c.relowner) as owner, c.relowner <> (select oid from pg_roles where rolname = current_user) as foreign_owner,
    bn.nspname as base_schema, b.relname as base_name
  from deepest
  join pg_class c on c.oid = deepest.view_oid and c.relkind in ('v', 'm')
  join pg_namespace n on n.oid = c.relnamespace
  join pg_class b on b.oid = deepest.base join pg_namespace bn on bn.oid = b.relnamespace
  order by deepest.depth, n.nspname, c.relname`;

interface ViewRow {
  oid: string;
  schema: string;
  name: string;
  relkind: string;
  query: string;
  options: string | null;
  populated: boolean;
  comment: string | null;
  owner: string;
  foreign_owner: boolean;
  base_schema: string;
  base_name: string;
}

/** Views and materialized views that read the changing columns, directly or through other views, in creation order. */
export async function dependentViews(session: SqlExecutor, widened: readonly ColumnRef[]): Promise<Dependent[]> {
  const rows = await session.query<ViewRow>(viewsSql, [seedParam(widened)]);
  const dependents: Dependent[] = [];
  for (const row of rows) {
    dependents.push(await viewDependent(session, row));
    if (row.relkind === 'm') dependents.push(...(await matviewIndexes(session, row)));
    dependents.push(...(await viewTriggers(session, row)));
  }
  return dependents;
}

async function viewDependent(session: SqlExecutor, row: ViewRow): Promise<Dependent> {
  const materialized = row.relkind === 'm';
  const kind = materialized ? 'materialized view' : 'view';
  const name = qualify(session.dialect, row);
  const options = row.options ? ` with (${row.options})` : '';
  const data = materialized ? (row.populated ? ' with data' : ' with no data') : '';
  const restore = await grants(session, row.oid, name);
  if (row.comment !== null) restore.push(`comment on ${kind} ${name} is ${literal(row.comment)}`);
  if (row.foreign_owner) restore.push(`alter ${kind} ${name} owner to ${session.dialect.quoteIdent(row.owner)}`);
  return {
    kind,
    name: { schema: row.schema, name: row.name },
    table: { schema: row.base_schema, name: row.base_name },
    definition: `create ${kind} ${name}${options} as\n${row.query.trimEnd()}${data}`,
    recreate: true,
    restore,
  };
}

const grantsSql = `
  select case when a.grantee = 0 then null else pg_get_userbyid(a.grantee) end as grantee,
    a.privilege_type as privilege, a.is_grantable as grantable
  from pg_class c cross join lateral aclexplode(c.relacl) a
  where c.oid = $1::oid and a.grantee <> c.relowner
  order by 1, 2`;

/** `grant` statements restoring a relation's privileges for everyone but its owner. */
async function grants(session: SqlExecutor, oid: string, name: string): Promise<string[]> {
  const rows = await session.query<{ grantee: string | null; privilege: string; grantable: boolean }>(grantsSql, [oid]);
  return rows
    .filter((row) => /^[A-Z ]+$/.test(row.privilege))
    .map((row) => {
      const grantee = row.grantee === null ? 'public' : session.dialect.quoteIdent(row.grantee);
      return `grant ${row.privilege.toLowerCase()} on ${name} to ${grantee}${row.grantable ? ' with grant option' : ''}`;
    });
}

async function matviewIndexes(session: SqlExecutor, view: ViewRow): Promise<Dependent[]> {
  const rows = await session.query<{ schema: string; name: string; definition: string }>(
    `select n.nspname as schema, ic.relname as name, pg_get_indexdef(i.indexrelid) as definition
     from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_namespace n on n.oid = ic.relnamespace
     where i.indrelid = $1::oid order by ic.relname`,
    [view.oid],
  );
  return rows.map((row) => ({
    kind: 'index',
    name: { schema: row.schema, name: row.name },
    table: { schema: view.schema, name: view.name },
    definition: row.definition,
    recreate: true,
  }));
}

async function viewTriggers(session: SqlExecutor, view: ViewRow): Promise<Dependent[]> {
  const rows = await session.query<TriggerRow>(`${triggerSelect} where t.tgrelid = $1::oid and not t.tgisinternal`, [
    view.oid,
  ]);
  return rows.map((row) => triggerDependent(session, row));
}

const triggerSelect = `
  select distinct t.tgname as name, n.nspname as schema, c.relname as table, pg_get_triggerdef(t.oid) as definition,
    t.tgenabled::text as enabled, obj_description(t.oid, 'pg_trigger') as comment
  from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace`;

// UPDATE OF lists and WHEN clauses record a dependency on the column; ALTER TYPE refuses while they exist.
const columnTriggersSql = `
  with ${seed}
  ${triggerSelect}
  join seed on seed.oid = t.tgrelid
  join pg_depend d on d.classid = 'pg_trigger'::regclass and d.objid = t.oid and d.refclassid = 'pg_class'::regclass
    and d.refobjid = seed.oid and d.refobjsubid = seed.attnum
  -- A partition's clone of its parent's trigger (tgparentid) goes and comes back with the parent's.
  where not t.tgisinternal and t.tgparentid = 0
  order by n.nspname, c.relname, t.tgname`;

interface TriggerRow {
  name: string;
  schema: string;
  table: string;
  definition: string;
  enabled: string;
  comment: string | null;
}

/** Triggers whose `UPDATE OF` list or `WHEN` clause names a changing column. */
export async function dependentTriggers(session: SqlExecutor, widened: readonly ColumnRef[]): Promise<Dependent[]> {
  const rows = await session.query<TriggerRow>(columnTriggersSql, [seedParam(widened)]);
  return rows.map((row) => triggerDependent(session, row));
}

const enableClause: Record<string, string> = {
  D: 'disable trigger',
  R: 'enable replica trigger',
  A: 'enable always trigger',
};

function triggerDependent(session: SqlExecutor, row: TriggerRow): Dependent {
  const table = { schema: row.schema, name: row.table };
  const tableName = qualify(session.dialect, table);
  const trigger = session.dialect.quoteIdent(row.name);
  const restore: string[] = [];
  const state = enableClause[row.enabled];
  if (state) restore.push(`alter table ${tableName} ${state} ${trigger}`);
  if (row.comment !== null) restore.push(`comment on trigger ${trigger} on ${tableName} is ${literal(row.comment)}`);
  return {
    kind: 'trigger',
    name: { schema: row.schema, name: row.name },
    table,
    definition: row.definition,
    recreate: true,
    restore,
  };
}

// Constraint-backed indexes (primary keys, unique) depend on their constraint, not on the columns: read indkey too.
const indexesSql = `
  with ${seed}, found as (
    select i.indexrelid as oid from seed join pg_index i on i.indrelid = seed.oid and seed.attnum = any(i.indkey::int2[])
    union
    select d.objid from seed join pg_depend d on d.classid = 'pg_class'::regclass and d.refclassid = 'pg_class'::regclass
      and d.refobjid = seed.oid and d.refobjsubid = seed.attnum)
  select n.nspname as schema, ic.relname as name, tn.nspname as table_schema, tc.relname as table_name,
    pg_get_indexdef(ic.oid) as definition
  from found join pg_class ic on ic.oid = found.oid and ic.relkind in ('i', 'I')
    -- A partition's copy of a partitioned index is part of that index.
    and not ic.relispartition
  join pg_namespace n on n.oid = ic.relnamespace
  join pg_index i on i.indexrelid = ic.oid join pg_class tc on tc.oid = i.indrelid join pg_namespace tn on tn.oid = tc.relnamespace
  order by tn.nspname, tc.relname, ic.relname`;

/** Indexes over the changing columns: rebuilt by ALTER TYPE itself, listed so the plan shows the work. */
export async function dependentIndexes(session: SqlExecutor, widened: readonly ColumnRef[]): Promise<Dependent[]> {
  const rows = await session.query<{
    schema: string;
    name: string;
    table_schema: string;
    table_name: string;
    definition: string;
  }>(indexesSql, [seedParam(widened)]);
  return rows.map((row) => ({
    kind: 'index',
    name: { schema: row.schema, name: row.name },
    table: { schema: row.table_schema, name: row.table_name },
    definition: row.definition,
    recreate: false,
  }));
}

function seedParam(widened: readonly ColumnRef[]): string {
  return JSON.stringify(widened.map((ref) => [ref.oid, ref.attnum]));
}

/** A string literal (standard_conforming_strings, the default since PostgreSQL 9.1). */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
