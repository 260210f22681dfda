import { isSheafError, SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import { type DialectSql, sqlFor } from '../generators/shared/dialect-sql.js';
import type { Layout } from '../layout.js';
import { inState } from './mysql-state.js';

/** The fields of a layout that decide what a shard value means. */
export type LayoutFields = Pick<Layout, 'name' | 'epoch' | 'timeBits' | 'shardBits' | 'sequenceBits'>;

interface RegistryQueries {
  /** One row: the registry's database_id, database_name and layout. */
  readonly settings: string;
  /** (shard, database_id, holder, pending) → `last_ms`, the last millisecond an earlier holder recorded. */
  readonly claim: string;
  /** (shard, database_id, last_ms) → gives the value back. */
  readonly release: string;
  /** (shard) → the row of the value: `kind`, `database_id`. */
  readonly holder: string;
}

const registrySql: DialectSql<RegistryQueries> = {
  postgres: {
    settings: `select database_id::text as database_id, database_name, epoch_ms::text as epoch_ms, time_bits,
      shard_bits, sequence_bits from sheaf.settings`,
    claim: 'select sheaf.claim_shard($1::integer, $2::uuid, $3, $4::boolean)::text as last_ms',
    release: 'select sheaf.release_shard($1::integer, $2::uuid, $3::bigint) as released',
    holder: 'select kind, database_id::text as database_id from sheaf.workers where worker_id = $1',
  },
  mysql: {
    settings: `select database_id, database_name, epoch_ms, time_bits, shard_bits, sequence_bits
      from {state}.sheaf_settings where singleton = 1`,
    claim: 'select cast({state}.sheaf_claim_shard(?, ?, ?, ?) as char) as last_ms',
    release: 'select {state}.sheaf_release_shard(?, ?, ?) as released',
    holder: 'select kind, database_id from {state}.sheaf_workers where worker_id = ?',
  },
};

/** Who claims a shard in a registry: the database's id and the text shown as its holder. */
export interface Claimant {
  readonly databaseId: string;
  readonly name: string;
}

/**
 * The database that holds the id space of several databases: each registers its shards there, and
 * application generators lease their worker ids from it (docs/layout.md, Id space). A claim made
 * before the claimant's install commits is pending until {@link Registry.confirm}: a rerun of that
 * install (same holder text) takes it over, and nobody else gets the value meanwhile.
 */
export class Registry {
  private constructor(
    private readonly executor: SqlExecutor,
    private readonly sql: RegistryQueries,
    /** The registry as the claimant's settings name it: `name (database_id)`. */
    readonly description: string,
    readonly databaseId: string,
  ) {}

  /**
   * Opens the registry behind `executor` for a database of `layout`: REGISTRY_UNAVAILABLE when it
   * cannot be reached or has no id space, INVALID_ARGUMENT when its layout differs.
   */
  static async open(executor: SqlExecutor, layout: LayoutFields): Promise<Registry> {
    const sql = await reach(
      () => inState(executor, sqlFor(executor, registrySql, 'install({ registry })')),
      'name its databases',
    );
    const [row] = await reach(
      () => executor.query<Record<string, unknown>>(sql.settings),
      'read its settings (is sheaf installed there, with the id space?)',
    );
    if (row === undefined || row.database_id == null) {
      throw new SheafError(
        'REGISTRY_UNAVAILABLE',
        'the registry database has no sheaf id space: install sheaf there first',
      );
    }
    const theirs = [Number(row.epoch_ms), Number(row.time_bits), Number(row.shard_bits), Number(row.sequence_bits)];
    const ours = [layout.epoch, layout.timeBits, layout.shardBits, layout.sequenceBits];
    if (theirs.some((value, index) => value !== ours[index])) {
      throw new SheafError(
        'INVALID_ARGUMENT',
        `the registry's layout (epoch ${theirs[0]}, ${theirs.slice(1).join('/')} bits) differs from this ` +
          `database's ${layout.name} (epoch ${ours[0]}, ${ours.slice(1).join('/')} bits): one id space needs one layout`,
        { details: { registry: theirs, database: ours } },
      );
    }
    const databaseId = String(row.database_id);
    return new Registry(executor, sql, `${String(row.database_name)} (${databaseId})`, databaseId);
  }

  /**
   * Claims `shard` for `claimant`, pending; returns an undo that gives the value back when it was
   * not the claimant's before (a claim refused or an install that failed must change nothing).
   */
  async claimPending(shard: number, claimant: Claimant): Promise<() => Promise<void>> {
    const [before] = await reach(() => this.executor.query<Record<string, unknown>>(this.sql.holder, [shard]), 'claim');
    const held = before?.kind === 'database' && String(before.database_id) === claimant.databaseId;
    await reach(() => this.executor.query(this.sql.claim, [shard, claimant.databaseId, claimant.name, true]), 'claim');
    if (held) return async () => {};
    return async () => {
      await this.executor.query(this.sql.release, [shard, claimant.databaseId, 0]);
    };
  }

  /** Confirms the claim once the claimant's install committed. */
  async confirm(shard: number, claimant: Claimant): Promise<void> {
    await reach(
      () => this.executor.query(this.sql.claim, [shard, claimant.databaseId, claimant.name, false]),
      `confirm shard ${shard}; the install is done and the shard stays held as pending: install again to confirm it`,
    );
  }

  /** Gives back a shard the claimant no longer issues, with the last millisecond it was issued at. */
  async release(shard: number, claimant: Claimant, lastMs: number): Promise<void> {
    await reach(
      () => this.executor.query(this.sql.release, [shard, claimant.databaseId, lastMs]),
      `give shard ${shard} back; it stays held by this database: install again to give it back`,
    );
  }
}

/** Runs `work` on the registry; a failure that is not sheaf's own refusal is REGISTRY_UNAVAILABLE. */
async function reach<T>(work: () => Promise<T>, what: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isSheafError(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new SheafError('REGISTRY_UNAVAILABLE', `the registry database failed to ${what}: ${message}`, {
      cause: error,
    });
  }
}
