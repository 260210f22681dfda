import type { SqlExecutor } from '@sheaf/core';
import { q, qualified } from './online-names.js';
import type { OnlineTable } from './online-plan.js';

interface SettingsRow {
  column: string;
  statistics: number | null;
  options: string | null;
  grants: { grantee: string; privilege: string; grantable: boolean }[];
}

// Per old column: a statistics target set by hand (-1, or null from PostgreSQL 17 on, is the
// default), the planner's attribute options (n_distinct, n_distinct_inherited: the only ones
// `alter column set (…)` takes; a patched server may keep its own there) and each column
// privilege, PUBLIC's as grantee 0.
const settingsSql = `
  select a.attname as column, case when a.attstattarget >= 0 then a.attstattarget::int end as statistics,
    array_to_string(array(select o from unnest(a.attoptions) o where o like 'n\\_distinct%'), ', ') as options,
    coalesce((select json_agg(json_build_object(
        'grantee', case when x.grantee = 0 then 'public' else quote_ident(r.rolname) end,
        'privilege', lower(x.privilege_type), 'grantable', x.is_grantable) order by r.rolname, x.privilege_type)
      from aclexplode(a.attacl) x left join pg_roles r on r.oid = x.grantee), '[]') as grants
  from pg_attribute a where a.attrelid = $1 and a.attnum = any($2::int[]) order by a.attnum`;

/**
 * The statements giving the renamed shadows what the old columns carried and `drop column` takes
 * with them: column grants (`grant select (id) …`), the statistics target and attribute options.
 * Read under the swap's locks, so a grant made during the backfill is kept too. A grant is made
 * again by the migrating role, which becomes its grantor.
 */
export async function readColumnSettings(session: SqlExecutor, entry: OnlineTable): Promise<string[]> {
  const rows = await session.query<SettingsRow>(settingsSql, [entry.oid, entry.columns.map((c) => c.attnum)]);
  const table = qualified(entry.table);
  return rows.flatMap((row) => {
    const column = q(row.column);
    return [
      ...(row.statistics !== null
        ? [`alter table ${table} alter column ${column} set statistics ${row.statistics}`]
        : []),
      ...(row.options ? [`alter table ${table} alter column ${column} set (${row.options})`] : []),
      ...row.grants.map(
        (grant) =>
          `grant ${grant.privilege} (${column}) on table ${table} to ${grant.grantee}${grant.grantable ? ' with grant option' : ''}`,
      ),
    ];
  });
}
