import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import type { DialectInstall } from './dialect-install.js';
import { claimantOf } from './id-space.js';
import { Registry } from './registry.js';
import { configureWith, type SettingsRow } from './settings.js';

/** What an install with a registry does around its own work (see {@link registerShard}). */
export interface Registration {
  /** Gives back a claim this install made, when the install failed. */
  undo(): Promise<void>;
  /**
   * Records where this database's shards are registered, once the id space is installed; `dialect`
   * as bound after the files ran (they may have moved sheaf's tables).
   */
  beforeConfigure(version: number, dialect: DialectInstall): Promise<void>;
  /** Notes the shard configure gave back, to give it back in the registry after the commit. */
  afterConfigure(previous: SettingsRow | undefined, dialect: DialectInstall): Promise<void>;
  /** After the commit: confirms the claim and gives back the previous shard. */
  confirm(): Promise<void>;
}

interface Requested {
  readonly shard?: number | undefined;
  readonly layout?: Parameters<typeof configureWith>[1]['layout'];
}

/**
 * Claims the shard an install is about to configure in the registry, before anything changes in
 * the database: a refusal (SHARD_TAKEN) or an unreachable registry (REGISTRY_UNAVAILABLE) leaves
 * both as they were. The claim stays pending until `confirm()`, so an install interrupted after
 * claiming is taken over by its rerun, and nobody else gets the shard meanwhile.
 */
export async function registerShard(
  session: SqlExecutor,
  dialect: DialectInstall,
  requested: Requested,
  registryExecutor: SqlExecutor,
): Promise<Registration> {
  const sql = dialect.idSpace;
  if (!sql) {
    throw new SheafError('UNSUPPORTED_DIALECT', `install({ registry }) is not supported on ${session.dialect.name}`);
  }
  const [present] = await session.query<{ present: unknown }>(sql.settingsPresent);
  const current =
    present?.present === true || Number(present?.present) > 0
      ? (await session.query<SettingsRow>(dialect.settings))[0]
      : undefined;
  const params = configureWith(current, requested);
  const shard = Number(params[0]);
  const registry = await Registry.open(registryExecutor, {
    name: String(params[1]),
    epoch: Number(params[2]),
    timeBits: Number(params[3]),
    shardBits: Number(params[4]),
    sequenceBits: Number(params[5]),
  });
  const claimant = await claimantOf(session, sql);
  const own = registry.databaseId === claimant.databaseId;
  const undo = own ? async () => {} : await registry.claimPending(shard, claimant);
  await session.query(sql.declare, [claimant.databaseId, String(shard)]);
  let released: { shard: number; lastMs: number } | undefined;
  return {
    undo,
    async beforeConfigure(version, bound) {
      const now = bound.idSpace ?? sql;
      if (version >= now.from) await session.query(now.useRegistry, [own ? null : registry.description]);
    },
    async afterConfigure(previous, bound) {
      const old = previous === undefined ? undefined : Number(previous.shard_id);
      if (own || old === undefined || old === shard) return;
      const [row] = await session.query<{ last_ms: unknown }>((bound.idSpace ?? sql).releasedAt, [old]);
      if (row !== undefined) released = { shard: old, lastMs: Number(row.last_ms) };
    },
    async confirm() {
      if (own) return;
      await registry.confirm(shard, claimant);
      if (released) await registry.release(released.shard, claimant, released.lastMs);
    },
  };
}
