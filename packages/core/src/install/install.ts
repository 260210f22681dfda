import type { DialectName } from '../dialects/dialect.js';
import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import { type Database, executorOf } from '../executors/executor-of.js';
import type { Layout } from '../layout.js';
import { layoutOrPreset, type PresetName } from '../presets.js';
import { shardArgument } from '../shard-argument.js';
import { applyFile } from './apply-files.js';
import type { DialectInstall } from './dialect-install.js';
import { bindNode, galeraOn, galeraRegistryRefused, readGaleraNode } from './galera-node.js';
import { mysqlInstall } from './mysql.js';
import { nativeOutOfReach } from './native-path.js';
import { checkNode } from './node-identity.js';
import { postgresInstall } from './postgres.js';
import { type Registration, registerShard } from './registration.js';
import { keptRoutineGrants, restoreRoutineGrants } from './routine-grants.js';
import { configureWith, type SettingsRow } from './settings.js';
import { switchTestClock } from './test-clock.js';

const installs: Partial<Record<DialectName, DialectInstall>> = { postgres: postgresInstall, mysql: mysqlInstall };

/**
 * What {@link install} takes.
 *
 * @example
 * const options: InstallOptions = { shard: 7, layout: 'sheaf' };
 */
export interface InstallOptions {
  /**
   * The shard id this database issues ids for (`sheaf.next_id()`). Omitted: the shard the database
   * has configured (0 on a fresh install), so an upgrade never moves a database to another shard.
   * On a node of a Galera cluster: the shard of that node, each node its own (docs/galera.md);
   * omitted, the node's shard, or for a node without one the configured shard when no other node
   * has it.
   */
  readonly shard?: number;
  /**
   * A preset name or a layout from `defineLayout`. Omitted: the configured layout (`sheaf` on a
   * fresh install). Fixed once ids were issued.
   */
  readonly layout?: Layout | PresetName;
  /**
   * Lets tests move the generator's clock: through settings on PostgreSQL (docs/sql/postgres.md),
   * through session variables read by a test variant of `sheaf_next_id()` on MySQL
   * (docs/sql/mysql.md); never in production. Omitted: as configured (off on a fresh install).
   */
  readonly testClock?: boolean;
  /** Installs only files up to this version: for testing upgrades from an earlier release. */
  readonly upTo?: number;
  /**
   * The database that holds the id space of a deployment with several databases (docs/layout.md,
   * Id space): the shard is claimed there before anything changes here, and confirmed after this
   * install commits. Refused with SHARD_TAKEN (naming the holder) when another database or a
   * worker has it, REGISTRY_UNAVAILABLE when it cannot be reached. Application generators then
   * lease worker ids from the registry only. Omitted: as recorded (a database is its own registry
   * on a fresh install).
   */
  readonly registry?: Database;
  /**
   * PostgreSQL: run `sheaf.next_id()` in C, through the extension `sheaf_native` (docs/native.md),
   * or in PL/pgSQL (`false`). Both use the same state, so either switch is safe while ids are being
   * taken. `true` is refused with NATIVE_UNAVAILABLE where the extension is not installed on the
   * server or this role may not create it. Omitted: as chosen before; on a database where nobody
   * chose yet, native when it can run, PL/pgSQL otherwise. MySQL/MariaDB: only `false` or omitted.
   */
  readonly native?: boolean;
  /**
   * PostgreSQL: this database is a copy whose original is gone for good (a restore after losing the
   * server, `pg_upgrade`, a managed major-version upgrade): keep its shard and database_id, bound to
   * the node it runs on now (docs/replication.md). Without it, and without `shard`, an install on a
   * copy is refused with DATABASE_COPIED; with `shard`, a copy becomes a database of its own.
   */
  readonly moved?: boolean;
  /**
   * PostgreSQL: this database is a physical clone of another (pg_basebackup, a restored backup, a
   * disk snapshot used to add a node), which shares its identity so that no check can tell them
   * apart: make it a database of its own (a new database_id) with `shard`, which it then needs.
   */
  readonly clone?: boolean;
}

/**
 * What {@link install} did.
 *
 * @example
 * const { version, applied }: InstallResult = await install(executor);
 */
export interface InstallResult {
  /** The highest file version now installed. */
  readonly version: number;
  /** The versions this call applied (empty when everything was already there). */
  readonly applied: readonly number[];
}

/**
 * Installs or upgrades sheaf's SQL and configures shard and layout; options left out keep what the
 * database has configured (shard 0 and layout `sheaf` on a fresh install), so calling it at start-up
 * to upgrade is safe. Idempotent; serialised by a lock so concurrent installers are safe; on
 * PostgreSQL all in one transaction; on MySQL a file that failed half-way is applied again by the
 * next install. Refuses a database whose recorded files differ from this package's
 * (`INSTALL_CONFLICT`).
 *
 * @example
 * await install(pgExecutor(pool), { shard: 3 }); // later, at start-up: await install(executor)
 */
export async function install(db: Database, options: InstallOptions = {}): Promise<InstallResult> {
  checkShardOption(options);
  const executor = executorOf(db, 'install');
  const dialect = dialectInstall(executor);
  // Before anything changes: MySQL's DDL would not roll back.
  if (options.native && !dialect.nativePath) throw nativeOutOfReach(undefined, 0);
  if ((options.moved || options.clone) && executor.dialect.name !== 'postgres') {
    const option = options.moved ? 'moved' : 'clone';
    throw new SheafError('UNSUPPORTED_DIALECT', `install({ ${option} }) is not supported on ${executor.dialect.name}`);
  }
  const { result, registered } = await inInstallLock(executor, dialect, async (session) => {
    // Before the registry is asked for anything: a refusal here changes nothing anywhere.
    await dialect.preflight?.(session);
    if (options.registry && dialect.nodeShards && (await galeraOn(session))) throw galeraRegistryRefused();
    const bound = (await dialect.bind?.(session)) ?? dialect;
    // A copy becomes a database of its own (or is confirmed as moved) before a registry hears of it.
    await checkNode(session, options);
    const registration =
      options.registry && (await registerShard(session, bound, options, executorOf(options.registry, 'registry')));
    try {
      const result = await installFiles(session, dialect, options, registration);
      return { result, registered: registration };
    } catch (error) {
      await registration?.undo().catch(() => undefined);
      throw error;
    }
  });
  await registered?.confirm();
  return result;
}

async function installFiles(
  session: SqlExecutor,
  unbound: DialectInstall,
  options: InstallOptions,
  registration: Registration | undefined,
): Promise<InstallResult> {
  let dialect = (await unbound.bind?.(session)) ?? unbound;
  const files = dialect.files.filter((file) => file.version <= (options.upTo ?? Number.POSITIVE_INFINITY));
  for (const statement of dialect.bootstrap) await session.query(statement);
  // Again once the schema exists: a role that created it between the first check and the bootstrap
  // owns it now, and the install's transaction rolls back.
  await dialect.preflight?.(session);
  const grants = await keptRoutineGrants(session, dialect);
  const recorded = await session.query<{ version: unknown; checksum: unknown }>(dialect.recorded);
  const known = new Map(recorded.map((row) => [Number(row.version), String(row.checksum)]));
  for (const [version, checksum] of known) {
    const file = dialect.files.find((candidate) => candidate.version === version);
    if (!file) {
      throw new SheafError(
        'INSTALL_CONFLICT',
        `the database has sheaf SQL version ${version}, newer than this package (up to ${dialect.files.length}); ` +
          'upgrade @sheaf/core',
        { details: { version, known: dialect.files.length } },
      );
    }
    if (file.checksum !== checksum) {
      throw new SheafError(
        'INSTALL_CONFLICT',
        `sheaf SQL file ${version} (${file.name}) installed in the database differs from this package's ` +
          `(checksum ${checksum.slice(0, 12)}… vs ${file.checksum.slice(0, 12)}…)`,
        { details: { version, recorded: checksum, expected: file.checksum } },
      );
    }
  }
  const applied: number[] = [];
  for (const file of files) {
    if (known.has(file.version)) continue;
    await applyFile(session, dialect, file);
    dialect = (await unbound.bind?.(session)) ?? dialect;
    applied.push(file.version);
  }
  const version = Math.max(0, ...known.keys(), ...applied);
  // Before configure, which calls one of them as this installer.
  await dialect.restoreForwards?.(
    session,
    unbound.files.filter((file) => file.version <= version),
  );
  if (version < dialect.configureFrom) return restoreRoutineGrants(session, dialect, grants, { version, applied });
  if (dialect.repair && version >= dialect.repair.from) await session.query(dialect.repair.statement);
  const [current] = await session.query<SettingsRow>(dialect.settings);
  const galera =
    dialect.nodeShards && version >= dialect.nodeShards.from
      ? await readGaleraNode(session, dialect.nodeShards)
      : undefined;
  // On a Galera node `shard` is the node's own; the settings' shard stays as the first node set it.
  const params = configureWith(current, galera && galera.bound > 0 ? { ...options, shard: undefined } : options);
  if (registration) await registration.beforeConfigure(version, dialect);
  await session.query(dialect.configure, params);
  if (registration) await registration.afterConfigure(current, dialect);
  if (galera && dialect.nodeShards) {
    await bindNode(session, dialect.nodeShards, options.shard ?? galera.shard ?? Number(params[0]));
  }
  if (dialect.testClock) {
    const installed = dialect.files.filter((file) => file.version <= version);
    await switchTestClock(session, dialect.testClock, installed, params[6] === true, current);
  }
  if (dialect.nativePath && version >= dialect.nativePath.from) {
    await dialect.nativePath.choose(session, options.native);
  } else if (options.native) {
    throw nativeOutOfReach(dialect.nativePath, version);
  }
  if (dialect.appRoles && version >= dialect.appRoles.from) {
    const roles = await session.query<{ role: string }>(dialect.appRoles.query);
    for (const { role } of roles) {
      for (const statement of dialect.appRoles.statements(role, version)) await session.query(statement);
    }
  }
  return restoreRoutineGrants(session, dialect, grants, { version, applied });
}

/**
 * What {@link uninstall} takes.
 *
 * @example
 * await uninstall(executor, { force: true });
 */
export interface UninstallOptions {
  /** Also drop what depends on sheaf (column defaults, views); otherwise refuse with `IN_USE`. */
  readonly force?: boolean;
}

/**
 * Removes sheaf's objects. Refuses (`IN_USE`, naming them) while column defaults, triggers,
 * views, constraints or (on PostgreSQL) SQL-standard functions outside sheaf still use it, unless
 * `force` is set. Does nothing where sheaf is absent.
 *
 * @example
 * await uninstall(executor);
 */
export async function uninstall(db: Database, options: UninstallOptions = {}): Promise<void> {
  const executor = executorOf(db, 'uninstall');
  const unbound = dialectInstall(executor);
  await inInstallLock(executor, unbound, async (session) => {
    const dialect = (await unbound.bind?.(session)) ?? unbound;
    const [probe] = await session.query<{ installed: unknown }>(dialect.probe);
    if (!truthy(probe?.installed)) return;
    const dependents = await session.query<{ dependent: string }>(dialect.dependents);
    if (dependents.length > 0 && !options.force) {
      const names = dependents.map((row) => row.dependent);
      throw new SheafError(
        'IN_USE',
        `cannot uninstall: ${names.join('; ')} still use sheaf (drop or change them, or pass force)`,
        { details: { dependents: names } },
      );
    }
    // One statement each: MySQL 8 cannot run DROP TRIGGER from a prepared statement (error 1295).
    if (dialect.dependentDrops) {
      const drops = await session.query<{ statement: string }>(dialect.dependentDrops);
      for (const { statement } of drops) await session.query(statement);
    }
    for (const statement of dialect.uninstall) await session.query(statement);
  });
}

/**
 * Refuses a shard that is not an integer in range before anything reaches the database: PostgreSQL
 * would refuse 1.5 with a parse error, MySQL would round it to 2 and configure that shard.
 */
function checkShardOption(options: InstallOptions): void {
  if (options?.shard === undefined) return;
  shardArgument(options.shard, options.layout === undefined ? undefined : layoutOrPreset(options.layout));
}

function dialectInstall(executor: SqlExecutor): DialectInstall {
  const dialect = installs[executor.dialect.name];
  if (!dialect) {
    throw new SheafError('INVALID_ARGUMENT', `cannot install into a ${executor.dialect.name} database yet`);
  }
  return dialect;
}

async function inInstallLock<T>(
  executor: SqlExecutor,
  dialect: DialectInstall,
  work: (session: SqlExecutor) => Promise<T>,
): Promise<T> {
  return executor.session(async (session) => {
    const transactional = executor.dialect.transactionalDdl;
    if (transactional) await session.query('begin');
    try {
      const [lock] = await session.query<{ locked?: unknown }>(dialect.lock);
      // GET_LOCK answers 0 after its timeout instead of failing.
      if (lock && 'locked' in lock && !truthy(lock.locked)) {
        throw new SheafError('INSTALL_CONFLICT', 'another sheaf installer held the install lock for 60 s; try again');
      }
      const result = await work(session);
      if (transactional) await session.query('commit');
      return result;
    } catch (error) {
      if (transactional) await session.query('rollback');
      throw error;
    } finally {
      if (dialect.unlock) await session.query(dialect.unlock);
    }
  });
}

function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}
