import type { DialectName } from '../dialects/dialect.js';
import { SheafError } from '../errors.js';
import type { Layout } from '../layout.js';
import { layoutByName } from '../presets.js';
import { configureParams, type DialectInstall } from './dialect-install.js';
import type { InstallOptions } from './install.js';
import { mysqlInstall } from './mysql.js';
import { nativeOutOfReach } from './native-path.js';
import { postgresInstall } from './postgres.js';
import { statementsOf } from './sql-file.js';

const installs: Record<DialectName, DialectInstall> = { postgres: postgresInstall, mysql: mysqlInstall };
const separator = '\n-- sheaf:break\n';

/**
 * The install script of {@link installScript}: its SQL and the file version it brings a database to.
 *
 * @example
 * const { version, sql }: InstallScript = installScript('postgres');
 */
export interface InstallScript {
  readonly version: number;
  /** Statements separated by `-- sheaf:break` lines, each ending with `;`. */
  readonly sql: string;
}

/**
 * What {@link installScript} takes: the install's options and, on MySQL/MariaDB, the database the
 * script is for (sheaf's state goes into `sheaf_<database>` beside it).
 *
 * @example
 * const options: InstallScriptOptions = { shard: 3, database: 'shop' };
 */
export interface InstallScriptOptions extends InstallOptions {
  readonly database?: string;
}

/**
 * The SQL that {@link install} applies to a database without sheaf, as one script to review or run
 * yourself (`sheaf install --print`): lock, version table, every file with its version row, then
 * the shard and layout. Statements are separated by `-- sheaf:break` so a driver can run them one by
 * one; psql runs the PostgreSQL script as is. Unlike `install`, it cannot see what is already there.
 *
 * @example
 * const { sql } = installScript('postgres', { shard: 3 });
 */
export function installScript(dialect: DialectName, options: InstallScriptOptions = {}): InstallScript {
  const unbound = installs[dialect];
  // Files before the move run where sheaf's tables were; the move's version row goes where they go.
  const before = unbound.named?.(options.database, false) ?? unbound;
  const after = unbound.named?.(options.database, true) ?? unbound;
  const movedFrom = unbound.movedFrom ?? Number.POSITIVE_INFINITY;
  const steps = before;
  const layout =
    typeof options.layout === 'string' ? layoutByName(options.layout) : (options.layout ?? layoutByName('sheaf'));
  const params = configureParams(checkedShard(options.shard ?? 0, layout), layout, options.testClock ?? false);
  const files = steps.files.filter((file) => file.version <= (options.upTo ?? Number.POSITIVE_INFINITY));
  const version = Math.max(0, ...files.map((file) => file.version));
  const last = version >= movedFrom ? after : before;
  const statements = [
    ...steps.bootstrap,
    ...files.flatMap((file) => {
      // Recorded as install() does: first inside PostgreSQL's transaction, last where DDL commits.
      const record = inline((file.version >= movedFrom ? after : before).record, [
        file.version,
        file.name,
        file.checksum,
      ]);
      const body = statementsOf(file.sql);
      return steps.unlock ? [...body, record] : [record, ...body];
    }),
    ...(version >= steps.configureFrom ? [inline(last.configure, params)] : []),
    // A fresh database has the production variant; only a test clock changes it.
    ...(version >= steps.configureFrom && options.testClock ? (last.testClock?.statements(files, true) ?? []) : []),
    ...nativeStatements(steps, version, options.native),
  ];
  const header = `-- sheaf SQL version ${version} (${dialect}) for a database without sheaf: shard ${params[0]}, layout ${params[1]}.`;
  return { version, sql: script(header, steps, statements) };
}

// Left out, the path stays unchosen: the next install() takes native where it can run.
function nativeStatements(steps: DialectInstall, version: number, native: boolean | undefined): readonly string[] {
  if (native === undefined) return [];
  if (steps.nativePath && version >= steps.nativePath.from) return steps.nativePath.statements(native);
  if (!native) return [];
  throw nativeOutOfReach(steps.nativePath, version);
}

/**
 * The SQL that removes sheaf, as `uninstall(executor, { force: true })` does: what depends on it
 * (PostgreSQL column defaults and views; MySQL triggers) goes too. For `sheaf uninstall --print`.
 *
 * @example
 * const sql = uninstallScript('mysql', { database: 'shop' });
 */
export function uninstallScript(dialect: DialectName, options: { readonly database?: string } = {}): string {
  const steps = installs[dialect].named?.(options.database, true) ?? installs[dialect];
  const statements = [...steps.scriptDependentDrops, ...steps.uninstall];
  return script(`-- Removes sheaf (${dialect}) and whatever still depends on it.`, steps, statements);
}

/**
 * The newest SQL file version this package installs on `dialect`: what `install` upgrades to.
 *
 * @example
 * sqlVersion('postgres'); // 6
 */
export function sqlVersion(dialect: DialectName): number {
  return Math.max(...installs[dialect].files.map((file) => file.version));
}

function script(header: string, steps: DialectInstall, statements: readonly string[]): string {
  // PostgreSQL takes the whole script in one transaction; MySQL commits each DDL statement anyway.
  const begin = steps.unlock ? [] : ['begin'];
  const end = steps.unlock ? [steps.unlock] : ['commit'];
  const all = [...begin, steps.lock, ...statements, ...end].map((statement) => terminated(statement.trim()));
  return `${header}\n\n${all.join(separator)}\n`;
}

// install() leaves this check to sheaf.configure; a printed script should not fail half-way instead.
function checkedShard(shard: number, layout: Layout): number {
  if (Number.isInteger(shard) && shard >= 0 && shard <= layout.maxShard) return shard;
  throw new SheafError(
    'SHARD_OUT_OF_RANGE',
    `shard ${shard} does not fit ${layout.shardBits} shard bits (max ${layout.maxShard})`,
    { details: { shardId: shard, shardBits: layout.shardBits, max: layout.maxShard } },
  );
}

function terminated(statement: string): string {
  return statement.endsWith(';') ? statement : `${statement};`;
}

/** Writes parameters into a statement as literals; `$n` on PostgreSQL, `?` on MySQL. */
function inline(statement: string, params: readonly unknown[]): string {
  let next = 0;
  return statement.replace(/\$(\d+)|\?/g, (_, index: string | undefined) =>
    literal(params[index === undefined ? next++ : Number(index) - 1]),
  );
}

// Values here are numbers, booleans, file names, hex checksums and layout names (validated to
// [a-z0-9_-]), so doubling quotes is enough on both dialects.
function literal(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `'${String(value).replace(/'/g, "''")}'`;
}
