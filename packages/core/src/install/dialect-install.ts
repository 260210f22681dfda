import type { SqlExecutor } from '../executor.js';
import type { Layout } from '../layout.js';
import type { NodeShardInstall } from './galera-node.js';
import type { IdSpaceInstall } from './id-space.js';
import type { NativePathInstall } from './native-path.js';
import type { SqlFile } from './sql-file.js';

/** What the installer needs to know of a dialect; one object per dialect, parallel in shape. */
export interface DialectInstall {
  readonly files: readonly SqlFile[];
  /** Statements that create the version table when it is missing. */
  readonly bootstrap: readonly string[];
  /** Takes the install lock: two installers never interleave. */
  readonly lock: string;
  /** Releases it, where it outlives the transaction (MySQL's GET_LOCK). */
  readonly unlock: string | undefined;
  /** `select version, checksum from …` of the recorded files. */
  readonly recorded: string;
  /** Records one file as installed; parameters: version, name, checksum. */
  readonly record: string;
  /** Reads the configured settings row (the columns of `SettingsRow`). */
  readonly settings: string;
  /** Sets the shard and layout; parameters as in {@link configureParams}. */
  readonly configure: string;
  /** The first file version that provides `configure`: a partial install below it skips the call. */
  readonly configureFrom: number;
  /** Is anything of sheaf installed? One row with a truthy `installed` column if so. */
  readonly probe: string;
  /** Lists objects outside sheaf (column defaults, triggers, views) that depend on it, as `dependent` text. */
  readonly dependents: string;
  /**
   * Lists, as `statement` rows, the statements that drop what depends on sheaf and `uninstall`
   * leaves standing (MySQL triggers); undefined where `uninstall` drops them itself.
   */
  readonly dependentDrops: string | undefined;
  /** The same for a printed script, which cannot run a query first: statements run in place. */
  readonly scriptDependentDrops: readonly string[];
  /** Removes sheaf and, on PostgreSQL, the column defaults and views that depend on it. */
  readonly uninstall: readonly string[];
  /**
   * Application roles whose privileges an install brings up to date (new functions, narrower
   * grants): `role` rows, and the statements for one. Undefined where accounts are not tracked.
   */
  readonly appRoles?: {
    readonly query: string;
    readonly from: number;
    statements(role: string, version: number): string[];
  };
  /** How an install with a registry reads and records this database's place in the id space. */
  readonly idSpace?: IdSpaceInstall;
  /**
   * Checks, before anything changes (and before a registry is asked), what the SQL needs: server
   * settings, who owns what is there; throws a SheafError.
   */
  readonly preflight?: (session: SqlExecutor) => Promise<void>;
  /**
   * Where the test clock is a variant of the generator's functions rather than something
   * `configure` bakes in (MySQL): install() switches variants after `configure`.
   */
  readonly testClock?: TestClockInstall;
  /** Puts back state the generator needs (a lock secret, a sequence never called) before configure. */
  readonly repair?: { readonly from: number; readonly statement: string };
  /** Where `next_id()` can run natively (PostgreSQL's C extension): install() applies the choice. */
  readonly nativePath?: NativePathInstall;
  /**
   * Where dropping a routine drops the privileges granted on it (MySQL, whose upgrades replace
   * routines by drop and create): `query` lists them before install() changes anything, and
   * `statements` grants again the rows that went missing.
   */
  readonly routineGrants?: {
    readonly query: string;
    statements(rows: readonly Record<string, unknown>[]): string[];
  };
  /**
   * Where the statements name databases (MySQL: the application's and sheaf's own beside it): the
   * same install with those names filled in for the session, as things stand now. install() binds
   * again after each file, since a file may move sheaf's tables.
   */
  readonly bind?: (session: SqlExecutor) => Promise<DialectInstall>;
  /** The same for a printed script: the application database's name, and whether the state was moved. */
  readonly named?: (database: string | undefined, moved: boolean) => DialectInstall;
  /**
   * Where the application's database keeps forwards to sheaf's own (MySQL since 0012): re-creates,
   * before anything calls them, those that differ from the installed `files`' (another definer, a
   * changed body), which a recorded file would never re-create. `files` as unbound: with `{app}` and `{state}`.
   */
  readonly restoreForwards?: (session: SqlExecutor, files: readonly SqlFile[]) => Promise<void>;
  /** The file version from which sheaf's state lives in the database {@link bind} names (MySQL). */
  readonly movedFrom?: number;
  /** Where a node of a multi-primary cluster issues a shard of its own (MySQL on Galera, since 0015). */
  readonly nodeShards?: NodeShardInstall;
}

/** How a dialect installs its test-clock variant of the generator (see {@link DialectInstall.testClock}). */
export interface TestClockInstall {
  /** One row, `test` truthy when the test variant is installed, NULL when that cannot be seen. */
  readonly installed: string;
  /** The statements that install the test (`on`) or production variant of these installed files. */
  statements(files: readonly SqlFile[], on: boolean): string[];
}

/** The parameters of `DialectInstall.configure`, in order. */
export function configureParams(shard: number, layout: Layout, testClock: boolean): unknown[] {
  return [shard, layout.name, layout.epoch, layout.timeBits, layout.shardBits, layout.sequenceBits, testClock];
}
