import { type DialectName, inState, type SqlExecutor } from '@sheaf/core';
import { readStateGaps, type StateGap } from './state-gaps.js';

/** What sheaf's tables say about an installation. */
export interface InstalledState {
  readonly version: number;
  readonly shard: number;
  readonly layout: {
    readonly name: string;
    readonly epoch: number;
    readonly timeBits: number;
    readonly shardBits: number;
    readonly sequenceBits: number;
  };
  /** Whether the generator has issued an id since its layout was last set. */
  readonly idsIssued: boolean;
  /** PostgreSQL: whether next_id() runs in C (docs/native.md); false elsewhere. */
  readonly native: boolean;
  /** PostgreSQL: whether the server has the extension sheaf_native to install. */
  readonly nativeAvailable: boolean;
}

/** An installation as found, whole or not. */
export interface Installation {
  readonly version: number;
  /** Undefined when the settings table has no row: the shard and layout are recorded nowhere. */
  readonly state: InstalledState | undefined;
  /** What the generator needs and the database lacks; empty when whole. */
  readonly gaps: readonly StateGap[];
}

interface StateSql {
  readonly installed: string;
  /** The settings table as messages name it. */
  readonly settingsTable: string;
  readonly version: string;
  readonly settings: string;
  readonly issued: string;
  /** One row: `native` and `available`, as booleans. */
  readonly native: string;
}

const settingsColumns = 'shard_id, layout_name, epoch_ms, time_bits, shard_bits, sequence_bits';

// Parallel in shape per dialect, like the installer's own; `{state}`: see inState.
const stateSql: Record<DialectName, StateSql> = {
  postgres: {
    installed: "select to_regclass('sheaf.schema_versions') is not null as installed",
    version: 'select max(version) as version from sheaf.schema_versions',
    settingsTable: 'sheaf.settings',
    settings: `select ${settingsColumns} from sheaf.settings`,
    // The block sequence reads -1 until the first block is opened; through to_regclass, a sequence
    // missing reads null (a gap, reported as one).
    issued: "select coalesce(pg_sequence_last_value(to_regclass('sheaf.block')) >= 0, false) as issued",
    // Through to_jsonb: the column is missing before the SQL version that added the native path.
    native: `select coalesce((to_jsonb(s) ->> 'native')::boolean, false)
        and exists (select from pg_extension e where e.extname = 'sheaf_native') as native,
      exists (select from pg_available_extensions a where a.name = 'sheaf_native') as available
      from sheaf.settings s`,
  },
  mysql: {
    installed: `select count(*) > 0 as installed from information_schema.tables
      where table_schema = {state_text} and table_name = 'sheaf_schema_versions'`,
    version: 'select max(version) as version from {state}.sheaf_schema_versions',
    settingsTable: 'sheaf_settings',
    settings: `select ${settingsColumns} from {state}.sheaf_settings`,
    // sheaf_configure records the counter in probe_k; every id chunk taken since moves it on, by
    // auto_increment_increment (the cluster's size on Galera). A Galera node claims from a counter
    // of its own (SQL version 15), at 1 until its first claim and replicated to every node.
    issued: `select t.auto_increment > s.probe_k + @@auto_increment_increment
        or exists (select 1 from information_schema.tables n where n.table_schema = {state_text}
          and n.table_name regexp '^sheaf_node_chunks_[0-7]$' and n.auto_increment > 1) as issued
      from information_schema.tables t, {state}.sheaf_settings s
      where t.table_schema = {state_text} and t.table_name = 'sheaf_chunks'`,
    native: 'select false as native, false as available',
  },
};

/** The installed version, shard and layout; undefined where sheaf is not installed or has no settings row. */
export async function readInstalledState(executor: SqlExecutor): Promise<InstalledState | undefined> {
  return (await readInstallation(executor))?.state;
}

/**
 * The installation with what it lacks (PostgreSQL: see state-gaps.ts; every dialect: the settings
 * row), or undefined where sheaf is not installed. A schema left half there reads as far as it goes.
 */
export async function readInstallation(executor: SqlExecutor): Promise<Installation | undefined> {
  const sql = await inState(executor, stateSql[executor.dialect.name]);
  const [probe] = await executor.query<{ installed: unknown }>(sql.installed);
  if (!truthy(probe?.installed)) return undefined;
  const [versionRow] = await executor.query<{ version: unknown }>(sql.version);
  const version = Number(versionRow?.version ?? 0);
  const gaps = await readStateGaps(executor, version);
  if (gaps.some((gap) => gap.object === sql.settingsTable && gap.problem === 'is missing')) {
    return { version, state: undefined, gaps };
  }
  const [settings] = await executor.query<Record<string, unknown>>(sql.settings);
  if (settings === undefined) {
    return {
      version,
      state: undefined,
      gaps: [{ object: sql.settingsTable, problem: 'has no row', settings: true }, ...gaps],
    };
  }
  const [issued] = await executor.query<{ issued: unknown }>(sql.issued);
  const [native] = await executor.query<{ native: unknown; available: unknown }>(sql.native);
  const state = {
    version,
    shard: Number(settings.shard_id),
    layout: {
      name: String(settings.layout_name),
      epoch: Number(settings.epoch_ms),
      timeBits: Number(settings.time_bits),
      shardBits: Number(settings.shard_bits),
      sequenceBits: Number(settings.sequence_bits),
    },
    idsIssued: truthy(issued?.issued),
    native: truthy(native?.native),
    nativeAvailable: truthy(native?.available),
  };
  return { version, state, gaps };
}

function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}
