import type { DialectName } from '../dialects/dialect.js';
import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import { type Database, executorOf } from '../executors/executor-of.js';
import type { OwnershipFinding } from './findings.js';
import { auditMysqlForwards } from './mysql-ownership.js';

// Schema sheaf, the extension sheaf_native and everything in the schema that has an owner. $1 true:
// the installing role (current_user) is the expected owner; false: the owner of schema sheaf.
// Indexes, row types of tables and array types follow their table's or element's owner: left out.
const postgresOwners = `
  with s as (select n.oid, n.nspowner from pg_namespace n where n.nspname = 'sheaf'),
  expected as (
    select case when $1 then (select r.oid from pg_roles r where r.rolname = current_user)
      else (select s.nspowner from s) end as owner
  ),
  objects as (
    select 0 as rank, 'schema sheaf' as object, s.nspowner as owner from s
    union all
    select 1, 'extension sheaf_native', e.extowner from pg_extension e where e.extname = 'sheaf_native'
    union all
    select 2, case c.relkind when 'S' then 'sequence ' when 'v' then 'view ' when 'm' then 'materialized view '
        when 'c' then 'type ' when 'f' then 'foreign table ' else 'table ' end || c.oid::regclass::text, c.relowner
    from pg_class c join s on c.relnamespace = s.oid
    where c.relkind not in ('i', 'I')
    union all
    select 3, case p.prokind when 'p' then 'procedure ' when 'a' then 'aggregate ' else 'function ' end
        || p.oid::regprocedure::text, p.proowner
    from pg_proc p join s on p.pronamespace = s.oid
    union all
    select 4, 'type ' || t.oid::regtype::text, t.typowner
    from pg_type t join s on t.typnamespace = s.oid
    where t.typrelid = 0 and not exists (select from pg_type e where e.typarray = t.oid)
    union all
    select 5, 'operator ' || o.oid::regoperator::text, o.oprowner
    from pg_operator o join s on o.oprnamespace = s.oid
  )
  select o.object, o.owner::regrole::text as owner, e.owner::regrole::text as expected
  from objects o cross join expected e
  where o.owner is distinct from e.owner
  order by o.rank, o.object`;

const audits: Partial<
  Record<DialectName, (executor: SqlExecutor, installing: boolean) => Promise<OwnershipFinding[]>>
> = {
  postgres: (executor, installing) => executor.query<OwnershipFinding>(postgresOwners, [installing]),
  // An install re-creates the forwards (install/mysql-forwards.ts) rather than refusing them.
  mysql: async (executor, installing) => (installing ? [] : auditMysqlForwards(executor)),
};

/**
 * Lists sheaf's objects (schema sheaf, the extension sheaf_native, every table, sequence, function,
 * type, view and operator in the schema) whose owner is not the owner of schema sheaf
 * (docs/security.md, Ownership). On MySQL/MariaDB, the routines of the application's database that
 * forward to sheaf's own and are missing, defined by another account than sheaf's owner (the definer
 * of its routines in `sheaf_<app>`) or changed: `install()` re-creates those. Empty when sheaf is not
 * installed; `sheaf doctor` reports each finding as a failure and `install()` on PostgreSQL refuses
 * with UNSAFE_OWNERSHIP.
 *
 * @example
 * for (const { object, owner } of await auditOwnership(executor)) console.warn(`${object} is owned by ${owner}`);
 */
export async function auditOwnership(db: Database): Promise<OwnershipFinding[]> {
  const executor = executorOf(db, 'auditOwnership');
  const audit = audits[executor.dialect.name];
  if (!audit) throw new SheafError('UNSUPPORTED_DIALECT', `cannot audit ownership on ${executor.dialect.name}`);
  return audit(executor, false);
}

/**
 * Refuses, before an install changes anything, a database where schema sheaf or anything of sheaf
 * is owned by another role than the installing one: that role would keep control of what the
 * install creates (settings, sequences, the extension's functions).
 */
export async function refuseForeignOwners(session: SqlExecutor): Promise<void> {
  const audit = audits[session.dialect.name];
  const findings = audit ? await audit(session, true) : [];
  const [first] = findings;
  if (!first) return;
  const more = findings.length > 1 ? ` (and ${findings.length - 1} more of sheaf's objects)` : '';
  throw new SheafError(
    'UNSAFE_OWNERSHIP',
    `${first.object} is owned by role ${first.owner}, not by ${first.expected}, which is installing${more}: ` +
      `a role that owns sheaf's objects can rewrite its settings and sequences or drop its functions; ${fix(first)}`,
    { details: { findings } },
  );
}

function fix({ object, owner, expected }: OwnershipFinding): string {
  if (object === 'schema sheaf') {
    return (
      `install as ${owner} if it is sheaf's owner; otherwise, as a superuser, drop schema sheaf (when it holds ` +
      `nothing of sheaf yet) or alter schema sheaf owner to ${expected} and give its objects to ${expected} ` +
      '(docs/security.md, Ownership)'
    );
  }
  if (object === 'extension sheaf_native') {
    return (
      'as a superuser, move next_id() back to PL/pgSQL and drop extension sheaf_native, then install again ' +
      '(docs/security.md, Ownership)'
    );
  }
  return `as a superuser, alter ${object} owner to ${expected} (or drop it), then install again (docs/security.md, Ownership)`;
}
