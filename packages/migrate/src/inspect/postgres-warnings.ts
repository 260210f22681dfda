import type { SqlExecutor } from '@sheaf/core';
import type { Inspection, MigrationWarning, QualifiedName, TableToMigrate } from '../model.js';
import { display, displayPart, nameKey } from '../names.js';
import { insertsInto, keyNames, word } from './reference-names.js';
import { type BodyInteger, type IntegerSlot, type RoutineFacts, routineWarning } from './routine-warnings.js';
import { unlinkedColumns } from './unlinked-columns.js';

const userSchemas = `n.nspname not in ('pg_catalog', 'information_schema', 'sheaf') and n.nspname !~ '^pg_'`;

// User routines (not an extension's), with their integer slots and the tables their triggers fire
// on. A SQL-standard body (`begin atomic`, `return`) has no prosrc: it is cut from the definition,
// whose header would read as integer uses (pg_get_function_sqlbody is PostgreSQL 14+).
const routinesSql = `
  select n.nspname as schema, p.proname as name, p.prokind as kind,
    pg_get_function_identity_arguments(p.oid) as args,
    case when p.prosrc <> '' then p.prosrc
      else coalesce(substring(pg_get_functiondef(p.oid) from '\\n((BEGIN ATOMIC|RETURN)[[:space:]].*)$'),
        pg_get_functiondef(p.oid)) end as body,
    p.prorettype in (21, 23) as returns_integer, format_type(p.prorettype, null) as return_type,
    coalesce((select json_agg(json_build_object('name', coalesce(p.proargnames[a.i], ''),
        'type', format_type(a.t, null), 'result', coalesce(p.proargmodes[a.i]::text, 'i') in ('o', 't'))
        order by a.i)
      from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality as a(t, i)
      where a.t in (21, 23)), '[]')::text as integers,
    coalesce((select json_agg(json_build_object('schema', tn.nspname, 'name', tc.relname))
      from pg_trigger tg join pg_class tc on tc.oid = tg.tgrelid join pg_namespace tn on tn.oid = tc.relnamespace
      where tg.tgfoid = p.oid), '[]')::text as fires_on
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_language l on l.oid = p.prolang
  where ${userSchemas} and p.prokind in ('f', 'p') and l.lanname not in ('c', 'internal')
    and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
  order by n.nspname, p.proname, args`;

interface RoutineRow {
  schema: string;
  name: string;
  kind: 'f' | 'p';
  args: string;
  body: string;
  returns_integer: boolean;
  return_type: string;
  integers: string;
  fires_on: string;
}

// Integer columns in no foreign key, named like an id: candidates for references nobody declared.
const unlinkedSql = `
  select n.nspname as schema_name, c.relname as table_name, a.attname as column_name,
    format_type(a.atttypid, a.atttypmod) as type
  from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('r', 'p') and not c.relispartition and a.attnum > 0 and not a.attisdropped
    and a.atttypid in (21, 23) and a.attname ~* 'id$' and ${userSchemas}
    and not exists (select 1 from pg_constraint f where f.contype = 'f' and f.conrelid = c.oid and a.attnum = any(f.conkey))
  order by n.nspname, c.relname, a.attnum`;

// Who owns a sequence (OWNED BY) and which column defaults draw from it.
const sequenceUsersSql = `
  select (select json_build_object('schema', tn.nspname, 'name', t.relname, 'column', a.attname)::text
      from pg_depend o join pg_class t on t.oid = o.refobjid join pg_namespace tn on tn.oid = t.relnamespace
      join pg_attribute a on a.attrelid = o.refobjid and a.attnum = o.refobjsubid
      where o.classid = 'pg_class'::regclass and o.objid = s.oid and o.deptype = 'a' limit 1) as owner,
    coalesce((select json_agg(json_build_object('schema', un.nspname, 'name', u.relname, 'column', ua.attname))
      from pg_depend d join pg_attrdef ad on ad.oid = d.objid join pg_class u on u.oid = ad.adrelid
      join pg_namespace un on un.oid = u.relnamespace join pg_attribute ua on ua.attrelid = ad.adrelid and ua.attnum = ad.adnum
      where d.classid = 'pg_attrdef'::regclass and d.refobjid = s.oid), '[]')::text as users
  from pg_class s join pg_namespace sn on sn.oid = s.relnamespace
  where sn.nspname = $1 and s.relname = $2 and s.relkind = 'S'`;

// A declaration or cast to a 16- or 32-bit integer: `v integer;`, `$1::int`, `cast(x as int4)`.
const bodyIntegers: readonly BodyInteger[] = [
  {
    pattern: /(?<![\w$])(integer|int|int2|int4|smallint|serial|smallserial)(?![\w$])/i,
    what: 'integer variables or casts in its body',
  },
];

/**
 * What a PostgreSQL migration leaves as it is and may break (see {@link MigrationWarning}): routines
 * with integer slots for migrated keys, routines calling a retired sequence, integer columns named
 * like references without a foreign key, and sequences kept because the key does not own them.
 */
export async function postgresWarnings(
  session: SqlExecutor,
  inspection: Pick<Inspection, 'tables' | 'columns'>,
): Promise<MigrationWarning[]> {
  if (inspection.tables.length === 0 && inspection.columns.length === 0) return [];
  const names = keyNames(inspection.tables, inspection.columns);
  const routines = await session.query<RoutineRow>(routinesSql);
  return [
    ...routines.flatMap((row) => routineWarning(facts(row), names, bodyIntegers, 'postgres') ?? []),
    ...routines.flatMap((row) => sequenceCall(row, inspection.tables) ?? []),
    ...(await unlinkedColumns(session, unlinkedSql, inspection, names, 'postgres')),
    ...(await keptSequences(session, inspection.tables)),
  ];
}

function facts(row: RoutineRow): RoutineFacts {
  const name = { schema: row.schema, name: row.name };
  const integers = JSON.parse(row.integers) as IntegerSlot[];
  const type = row.kind === 'p' ? 'procedure' : 'function';
  return {
    type,
    name,
    label: `${type} ${display(name)}(${row.args})`,
    integers: row.returns_integer ? [...integers, { name: '', type: row.return_type, result: true }] : integers,
    body: row.body,
    firesOn: JSON.parse(row.fires_on) as QualifiedName[],
  };
}

/** A routine naming a sequence the migration retires, or calling lastval() after inserting into a migrated table. */
function sequenceCall(row: RoutineRow, tables: readonly TableToMigrate[]): MigrationWarning | undefined {
  const retired = tables.flatMap(({ generator }) => ('sequence' in generator ? [generator] : []));
  const named = retired.filter(({ sequence }) => word(sequence.name).test(row.body));
  const written = insertsInto(
    row.body,
    tables.map((t) => t.table),
  );
  const lastval = /(?<![\w$])lastval\s*\(\s*\)/i.test(row.body) ? written : [];
  if (named.length === 0 && lastval.length === 0) return undefined;
  const fates = named.map((g) =>
    g.kind === 'identity' || g.owned
      ? `${display(g.sequence)}, which the migration drops`
      : `${display(g.sequence)}, which the migration keeps but no longer feeds a key`,
  );
  const calls = [
    ...(fates.length > 0 ? [`names the sequence ${fates.join(' and ')}`] : []),
    ...(lastval.length > 0
      ? [`calls lastval() after inserting into ${lastval.map((t) => display(t)).join(', ')}`]
      : []),
  ];
  const label = `${row.kind === 'p' ? 'procedure' : 'function'} ${display({ schema: row.schema, name: row.name })}(${row.args})`;
  return {
    kind: 'sequence-call',
    objects: [{ type: row.kind === 'p' ? 'procedure' : 'function', schema: row.schema, name: row.name }],
    message:
      `${label} ${calls.join(', and ')}: once keys come from sheaf.next_id() no sequence value is taken for ` +
      'new rows; read the new id with insert … returning instead',
  };
}

/** One warning per sequence that fed migrated keys and stays, since no migrated key owns it alone. */
async function keptSequences(session: SqlExecutor, tables: readonly TableToMigrate[]): Promise<MigrationWarning[]> {
  const kept = new Map<string, { sequence: QualifiedName; keys: string[] }>();
  for (const { table, primaryKey, generator } of tables) {
    if (generator.kind !== 'sequence' || generator.owned) continue;
    const entry = kept.get(nameKey(generator.sequence)) ?? { sequence: generator.sequence, keys: [] };
    entry.keys.push(`${display(table)}.${displayPart(primaryKey.column)}`);
    kept.set(nameKey(generator.sequence), entry);
  }
  const warnings: MigrationWarning[] = [];
  for (const { sequence, keys } of kept.values()) {
    const [row] = await session.query<{ owner: string | null; users: string }>(sequenceUsersSql, [
      sequence.schema,
      sequence.name,
    ]);
    const column = (c: QualifiedName & { column: string }) => `${display(c)}.${displayPart(c.column)}`;
    const users = (JSON.parse(row?.users ?? '[]') as (QualifiedName & { column: string })[])
      .map(column)
      .filter((user) => !keys.includes(user));
    const owner = row?.owner ? column(JSON.parse(row.owner)) : null;
    // A serial whose sequence another key also drew from: owned by one of them, yet not theirs alone.
    const why =
      owner === null
        ? `not owned by ${keys.join(', ')} (no OWNED BY)`
        : keys.includes(owner)
          ? `shared: ${keys.filter((key) => key !== owner).join(', ') || users.join(', ')} drew from it too`
          : `owned by ${owner}, not by ${keys.join(', ')}`;
    const still =
      users.length > 0
        ? `; it is still the default of ${users.join(', ')}`
        : '; drop it once nothing else calls nextval() on it';
    warnings.push({
      kind: 'kept-sequence',
      objects: [{ type: 'sequence', ...sequence }],
      message:
        `sequence ${display(sequence)} is kept: it is ${why}, so other code may use it; ` +
        `it no longer feeds ${keys.join(', ')}${still}`,
    });
  }
  return warnings;
}
