import type { SqlExecutor } from '../executor.js';
import { mysqlOwner } from '../install/mysql-forwards.js';
import { mysqlStateOf } from '../install/mysql-state.js';
import type { GrantFinding } from './findings.js';
import { mysqlAppRoutineNames } from './mysql.js';

type Row = Record<string, unknown>;

/**
 * The columns of mysql.db that let an account read sheaf's secrets (lease tokens, the journal's key),
 * stall its claims (LOCK TABLES) or change its state, and the privilege each is.
 */
const databaseWrites: readonly (readonly [string, string])[] = [
  ['select_priv', 'select'],
  ['lock_tables_priv', 'lock tables'],
  ['insert_priv', 'insert'],
  ['update_priv', 'update'],
  ['delete_priv', 'delete'],
  ['create_priv', 'create'],
  ['drop_priv', 'drop'],
  ['alter_priv', 'alter'],
  ['index_priv', 'index'],
  ['create_routine_priv', 'create routine'],
  ['alter_routine_priv', 'alter routine'],
  ['execute_priv', 'execute'],
  ['trigger_priv', 'trigger'],
  ['grant_priv', 'grant option'],
];
const tableWrites = new Set([
  'select',
  'insert',
  'update',
  'delete',
  'create',
  'drop',
  'alter',
  'index',
  'trigger',
  'grant',
]);

// A database-level row reaches sheaf's database when its pattern matches the name as the server
// matches it: LIKE with `\` escaping `_` and `%` (backslash as char(92), whatever the sql_mode);
// MySQL 8 with partial_revokes takes the name literally.
const databaseRows = (literal: boolean) => `
  select user, host, db, ${databaseWrites.map(([column]) => column).join(', ')}
  from mysql.db where ${literal ? 'db = ?' : '? like db escape char(92)'} order by user, host, db`;
const tableRows = `select user, host, table_name, table_priv, column_priv from mysql.tables_priv
  where db = ? order by user, host, table_name`;
const routineRows = `select user, host, routine_name, lower(routine_type) as routine_type, proc_priv
  from mysql.procs_priv where db = ? order by user, host, routine_name`;

/**
 * Who besides sheaf's owner (the definer of its routines) may read, lock or change sheaf's state in
 * `sheaf_<app>` through a database-, table- or routine-level grant: one finding per account and
 * object, its privileges joined. Global privileges (mysql.user) are an administrator's and not
 * listed. Needs SELECT on mysql.db, mysql.tables_priv and mysql.procs_priv.
 */
export async function auditMysqlGrants(executor: SqlExecutor): Promise<GrantFinding[]> {
  const names = await mysqlStateOf(executor);
  const literal = await partialRevokes(executor);
  // The grant tables first: an account that may not read them hears so.
  const [databases, tables, routines] = [
    await executor.query<Row>(databaseRows(literal), [names.state]),
    await executor.query<Row>(tableRows, [names.state]),
    await executor.query<Row>(routineRows, [names.state]),
  ];
  const owner = await mysqlOwner(executor, names);
  if (owner === undefined) return [];
  const others = (row: Row) => account(row) !== owner;
  const findings: GrantFinding[] = [];
  for (const row of databases.filter(others)) {
    const held = databaseWrites.filter(([column]) => yes(row[column])).map(([, privilege]) => privilege);
    const privilege = held.length === databaseWrites.length ? 'all privileges' : held.join(', ');
    if (held.length > 0) findings.push({ grantee: account(row), privilege, object: `\`${String(row.db)}\`.*` });
  }
  for (const row of tables.filter(others)) {
    const held = set(row.table_priv).filter((privilege) => tableWrites.has(privilege));
    const columns = set(row.column_priv).filter((privilege) => ['select', 'insert', 'update'].includes(privilege));
    const privileges = [...held, ...columns.map((privilege) => `${privilege} (columns)`)];
    if (privileges.length > 0) {
      findings.push({
        grantee: account(row),
        privilege: privileges.join(', ').replace('grant', 'grant option'),
        object: `table ${names.in(String(row.table_name))}`,
      });
    }
  }
  for (const row of routines.filter(others)) {
    const internal = !mysqlAppRoutineNames.has(String(row.routine_name));
    const held = set(row.proc_priv)
      .filter((privilege) => privilege !== 'execute' || internal)
      .map((privilege) => (privilege === 'grant' ? 'grant option' : privilege));
    if (held.length > 0) {
      findings.push({
        grantee: account(row),
        privilege: held.join(', '),
        object: `${String(row.routine_type)} ${names.in(String(row.routine_name))}`,
      });
    }
  }
  return findings;
}

async function partialRevokes(executor: SqlExecutor): Promise<boolean> {
  const rows = await executor.query<Row>("show global variables like 'partial_revokes'");
  return rows.some((row) => String(row.Value ?? row.value).toUpperCase() === 'ON');
}

// As DEFINER spells an account, so sheaf's owner compares equal.
function account(row: Row): string {
  return `${String(row.user ?? row.User)}@${String(row.host ?? row.Host)}`;
}

function yes(value: unknown): boolean {
  return String(value).toUpperCase() === 'Y';
}

function set(value: unknown): string[] {
  return String(value ?? '')
    .toLowerCase()
    .split(',')
    .filter((each) => each !== '');
}
