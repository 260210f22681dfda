import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import type { MysqlState } from './mysql-state.js';
import { type SqlFile, statementsOf } from './sql-file.js';

/**
 * A routine of the application's database that forwards to its namesake in sheaf's own (SQL version
 * 12 on), as the newest file creating it in `{app}` has it: `create`, `body` and `target` keep the
 * files' `{app}` and `{state}`.
 */
export interface MysqlForward {
  readonly kind: 'function' | 'procedure';
  readonly name: string;
  /** `DEFINER` for what applications call, `INVOKER` for what admins call. */
  readonly security: 'DEFINER' | 'INVOKER';
  readonly create: string;
  /** The routine's body as the server keeps it: `return {state}.name(…)` or `call {state}.name(…)`. */
  readonly body: string;
}

/** How a forward in the application's database differs from the files'. */
export interface ForwardDrift {
  readonly forward: MysqlForward;
  /** `user@host`, or undefined where the routine is missing. */
  readonly definer: string | undefined;
  readonly problem: 'missing' | 'definer' | 'security' | 'body';
}

const createsForward =
  /^create definer = current_user (function|procedure) \{app\}\.(sheaf_\w+)\(.*?(\bsql security invoker\b)?\s*\n\s*((?:return|call) \{state\}\.\2\(.*\));?$/s;

const dropsForward = /^drop (?:function|procedure) if exists \{app\}\.(sheaf_\w+);?$/;

/** The forwards the files create and do not drop later, each as its newest file has it. */
export function mysqlForwardsOf(files: readonly SqlFile[]): MysqlForward[] {
  const byName = new Map<string, MysqlForward>();
  for (const statement of files.flatMap((file) => statementsOf(file.sql))) {
    const create = statement.replace(/^--.*\n/gm, '').trim();
    // A later file may drop a forward for good (0013: what only admins call stays in sheaf's database).
    const dropped = dropsForward.exec(create);
    if (dropped) byName.delete(dropped[1] as string);
    const match = createsForward.exec(create);
    if (!match) continue;
    const [, kind, name, invoker, body] = match as unknown as [
      string,
      MysqlForward['kind'],
      string,
      string | undefined,
      string,
    ];
    byName.set(name, { kind, name, security: invoker ? 'INVOKER' : 'DEFINER', create, body });
  }
  return [...byName.values()];
}

/**
 * sheaf's owner on MySQL/MariaDB: the definer of `sheaf_next_id()` in sheaf's own database (the
 * account that installed it), as `user@host`; undefined where sheaf's database is not there (an
 * install before SQL version 12, or none). Refuses with NOT_INSTALLED where the routine is missing
 * or hidden from this account, which then cannot judge who else may write.
 */
export async function mysqlOwner(session: SqlExecutor, names: MysqlState): Promise<string | undefined> {
  const [row] = await session.query<{ definer: unknown; installed: unknown }>(
    `select (select definer from information_schema.routines
        where routine_schema = ? and routine_name = 'sheaf_next_id' and routine_type = 'FUNCTION') as definer,
      (select count(*) from information_schema.tables
        where table_schema = ? and table_name = 'sheaf_schema_versions') as installed`,
    [names.state, names.state],
  );
  if (typeof row?.definer === 'string') return row.definer;
  if (Number(row?.installed) === 0) return undefined;
  throw new SheafError(
    'NOT_INSTALLED',
    `cannot see ${names.in('sheaf_next_id')}, whose definer is sheaf's owner: it is missing, or hidden from ` +
      'this account (which needs SELECT on mysql.proc on MariaDB, SHOW_ROUTINE on MySQL 8)',
    { details: { database: names.state } },
  );
}

/**
 * The forwards of `names.app` that are missing, have another definer than `owner`, another SQL
 * SECURITY, or a body that does not call their namesake in sheaf's database (a body hidden from
 * this account is not judged).
 */
export async function mysqlForwardDrift(
  session: SqlExecutor,
  names: MysqlState,
  forwards: readonly MysqlForward[],
  owner: string,
): Promise<ForwardDrift[]> {
  const rows = await session.query<{ name: string; kind: string; definer: string; security: string; body: unknown }>(
    `select routine_name as name, lower(routine_type) as kind, definer, security_type as security,
        routine_definition as body
      from information_schema.routines where routine_schema = ? and routine_name like 'sheaf%'`,
    [names.app],
  );
  const found = new Map(rows.map((row) => [`${row.kind} ${row.name}`, row]));
  return forwards.flatMap((forward): ForwardDrift[] => {
    const row = found.get(`${forward.kind} ${forward.name}`);
    if (!row) return [{ forward, definer: undefined, problem: 'missing' }];
    const body = forward.body.replaceAll('{state}', names.stateSql);
    const problem =
      row.definer !== owner
        ? 'definer'
        : row.security.toUpperCase() !== forward.security
          ? 'security'
          : typeof row.body === 'string' && row.body.trim() !== body
            ? 'body'
            : undefined;
    return problem ? [{ forward, definer: row.definer, problem }] : [];
  });
}

/**
 * Re-creates, as the files do, the forwards of `names.app` that {@link mysqlForwardDrift} finds: an
 * account that may create routines in the application's database could have replaced them, and the
 * files that made them are recorded as applied. Only sheaf's owner may: a forward it creates runs
 * as it. Refuses another installer with UNSAFE_OWNERSHIP before changing anything.
 */
export async function restoreMysqlForwards(
  session: SqlExecutor,
  names: MysqlState,
  files: readonly SqlFile[],
): Promise<void> {
  const owner = await mysqlOwner(session, names);
  if (owner === undefined) return;
  const drift = await mysqlForwardDrift(session, names, mysqlForwardsOf(files), owner);
  const [first] = drift;
  if (!first) return;
  const [row] = await session.query<{ me: unknown }>('select current_user() as me');
  if (row?.me !== owner) {
    throw new SheafError(
      'UNSAFE_OWNERSHIP',
      `${first.forward.kind} ${names.appSql}.${first.forward.name} ${first.definer ? `is defined by ${first.definer}` : 'is missing'}` +
        `${drift.length > 1 ? ` (and ${drift.length - 1} more forwards differ)` : ''}: only sheaf's owner ${owner}, the definer ` +
        `of its routines in ${names.stateSql}, may re-create them; install as ${owner} (docs/security.md, MySQL)`,
      { details: { owner, installer: String(row?.me), forwards: drift.map((each) => each.forward.name) } },
    );
  }
  const fill = (sql: string) => sql.replaceAll('{app}', names.appSql).replaceAll('{state}', names.stateSql);
  for (const { forward } of drift) {
    await session.query(`drop ${forward.kind} if exists ${names.appSql}.${forward.name}`);
    await session.query(fill(forward.create));
  }
}
