import { refuseForeignOwners } from '../grants/ownership.js';
import { postgresAppGrants } from '../grants/postgres.js';
import type { DialectInstall } from './dialect-install.js';
import { postgresFiles } from './files.generated.js';
import { postgresIdSpace } from './id-space.js';
import { postgresNativePath } from './native-path.js';

/** Installs into schema `sheaf`, all in one transaction under a transaction-level advisory lock. */
export const postgresInstall: DialectInstall = {
  files: postgresFiles,
  // Whoever owns schema sheaf or anything in it controls the state this install creates.
  preflight: refuseForeignOwners,
  bootstrap: [
    'create schema if not exists sheaf',
    `create table if not exists sheaf.schema_versions (
      version integer primary key,
      name text not null,
      checksum text not null,
      installed_at timestamptz not null default now()
    )`,
  ],
  // 'sheafins' as bytes; released by commit or rollback.
  lock: 'select pg_advisory_xact_lock(8316008180944039539)',
  unlock: undefined,
  recorded: 'select version, checksum from sheaf.schema_versions order by version',
  record: 'insert into sheaf.schema_versions (version, name, checksum) values ($1, $2, $3)',
  settings: `select shard_id, layout_name, epoch_ms, time_bits, shard_bits, sequence_bits, test_clock
    from sheaf.settings`,
  configure: 'select sheaf.configure($1, $2, $3, $4, $5, $6, $7)',
  configureFrom: 3,
  repair: { from: 16, statement: 'select sheaf._repair()' },
  idSpace: postgresIdSpace,
  nativePath: postgresNativePath,
  probe: "select to_regnamespace('sheaf') is not null as installed",
  // Objects outside schema sheaf that depend on it: column defaults, views, triggers, functions.
  // What schema sheaf holds was created after initdb, so its oids are at or above
  // FirstNormalObjectId (16384): the bound skips the system catalogs' own dependencies before
  // pg_identify_object runs on them (400 ms to 2 ms on a fresh database).
  dependents: `
    select distinct pg_describe_object(d.classid, d.objid, d.objsubid) as dependent
    from pg_depend d
    where d.deptype = 'n' and d.refobjid >= 16384 and d.classid <> 'pg_extension'::regclass
      and (select i.schema from pg_identify_object(d.refclassid, d.refobjid, 0) i) = 'sheaf'
      and coalesce(case d.classid
        when 'pg_attrdef'::regclass then
          (select c.relnamespace from pg_attrdef a join pg_class c on c.oid = a.adrelid where a.oid = d.objid)
        when 'pg_rewrite'::regclass then
          (select c.relnamespace from pg_rewrite r join pg_class c on c.oid = r.ev_class where r.oid = d.objid)
        when 'pg_trigger'::regclass then
          (select c.relnamespace from pg_trigger t join pg_class c on c.oid = t.tgrelid where t.oid = d.objid)
        when 'pg_constraint'::regclass then (select connamespace from pg_constraint where oid = d.objid)
        when 'pg_proc'::regclass then (select pronamespace from pg_proc where oid = d.objid)
        when 'pg_class'::regclass then (select relnamespace from pg_class where oid = d.objid)
        when 'pg_type'::regclass then (select typnamespace from pg_type where oid = d.objid)
      end, 0) <> 'sheaf'::regnamespace
    order by 1`,
  dependentDrops: undefined,
  scriptDependentDrops: [],
  uninstall: ['drop schema sheaf cascade'],
  // Every role that can use the schema, but its owner, is an application role (docs/security.md);
  // before version 8 the documented grants included the sequences, which let a role move them.
  appRoles: {
    query: `select r.rolname as role
      from pg_namespace n cross join lateral aclexplode(n.nspacl) a join pg_roles r on r.oid = a.grantee
      where n.nspname = 'sheaf' and a.privilege_type = 'USAGE' and a.grantee <> n.nspowner
      order by 1`,
    from: 8,
    statements: postgresAppGrants,
  },
};
