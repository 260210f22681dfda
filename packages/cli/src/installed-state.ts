import { type DialectName, inState, type SqlExecutor } from '@sheaf/core';

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

interface StateSql {
  readonly installed: string;
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
    settings: `select ${settingsColumns} from sheaf.settings`,
    // The block sequence reads -1 until the first block is opened.
    issued: "select pg_sequence_last_value('sheaf.block') >= 0 as issued",
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
    settings: `select ${settingsColumns} from {state}.sheaf_settings`,
    // sheaf_configure records the counter in probe_k; every id chunk taken since moves it on.
    issued: `select t.auto_increment > s.probe_k + 1 as issued
      from information_schema.tables t, {state}.sheaf_settings s
      where t.table_schema = {state_text} and t.table_name = 'sheaf_chunks'`,
    native: 'select false as native, false as available',
  },
};

/** The installed version, shard and layout, or undefined where sheaf is not installed. */
export async function readInstalledState(executor: SqlExecutor): Promise<InstalledState | undefined> {
  const sql = await inState(executor, stateSql[executor.dialect.name]);
  const [probe] = await executor.query<{ installed: unknown }>(sql.installed);
  if (!truthy(probe?.installed)) return undefined;
  const [versionRow] = await executor.query<{ version: unknown }>(sql.version);
  const [settings] = await executor.query<Record<string, unknown>>(sql.settings);
  const [issued] = await executor.query<{ issued: unknown }>(sql.issued);
  const [native] = await executor.query<{ native: unknown; available: unknown }>(sql.native);
  return {
    version: Number(versionRow?.version ?? 0),
    shard: Number(settings?.shard_id ?? 0),
    layout: {
      name: String(settings?.layout_name ?? 'sheaf'),
      epoch: Number(settings?.epoch_ms),
      timeBits: Number(settings?.time_bits),
      shardBits: Number(settings?.shard_bits),
      sequenceBits: Number(settings?.sequence_bits),
    },
    idsIssued: truthy(issued?.issued),
    native: truthy(native?.native),
    nativeAvailable: truthy(native?.available),
  };
}

function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}
