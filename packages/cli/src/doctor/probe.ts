import {
  auditGrants,
  auditOwnership,
  type GrantFinding,
  inState,
  isSheafError,
  type OwnershipFinding,
  type SqlExecutor,
} from '@sheaf/core';
import { describeTarget, type Target, withConnection } from '../connection.js';
import { type InstalledState, readInstallation } from '../installed-state.js';
import { redactText } from '../redact.js';
import type { StateGap } from '../state-gaps.js';
import { type ClockSample, sampleClock } from './clock-sample.js';
import { type GaleraReading, ownBinding, readGalera } from './galera-reading.js';
import { type GeneratorWindow, sampleGenerator } from './generator-sample.js';
import { type IdSpaceReading, readIdSpace } from './id-space-reading.js';
import { type LegacyJournal, readLegacyJournal } from './legacy-journal.js';
import { type NodeReading, readNode } from './node-reading.js';
import { type ProbeSql, probeSql } from './probe-sql.js';
import { type ReplicatedSheaf, readReplicatedSheaf } from './replication-reading.js';
import { readTriggerKeys, type TriggerKeys } from './trigger-keys.js';

/** A reading that failed (a table of a newer SQL version, missing grants): the error's message. */
export interface Unreadable {
  readonly unreadable: string;
}

/** One `sheaf.segments` row, with the server clock it was read at. */
export interface SegmentRow {
  readonly bizTag: string;
  readonly maxId: bigint;
  readonly step: number;
  readonly updatedMs: number;
  readonly serverMs: number;
}

/** The worker ids of the layout (up to its largest shard) that this database's workers table hands out no more. */
export interface WorkerIds {
  /** Live worker leases. */
  readonly leased: number;
  /** Values held by databases, confirmed or pending (SQL version 0009 / MySQL 0006 on): leases skip them. */
  readonly heldByDatabases: number;
}

/** Everything the checks judge one database on, read in one connection. */
export interface Snapshot {
  readonly target: Target;
  /** The database for messages, password hidden. */
  readonly label: string;
  /** Why the database could not be read at all (connection refused, no PGlite directory). */
  readonly error?: unknown;
  /** The installed SQL version; undefined where sheaf is not installed. */
  readonly version?: number;
  /** What the generator needs and the database lacks. */
  readonly gaps?: readonly StateGap[];
  /** Undefined where the settings row is missing (a gap) or sheaf is not installed. */
  readonly state?: InstalledState;
  /** PostgreSQL: the node the database runs on and the one its shard is bound to. */
  readonly node?: NodeReading | Unreadable;
  /** MySQL/MariaDB with `wsrep_on`: the Galera node and its cluster; undefined elsewhere. */
  readonly galera?: GaleraReading | Unreadable;
  /** PostgreSQL: publications and pglogical replication sets that replicate schema sheaf. */
  readonly replicated?: readonly ReplicatedSheaf[] | Unreadable;
  readonly clock?: ClockSample;
  readonly generator?: GeneratorWindow;
  /** Undefined where there is no workers table (before version 6 on PostgreSQL). */
  readonly workers?: WorkerIds | Unreadable;
  /** The shard values, worker leases and tickets it holds, for the comparison across databases. */
  readonly idSpace?: IdSpaceReading | Unreadable;
  readonly segments?: readonly SegmentRow[] | Unreadable;
  /** Privileges broader than an application's; undefined where the dialect cannot be audited. */
  readonly grants?: readonly GrantFinding[] | Unreadable;
  /** Objects of sheaf not owned by schema sheaf's owner; undefined where the dialect cannot be audited. */
  readonly owners?: readonly OwnershipFinding[] | Unreadable;
  /** Sheaf triggers and the keys without one; undefined where column defaults call sheaf (PostgreSQL). */
  readonly triggers?: TriggerKeys | Unreadable;
  /** MySQL/MariaDB: the journal earlier versions kept in the application's database, where there is one. */
  readonly legacyJournal?: LegacyJournal | Unreadable;
}

/** Reads a database's snapshot; a database that cannot be reached is a snapshot with its error. */
export async function probe(target: Target): Promise<Snapshot> {
  const label = describeTarget(target);
  try {
    return await withConnection(target, { create: false }, (executor) => read(executor, target, label));
  } catch (error) {
    return { target, label, error };
  }
}

async function read(executor: SqlExecutor, target: Target, label: string): Promise<Snapshot> {
  const sql = await inState(executor, probeSql[executor.dialect.name]);
  const installation = await readInstallation(executor);
  const clock = await sampleClock(executor, sql.nowMs);
  if (!installation) return { target, label, clock };
  const { version, gaps, state } = installation;
  const galera = await galeraReading(executor, version);
  const found = { target, label, clock, version, gaps, ...galera, ...(await postgresReadings(executor, target)) };
  if (!state) return found;
  const idSpace = await readable(() => readIdSpace(executor));
  // A Galera node with a shard of its own claims from a counter of its own.
  const own = galera.galera !== undefined && !isUnreadable(galera.galera) && ownBinding(galera.galera);
  const counter = own && sql.nodeGenerator ? { ...sql, generator: sql.nodeGenerator } : sql;
  return {
    ...found,
    state,
    generator: await sampleGenerator(executor, counter, state),
    ...workers(idSpace, 2 ** state.layout.shardBits - 1),
    idSpace,
    segments: await readable(() => segments(executor, sql)),
    ...(await grants(executor)),
    ...(await owners(executor)),
    ...(executor.dialect.functionDefaults ? {} : { triggers: await readable(() => readTriggerKeys(executor)) }),
    ...(executor.dialect.transactionalDdl ? {} : await legacyJournal(executor)),
  };
}

// Node identity and replication of schema sheaf: PostgreSQL's (MySQL's state lives in its own database).
async function postgresReadings(executor: SqlExecutor, target: Target): Promise<Pick<Snapshot, 'node' | 'replicated'>> {
  if (executor.dialect.name !== 'postgres') return {};
  return {
    node: await readable(() => readNode(executor, target)),
    replicated: await readable(() => readReplicatedSheaf(executor)),
  };
}

async function galeraReading(executor: SqlExecutor, version: number): Promise<Pick<Snapshot, 'galera'>> {
  const galera = await readable(() => readGalera(executor, version));
  return galera === undefined ? {} : { galera };
}

async function legacyJournal(executor: SqlExecutor): Promise<Pick<Snapshot, 'legacyJournal'>> {
  const journal = await readable(() => readLegacyJournal(executor));
  return journal === undefined ? {} : { legacyJournal: journal };
}

// A dialect without an audit (MySQL) has no grants check, rather than a warning on every run.
async function grants(executor: SqlExecutor): Promise<{ grants?: readonly GrantFinding[] | Unreadable }> {
  let unsupported = false;
  const findings = await readable(() =>
    auditGrants(executor).catch((error: unknown) => {
      unsupported = isSheafError(error, 'UNSUPPORTED_DIALECT');
      throw error;
    }),
  );
  return unsupported ? {} : { grants: findings };
}

async function owners(executor: SqlExecutor): Promise<{ owners?: readonly OwnershipFinding[] | Unreadable }> {
  let unsupported = false;
  const findings = await readable(() =>
    auditOwnership(executor).catch((error: unknown) => {
      unsupported = isSheafError(error, 'UNSUPPORTED_DIALECT');
      throw error;
    }),
  );
  return unsupported ? {} : { owners: findings };
}

// Counted from the id space's rows: a 'database' row is no lease, but no lease can take its value.
function workers(idSpace: IdSpaceReading | Unreadable, maxWorker: number): Pick<Snapshot, 'workers'> {
  if (isUnreadable(idSpace)) return { workers: idSpace };
  if (idSpace.holders === undefined) return {};
  const rows = idSpace.holders.filter((row) => row.value <= maxWorker);
  const leased = rows.filter((row) => row.kind === 'worker').length;
  return { workers: { leased, heldByDatabases: rows.length - leased } };
}

async function segments(executor: SqlExecutor, sql: ProbeSql): Promise<SegmentRow[]> {
  const rows = await executor.query<Record<string, unknown>>(sql.segments);
  return rows.map((row) => ({
    bizTag: String(row.biz_tag),
    maxId: BigInt(String(row.max_id)),
    step: Number(row.step),
    updatedMs: Number(row.updated_ms),
    serverMs: Number(row.now_ms),
  }));
}

/** What `read` returns, or the error's message (password hidden) when it fails. */
export async function readable<T>(read: () => Promise<T>): Promise<T | Unreadable> {
  try {
    return await read();
  } catch (error) {
    return { unreadable: redactText(error instanceof Error ? error.message : String(error)) };
  }
}

/** Whether a reading failed. */
export function isUnreadable(value: unknown): value is Unreadable {
  return typeof value === 'object' && value !== null && 'unreadable' in value;
}
