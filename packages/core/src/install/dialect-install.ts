import type { SqlExecutor } from '../executor.js';
import type { Layout } from '../layout.js';
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
  /** Checks server settings the SQL needs before anything is applied; throws a SheafError. */
  readonly preflight?: (session: SqlExecutor) => Promise<void>;
}

/** The parameters of `DialectInstall.configure`, in order. */
export function configureParams(shard: number, layout: Layout, testClock: boolean): unknown[] {
  return [shard, layout.name, layout.epoch, layout.timeBits, layout.shardBits, layout.sequenceBits, testClock];
}
