import type { DialectName } from '../dialects/dialect.js';
import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import { type Database, executorOf } from '../executors/executor-of.js';
import type { GrantFinding } from './findings.js';
import { auditMysqlGrants } from './mysql-audit.js';
import { postgresAppFunctions, postgresAppObjectPrivileges, postgresNativeFunctions } from './postgres.js';

// Every privilege on schema sheaf, its relations and its functions (functions without an ACL carry
// PostgreSQL's default, EXECUTE for PUBLIC); $1 the application's functions, $2 its other privileges.
const postgresAudit = `
  with objects as (
    select 'schema sheaf' as object, n.nspacl as acl, n.nspowner as owner, null::oid as fn
    from pg_namespace n where n.nspname = 'sheaf'
    union all
    select case c.relkind when 'S' then 'sequence ' else 'table ' end || c.oid::regclass::text, c.relacl, c.relowner, null
    from pg_class c where c.relnamespace = 'sheaf'::regnamespace and c.relkind in ('r', 'p', 'S', 'v', 'm')
    union all
    select 'function ' || p.oid::regprocedure::text, coalesce(p.proacl, acldefault('f', p.proowner)), p.proowner, p.oid
    from pg_proc p where p.pronamespace = 'sheaf'::regnamespace
  )
  select case when a.grantee = 0 then 'PUBLIC' else a.grantee::regrole::text end as grantee,
    lower(a.privilege_type) as privilege, o.object
  from objects o cross join lateral aclexplode(o.acl) a
  where a.grantee <> o.owner and (a.grantee = 0 or not pg_has_role(a.grantee, o.owner, 'MEMBER'))
    and (a.grantee = 0 or not (
      (a.privilege_type = 'EXECUTE' and o.fn = any (select to_regprocedure(s)::oid from unnest($1::text[]) s))
      or lower(a.privilege_type) || ' ' || o.object = any ($2::text[])))
  order by 1, 3, 2`;

const audits: Partial<Record<DialectName, (executor: SqlExecutor) => Promise<GrantFinding[]>>> = {
  postgres: async (executor) => {
    const [installed] = await executor.query<{ yes: unknown }>("select to_regnamespace('sheaf') is not null as yes");
    if (installed?.yes !== true) return [];
    const others = postgresAppObjectPrivileges().map(([privilege, object]) => `${privilege} ${object}`);
    return executor.query<GrantFinding>(postgresAudit, [[...postgresAppFunctions, ...postgresNativeFunctions], others]);
  },
  mysql: auditMysqlGrants,
};

/**
 * Lists the privileges on sheaf's objects that are broader than an application's (docs/security.md):
 * on PostgreSQL anything PUBLIC holds, and anything beyond {@link grant}'s set held by a role that
 * neither owns sheaf nor is a member of its owner; on MySQL/MariaDB every privilege that can change
 * sheaf's state in `sheaf_<app>` (database-, table- or routine-level, by name or by a pattern such
 * as `sheaf\_%`) held by another account than sheaf's owner, the definer of its routines; accounts
 * with global privileges are administrators and not listed. Empty when sheaf is not installed. Needs
 * to see the catalogs (on MySQL the grant tables mysql.db, tables_priv and procs_priv); `sheaf
 * doctor` reports each finding as a failure.
 *
 * @example
 * for (const { grantee, privilege, object } of await auditGrants(executor)) console.warn(grantee, privilege, object);
 */
export async function auditGrants(db: Database): Promise<GrantFinding[]> {
  const executor = executorOf(db, 'auditGrants');
  const audit = audits[executor.dialect.name];
  if (!audit) throw new SheafError('UNSUPPORTED_DIALECT', `cannot audit grants on ${executor.dialect.name}`);
  return audit(executor);
}
