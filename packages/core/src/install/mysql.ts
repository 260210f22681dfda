import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import { mysqlRegrants, mysqlRoutineGrantsQuery } from '../grants/mysql.js';
import type { DialectInstall } from './dialect-install.js';
import { mysqlFiles } from './files.generated.js';
import { mysqlIdSpace } from './id-space.js';
import { restoreMysqlForwards } from './mysql-forwards.js';
import { filledStrings, type MysqlState, mysqlState, mysqlStateOf } from './mysql-state.js';
import { mysqlTestClock } from './mysql-test-clock.js';

/**
 * Every routine and table sheaf has had in the application's database: since 0012 the routines there
 * are forwards to sheaf's own database, and the tables are gone from it.
 */
const routines = [
  ['procedure', 'sheaf__fail'],
  ['procedure', 'sheaf__check_shard'],
  ['function', 'sheaf__iso'],
  ['function', 'sheaf__max_tick'],
  ['function', 'sheaf_next_id'],
  ['function', 'sheaf_next_shard_id'],
  ['procedure', 'sheaf_next_shard_ids'],
  ['procedure', 'sheaf_next_ids'],
  ['function', 'sheaf__tick'],
  ['function', 'sheaf_id_floor'],
  ['function', 'sheaf_id_ceiling'],
  ['function', 'sheaf_encode_id'],
  ['function', 'sheaf__check_id'],
  ['function', 'sheaf_id_time'],
  ['function', 'sheaf_id_shard'],
  ['function', 'sheaf_id_sequence'],
  ['function', 'sheaf_decode_id'],
  ['procedure', 'sheaf_configure'],
  ['function', 'sheaf__now_ms'],
  ['procedure', 'sheaf_create_ticket'],
  ['function', 'sheaf_next_ticket'],
  ['procedure', 'sheaf_create_segment'],
  ['procedure', 'sheaf_alloc_segment'],
  ['procedure', 'sheaf_lease_worker'],
  ['function', 'sheaf_heartbeat_worker'],
  ['function', 'sheaf_release_worker'],
  ['procedure', 'sheaf_add_shard'],
  ['procedure', 'sheaf__check_owned_shard'],
  ['function', 'sheaf_close_worker'],
  // 0006; sheaf__id_space_0006 is dropped by the file, and stays only after a refused upgrade.
  ['procedure', 'sheaf__id_space_0006'],
  ['function', 'sheaf__claim'],
  ['function', 'sheaf_claim_shard'],
  ['function', 'sheaf_release_shard'],
  ['function', 'sheaf__claim_own_shard'],
  ['procedure', 'sheaf__use_registry'],
  ['procedure', 'sheaf__check_lease_args'],
  ['procedure', 'sheaf__take_worker'],
  ['procedure', 'sheaf_lease_worker_id'],
  // 0007
  ['procedure', 'sheaf_ticket_series'],
  // 0008; sheaf__segment_classes_0008 is dropped by the file, and stays only after a failed upgrade.
  ['procedure', 'sheaf__segment_classes_0008'],
  ['procedure', 'sheaf_create_segment_class'],
  ['procedure', 'sheaf_segment_class'],
  ['procedure', 'sheaf_alloc_segment_class'],
  // 0009; sheaf__adopt_ticket_0009 is dropped by the file, and stays only after a failed upgrade.
  ['procedure', 'sheaf__adopt_ticket_0009'],
  ['procedure', 'sheaf_adopt_ticket'],
  // 0010
  ['function', 'sheaf__claim_chunk'],
] as const;
/** The file version that moves sheaf's state into `sheaf_<app>` (mysql-state.ts). */
const movedFrom = 12;
const tables = [
  'sheaf_settings',
  'sheaf_chunks',
  'sheaf_tickets',
  'sheaf_ticket_counter',
  'sheaf_segments',
  'sheaf_workers',
  'sheaf_logical_shards',
  'sheaf_schema_versions',
];

// Triggers of this database whose body calls a sheaf routine.
const dependentTriggers = `
  from information_schema.triggers
  where trigger_schema = database() and action_statement regexp 'sheaf_[a-z_]+[[:space:]]*[(]'`;

/**
 * The statements name `{home}`, where sheaf's tables are now (the application's database before
 * 0012 and while upgrading to it, `{state}` after), `{app}` and `{state}`, and `_text` forms of them
 * as string literals; bind() fills them in for a session.
 */
const template: DialectInstall = {
  files: mysqlFiles,
  bootstrap: [
    `create table if not exists {home}.sheaf_schema_versions (
      version integer not null primary key,
      name varchar(100) not null,
      checksum char(64) not null,
      installed_at datetime(3) not null default current_timestamp(3)
    ) engine = innodb`,
  ],
  lock: "select get_lock(concat('sheaf_install:', database()), 60) as locked",
  unlock: "select release_lock(concat('sheaf_install:', database())) as released",
  recorded: 'select version, checksum from {home}.sheaf_schema_versions order by version',
  record: 'insert into {home}.sheaf_schema_versions (version, name, checksum) values (?, ?, ?)',
  settings: `select shard_id, layout_name, epoch_ms, time_bits, shard_bits, sequence_bits, test_clock
    from {home}.sheaf_settings where singleton = 1`,
  // sheaf's own routine, never a forward: the owner of the application's database controls those.
  configure: 'call {home}.sheaf_configure(?, ?, ?, ?, ?, ?, ?)',
  configureFrom: 2,
  idSpace: mysqlIdSpace,
  probe: `select count(*) > 0 as installed from information_schema.tables
    where table_schema in ({app_text}, {state_text}) and table_name = 'sheaf_schema_versions'`,
  dependents: `select concat('trigger ', trigger_name, ' on ', event_object_table) as dependent ${dependentTriggers}
    order by 1`,
  dependentDrops: `select concat('drop trigger \`', replace(trigger_name, '\`', '\`\`'), '\`') as statement
    ${dependentTriggers} order by trigger_name`,
  // A printed script has no client to loop in, so a procedure does it. MariaDB only: MySQL 8
  // cannot prepare DROP TRIGGER (error 1295), so there drop the triggers before running it.
  scriptDependentDrops: [
    `create procedure sheaf__drop_dependents() modifies sql data
    begin
      declare v_done boolean default false;
      declare v_sql text;
      declare c cursor for select concat('drop trigger \`', replace(trigger_name, '\`', '\`\`'), '\`') ${dependentTriggers};
      declare continue handler for not found set v_done = true;
      open c;
      drop_each: loop
        fetch c into v_sql;
        if v_done then leave drop_each; end if;
        set @sheaf_drop = v_sql;
        prepare s from @sheaf_drop;
        execute s;
        deallocate prepare s;
      end loop;
      close c;
    end`,
    'call sheaf__drop_dependents()',
    'drop procedure sheaf__drop_dependents',
  ],
  uninstall: [
    // Left behind by an uninstall of an earlier version that failed half-way.
    'drop procedure if exists sheaf__drop_dependents',
    ...routines.map(([kind, name]) => `drop ${kind} if exists {app}.${name}`),
    ...tables.map((name) => `drop table if exists {app}.${name}`),
    // sheaf's own database: its tables, routines and migration journal.
    'drop database if exists {state}',
  ],
  preflight: async (session) => {
    await checkBinlogTrust(session);
    await refuseSquattedState(session);
  },
  testClock: mysqlTestClock,
  routineGrants: { query: mysqlRoutineGrantsQuery, statements: mysqlRegrants },
  movedFrom,
  nodeShards: {
    from: 15,
    reading: `select @@global.wsrep_on as galera, @@global.wsrep_node_name as node,
      (select count(*) from {state}.sheaf_nodes) as bound,
      (select shard_id from {state}.sheaf_nodes where node = @@global.wsrep_node_name) as node_shard`,
    bind: 'call {state}.sheaf_bind_node(?)',
  },
};

/**
 * Installs into the current database and sheaf's own beside it (mysql-state.ts) under a `GET_LOCK`
 * named after the current one. MySQL commits each DDL statement at once, so the version row of a
 * file goes in after its statements (apply-files.ts).
 */
export const mysqlInstall: DialectInstall = {
  ...template,
  bind: async (session) => {
    const { names, moved, wsrep } = await bindingOf(session);
    return named(names, moved, wsrep);
  },
  named: (database, moved) => {
    if (database === undefined) {
      throw new SheafError(
        'INVALID_ARGUMENT',
        'a MySQL install script needs the database it is for: pass { database }',
        {
          details: { database: null },
        },
      );
    }
    return named(mysqlState(database), moved, true);
  },
};

/**
 * MariaDB has Galera's variables whether or not it runs in a cluster; MySQL 8 has none, and refuses
 * a routine that names one (error 1193). There the files' Galera branches read as "not a Galera node".
 */
async function hasWsrep(session: SqlExecutor): Promise<boolean> {
  try {
    await session.query('select @@global.wsrep_on as galera');
    return true;
  } catch {
    return false;
  }
}

/** Where the session's database keeps sheaf, and whether the server has Galera's variables. */
async function bindingOf(session: SqlExecutor): Promise<{ names: MysqlState; moved: boolean; wsrep: boolean }> {
  const names = await mysqlStateOf(session);
  const [row] = await session.query<{ moved: unknown }>(
    `select count(*) as moved from information_schema.tables where table_schema = ? and table_name = 'sheaf_schema_versions'`,
    [names.state],
  );
  return { names, moved: Number(row?.moved) > 0, wsrep: await hasWsrep(session) };
}

/**
 * `sql` (a statement of sheaf's MySQL files, numbered or under sql/mysql/routines) with its
 * placeholders filled in as the installer fills them for the session's database: `{app}`,
 * `{state}`, `{home}` and their `_text` forms, and Galera's variables on a server without them.
 *
 * @example
 * const fill = await mysqlPlaceholders(session);
 * await session.query(fill('call {state}.sheaf_configure(?, ?, ?, ?, ?, ?, ?)'), args);
 */
export async function mysqlPlaceholders(session: SqlExecutor): Promise<(sql: string) => string> {
  const { names, moved, wsrep } = await bindingOf(session);
  return filler(names, moved, wsrep);
}

function filler(names: MysqlState, moved: boolean, wsrep: boolean): (sql: string) => string {
  // As text, from the session's database rather than quoted literals, which sql_mode would read differently.
  const values: Record<string, string> = {
    '{home}': moved ? names.stateSql : names.appSql,
    '{home_text}': moved ? "concat('sheaf_', database())" : 'database()',
    '{app}': names.appSql,
    '{app_text}': 'database()',
    '{state}': names.stateSql,
    '{state_text}': "concat('sheaf_', database())",
  };
  const galera = (sql: string) =>
    wsrep ? sql : sql.replace(/@@global\.wsrep_on/g, 'false').replace(/@@global\.wsrep_node_name/g, "''");
  return (sql: string) => galera(sql.replace(/\{(home|app|state)(_text)?\}/g, (token) => values[token] ?? token));
}

function named(names: MysqlState, moved: boolean, wsrep: boolean): DialectInstall {
  const fill = filler(names, moved, wsrep);
  const fillAll = (list: readonly string[]) => list.map(fill);
  return {
    ...mysqlInstall,
    files: template.files.map((file) => ({ ...file, sql: fill(file.sql) })),
    bootstrap: fillAll(template.bootstrap),
    recorded: fill(template.recorded),
    record: fill(template.record),
    settings: fill(template.settings),
    configure: fill(template.configure),
    probe: fill(template.probe),
    uninstall: fillAll(template.uninstall),
    idSpace: filledStrings(mysqlIdSpace, fill),
    testClock: { ...mysqlTestClock, installed: fill(mysqlTestClock.installed) },
    nodeShards: filledStrings(template.nodeShards, fill),
    restoreForwards: (session, files) => restoreMysqlForwards(session, names, files),
  };
}

/**
 * With binary logging on, MySQL/MariaDB refuse `create function … modifies sql data` (error 1418)
 * unless log_bin_trust_function_creators is set: say so before half an install is applied.
 */
async function checkBinlogTrust(session: SqlExecutor): Promise<void> {
  const [row] = await session.query<{ log_bin: unknown; trust: unknown; format: unknown }>(
    'select @@log_bin as log_bin, @@log_bin_trust_function_creators as trust, @@binlog_format as format',
  );
  const on = (value: unknown) => Number(value) === 1;
  if (row && on(row.log_bin) && !on(row.trust)) {
    throw new SheafError(
      'SERVER_CONFIG',
      'binary logging is on and log_bin_trust_function_creators is off, so the server refuses sheaf_next_id() ' +
        '(it writes data and reads the clock): run `set global log_bin_trust_function_creators = 1` as an admin ' +
        '(and put it in the server config; on RDS and Aurora, the DB parameter group): every sheaf install needs it, ' +
        'also for the app-side generators, whose routines include functions that write',
      { details: { setting: 'log_bin_trust_function_creators', binlogFormat: String(row.format) } },
    );
  }
  if (row && on(row.log_bin) && String(row.format).toUpperCase() === 'STATEMENT') {
    throw new SheafError(
      'SERVER_CONFIG',
      'binlog_format is STATEMENT, which cannot replay SYSDATE(): set binlog_format to ROW or MIXED',
      { details: { setting: 'binlog_format', binlogFormat: String(row.format) } },
    );
  }
}

/**
 * sheaf's state goes into `sheaf_<app>`: a database of that name that holds objects but no sheaf
 * version table was made by someone else, whose objects (or grants there) would sit beside sheaf's
 * state. Refused before anything changes; an empty one (made by an admin for the installer) is fine.
 */
async function refuseSquattedState(session: SqlExecutor): Promise<void> {
  const names = await mysqlStateOf(session);
  const [row] = await session.query<{ present: unknown; sheaf: unknown; objects: unknown }>(
    `select (select count(*) from information_schema.schemata where schema_name = ?) as present,
      (select count(*) from information_schema.tables where table_schema = ? and table_name = 'sheaf_schema_versions')
        as sheaf,
      (select count(*) from information_schema.tables where table_schema = ?)
        + (select count(*) from information_schema.routines where routine_schema = ?)
        + (select count(*) from information_schema.events where event_schema = ?) as objects`,
    [names.state, names.state, names.state, names.state, names.state],
  );
  if (Number(row?.present) === 0 || Number(row?.sheaf) > 0 || Number(row?.objects) === 0) return;
  const [legacy] = await session.query<{ n: unknown }>(
    `select count(*) as n from information_schema.tables
      where table_schema = database() and table_name = 'sheaf_schema_versions'`,
  );
  // An upgrade that stopped half-way through 0012 has sheaf's routines there already; its rerun repairs it.
  if (Number(legacy?.n) > 0 && (await onlySheafRoutines(session, names.state))) return;
  throw new SheafError(
    'UNSAFE_OWNERSHIP',
    `database ${names.state} exists with ${Number(row?.objects)} objects that sheaf did not make: sheaf keeps the ` +
      `state of ${names.app} there, where only its owner may write; as an admin, move them out and drop database ` +
      `${names.state}, then install again (docs/security.md)`,
    { details: { database: names.state, objects: Number(row?.objects) } },
  );
}

async function onlySheafRoutines(session: SqlExecutor, state: string): Promise<boolean> {
  const [row] = await session.query<{ other: unknown }>(
    `select (select count(*) from information_schema.tables where table_schema = ?)
      + (select count(*) from information_schema.events where event_schema = ?)
      + (select count(*) from information_schema.routines where routine_schema = ? and routine_name not like 'sheaf\\_%')
      as other`,
    [state, state, state],
  );
  return Number(row?.other) === 0;
}
